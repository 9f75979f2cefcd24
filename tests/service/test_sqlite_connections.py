"""SQLite: a fresh connection waits for a lock held elsewhere (up to the busy timeout) instead
of failing at once with "database is locked" while it sets itself up."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from sqlalchemy import text

from pbem.core.db import Database

HOLD_SECONDS = 0.5


def _hold_exclusive_lock(path: Path, locked: threading.Event) -> None:
    """Another process's writer (or one recovering the file after a crash): it holds the
    file's exclusive lock for a moment, then lets go."""
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN EXCLUSIVE")
        other.execute("INSERT INTO t VALUES (2)")
        locked.set()
        time.sleep(HOLD_SECONDS)
        other.execute("COMMIT")
    finally:
        other.close()


def test_a_fresh_connection_waits_for_a_held_lock_instead_of_failing(tmp_path: Path) -> None:
    path = tmp_path / "pbem.db"
    # A file in rollback-journal mode, as before the service first opened it: switching it
    # to WAL needs the lock the other connection holds.
    with sqlite3.connect(path) as setup:
        setup.execute("CREATE TABLE t (x INTEGER)")
        setup.execute("INSERT INTO t VALUES (1)")
    setup.close()
    locked = threading.Event()
    holder = threading.Thread(target=_hold_exclusive_lock, args=(path, locked))
    holder.start()
    try:
        assert locked.wait(5)
        db = Database(f"sqlite:///{path}", busy_timeout_ms=10_000)
        try:
            started = time.monotonic()
            with db.read() as session:
                rows = session.execute(text("SELECT count(*) FROM t")).scalar_one()
                mode = session.execute(text("PRAGMA journal_mode")).scalar_one()
                timeout = session.execute(text("PRAGMA busy_timeout")).scalar_one()
            waited = time.monotonic() - started
        finally:
            db.dispose()
    finally:
        holder.join()
    assert rows == 2  # it waited for the other writer's commit, then read
    assert mode == "wal"
    assert timeout == 10_000
    assert waited > HOLD_SECONDS / 2
