"""``python -m pbem.verify BUNDLE_OR_FOLDER ...``: the offline verifier under a short name.

The verifier is ``pbem.audit.verify`` (see there: what it checks, and that it needs the engine
and the standard library alone); this only runs its command line.
"""

from __future__ import annotations

import sys

from pbem.audit.verify import main

if __name__ == "__main__":
    sys.exit(main())
