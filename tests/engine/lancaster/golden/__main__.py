"""Regenerate (``--update``) or check the golden transcript."""

from __future__ import annotations

import sys

from tests.engine.lancaster.golden import PATH, stored, transcript


def main(argv: list[str]) -> int:
    fresh = transcript()
    if "--update" in argv:
        PATH.write_text(fresh, encoding="utf-8")
        print(f"wrote {PATH} ({len(fresh.splitlines())} lines); review it with git diff")
        return 0
    if PATH.exists() and stored() == fresh:
        print("golden transcript up to date")
        return 0
    print("golden transcript differs; run with --update and review the diff")
    return 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
