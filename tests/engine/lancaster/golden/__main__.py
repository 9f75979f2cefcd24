"""Regenerate (``--update``) or check the golden transcript."""

from __future__ import annotations

import sys

from tests.engine.lancaster.golden import goldens, stored, transcript


def main(argv: list[str]) -> int:
    status = 0
    for path, players, seed, modules in goldens():
        fresh = transcript(players, seed, modules)
        if "--update" in argv:
            path.write_text(fresh, encoding="utf-8")
            print(f"wrote {path} ({len(fresh.splitlines())} lines); review it with git diff")
        elif path.exists() and stored(path) == fresh:
            print(f"{path.name}: up to date")
        else:
            print(f"{path.name} differs; run with --update and review the diff")
            status = 1
    return status


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
