"""The driver statements (``pbem.core.db.DriverStatement``, which run on the database
driver without SQLAlchemy's execution) are made only inside the core's write path; feature
code reaches the database through its session (docs/architecture.md, "The database")."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the core's write path: the database module itself, the events' INSERT, the game's lock,
#: and the rows an append writes besides its events
WRITE_PATH = {
    "pbem/core/db.py",
    "pbem/core/store.py",
    "pbem/core/unit_of_work.py",
    "pbem/core/hot_path.py",
}


def test_driver_statements_are_made_only_in_the_cores_write_path() -> None:
    found = sorted(
        str(path.relative_to(ROOT))
        for folder in ("engine", "pbem", "web")
        for path in (ROOT / folder).rglob("*.py")
        if "DriverStatement" in path.read_text(encoding="utf-8")
    )
    assert set(found) <= WRITE_PATH, sorted(set(found) - WRITE_PATH)
