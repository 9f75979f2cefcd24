"""The schema: Alembic migrations, run on an empty database, create exactly the tables the
models describe (and step back down to nothing), and the SQLite connection runs with the
pragmas and locking the design asks for."""

from __future__ import annotations

import importlib
import pkgutil
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import MetaData, inspect, text
from sqlmodel import SQLModel

import pbem
from pbem.core.db import Database
from pbem.core.migrate import alembic_config, current_revisions, head_revisions, upgrade


def _every_table_model() -> MetaData:
    """The metadata of every table model in pbem: each module is imported, so a model that
    no migration creates is found wherever it is defined."""
    for module in pkgutil.walk_packages(pbem.__path__, "pbem."):
        importlib.import_module(module.name)
    return SQLModel.metadata


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def empty_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    """A new database with no table at all (not the module's migrated one)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path}/empty.db"
    else:
        new_postgres_database: Callable[[], str] = request.getfixturevalue("new_postgres_database")
        url = new_postgres_database()
    db = Database(url)
    yield db
    db.dispose()


def _tables(db: Database) -> set[str]:
    with db.engine.connect() as conn:
        return set(inspect(conn).get_table_names())


def test_migrations_from_an_empty_database_create_exactly_the_models(
    empty_database: Database,
) -> None:
    metadata = _every_table_model()
    assert {"events", "games", "seats", "mail_outbox"} <= set(metadata.tables)
    assert _tables(empty_database) == set()
    upgrade(empty_database)
    with empty_database.engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        differences = compare_metadata(context, metadata)
    assert differences == []


def test_migrations_step_back_down_to_an_empty_database(empty_database: Database) -> None:
    upgrade(empty_database)
    config = alembic_config()
    with empty_database.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "base")
    assert _tables(empty_database) <= {"alembic_version"}
    upgrade(empty_database)  # and up again
    assert current_revisions(empty_database) == head_revisions()


def test_database_is_at_the_head_revision(database: Database) -> None:
    assert current_revisions(database) == head_revisions()
    assert "0001_initial" in _all_revisions()


def _all_revisions() -> set[str]:
    from alembic.script import ScriptDirectory

    return {s.revision for s in ScriptDirectory.from_config(alembic_config()).walk_revisions()}


def test_sqlite_runs_in_wal_with_full_sync(tmp_path) -> None:
    db = Database(f"sqlite:///{tmp_path}/x.db", busy_timeout_ms=1234)
    with db.read() as s:
        assert s.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert s.execute(text("PRAGMA synchronous")).scalar() == 2  # FULL
        assert s.execute(text("PRAGMA busy_timeout")).scalar() == 1234
    db.dispose()


def test_sqlite_write_transactions_take_the_lock_at_begin(tmp_path) -> None:
    # BEGIN IMMEDIATE: a second writer waits at the start of its transaction (until the
    # first commits) rather than reading first and failing on its first write.
    db = Database(f"sqlite:///{tmp_path}/x.db", busy_timeout_ms=5000)
    with db.write() as s:
        s.execute(text("CREATE TABLE t (x INTEGER)"))
    order: list[str] = []
    first_has_lock = threading.Event()

    def first() -> None:
        with db.write() as s:
            first_has_lock.set()
            time.sleep(0.3)
            s.execute(text("INSERT INTO t VALUES (1)"))
            order.append("first committed")

    def second() -> None:
        first_has_lock.wait()
        with db.write() as s:
            order.append("second began")
            count = s.execute(text("SELECT count(*) FROM t")).scalar()
            s.execute(text("INSERT INTO t VALUES (2)"))
        order.append(f"second saw {count}")

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert order == ["first committed", "second began", "second saw 1"]
    db.dispose()


def test_sqlite_write_transactions_hold_the_write_lock_from_begin(tmp_path) -> None:
    # The test above would also pass on the writer file lock alone; here another connection,
    # which does not take that file lock, finds the database's own write lock taken before
    # the write transaction has run a single statement (BEGIN IMMEDIATE), and free during a
    # read transaction.
    path = tmp_path / "x.db"
    db = Database(f"sqlite:///{path}", busy_timeout_ms=5000)
    other = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        with db.write(), pytest.raises(sqlite3.OperationalError, match="locked"):
            other.execute("BEGIN IMMEDIATE")
        with db.read() as s:
            s.execute(text("SELECT 1"))
            other.execute("BEGIN IMMEDIATE")
            other.execute("ROLLBACK")
    finally:
        other.close()
        db.dispose()
