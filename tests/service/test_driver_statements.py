"""``DriverStatement``: a statement built with SQLAlchemy and run on the driver's own cursor
gives what SQLAlchemy's execution would (the same stored values, its exceptions), on SQLite
and PostgreSQL, and in a pipelined write waits for its answer only when asked to."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import psycopg
import pytest
from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    Integer,
    MetaData,
    String,
    Table,
    bindparam,
    insert,
    select,
    text,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError, OperationalError, StatementError

from pbem.core.db import Database, DriverStatement
from tests.service.helpers import count_pipeline_waits

_metadata = MetaData()
_MARKS = Table(
    "driver_marks",
    _metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(40), nullable=False),
    Column("at", DateTime, nullable=False),
    Column("done", Boolean, nullable=False),
)
_WITH_DEFAULT = Table(
    "driver_defaults",
    _metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(40), default="nobody"),
)
_INSERT = DriverStatement(insert(_MARKS))
_INSERT_UNREAD = DriverStatement(insert(_MARKS), wait=False)
# The same parameter twice, as the mails' facts query has it: SQLite's "?" style repeats it.
_BOTH_NAMED = DriverStatement(
    text(
        "SELECT id FROM driver_marks WHERE name = :name "
        "UNION ALL SELECT id + 100 FROM driver_marks WHERE name = :name ORDER BY 1"
    )
)
_AT_NOON = datetime(2026, 11, 26, 12, 0, 0)  # no microseconds: stored text shows the format


@pytest.fixture
def db(database: Database) -> Iterator[Database]:
    _metadata.drop_all(database.engine)
    _metadata.create_all(database.engine)
    yield database
    _metadata.drop_all(database.engine)


def _row(n: int, name: str = "Ann") -> dict[str, object]:
    return {"id": n, "name": name, "at": _AT_NOON, "done": n % 2 == 0}


def _stored(db: Database) -> list[tuple[object, ...]]:
    with db.read() as session:
        found = session.connection().execute(
            text("SELECT id, name, CAST(at AS VARCHAR(40)), done FROM driver_marks ORDER BY id")
        )
        return [tuple(r) for r in found]


def test_rows_are_stored_as_sqlalchemy_stores_them(db: Database) -> None:
    rows = [_row(1), _row(2), _row(3)]
    with db.write() as session:
        _INSERT.run(session, rows[:2])  # several rows: one statement each
        _INSERT.run(session, rows[2])
    by_driver = _stored(db)
    with db.write() as session:
        session.connection().execute(text("DELETE FROM driver_marks"))
        session.connection().execute(insert(_MARKS), rows)  # SQLAlchemy's own
    # Every value as SQLAlchemy stores it: on SQLite the time is text, with the microseconds
    # that the driver's own conversion leaves out.
    assert by_driver == _stored(db)


def test_a_parameter_named_twice_is_given_twice(db: Database) -> None:
    with db.write() as session:
        _INSERT.run(session, [_row(1), _row(2, "Bob")])
        assert _BOTH_NAMED.run(session, {"name": "Bob"}).fetchall() == [(2,), (102,)]


def test_a_value_bound_in_the_statement_is_given(db: Database) -> None:
    # ``name == "Bob"`` binds its value in the statement; the caller gives only the id.
    query = DriverStatement(
        select(_MARKS.c.id).where(_MARKS.c.name == "Bob", _MARKS.c.id > bindparam("least"))
    )
    with db.write() as session:
        _INSERT.run(session, [_row(1, "Bob"), _row(2, "Bob"), _row(3)])
        assert query.run(session, {"least": 1}).fetchall() == [(2,)]


def test_a_driver_error_is_raised_as_sqlalchemys_and_changes_nothing(db: Database) -> None:
    with db.write() as session:
        _INSERT.run(session, _row(1))
    with pytest.raises(IntegrityError), db.write() as session:
        _INSERT.run(session, _row(2))
        _INSERT.run(session, _row(1))  # taken
    assert [r[0] for r in _stored(db)] == [1]


def test_a_missing_parameter_is_said_as_sqlalchemy_says_it(db: Database) -> None:
    with pytest.raises(StatementError), db.write() as session:
        _BOTH_NAMED.run(session, {"nom": "Bob"})


def test_a_statement_sqlalchemy_would_add_to_is_refused(db: Database) -> None:
    # SQLAlchemy fills in a Python-side default itself; the driver would not.
    statement = DriverStatement(insert(_WITH_DEFAULT))
    with (
        pytest.raises(ValueError, match="not a statement for the driver alone"),
        db.write() as session,
    ):
        statement.run(session, {"id": 1})


@pytest.fixture
def postgres(postgres_url: str) -> Iterator[Database]:
    """Pipeline mode is PostgreSQL's."""
    db = Database(postgres_url, pool_size=1)
    _metadata.drop_all(db.engine)
    _metadata.create_all(db.engine)
    yield db
    _metadata.drop_all(db.engine)
    db.dispose()


@pytest.mark.postgres
def test_in_a_pipelined_write_only_a_statement_read_waits(
    postgres: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = postgres
    waits = count_pipeline_waits(monkeypatch)
    with db.pipelined_write() as session:
        _INSERT_UNREAD.run(session, [_row(1), _row(2, "Bob")])
        assert waits == []
        assert _BOTH_NAMED.run(session, {"name": "Bob"}).fetchall() == [(2,), (102,)]
        assert waits == [1]
        _INSERT.run(session, _row(3))
        assert waits == [1, 1]
    assert [r[0] for r in _stored(db)] == [1, 2, 3]


@pytest.mark.postgres
def test_a_lost_connection_drops_the_pool_so_that_one_write_fails_not_one_per_connection(
    postgres_url: str,
) -> None:
    # As when the server restarts: every pooled connection went with it, and the pool is
    # renewed at the first failure (SQLAlchemy's own handling of a disconnect).
    db = Database(postgres_url, pool_size=3)
    backend = DriverStatement(text("SELECT pg_backend_pid()"))
    try:
        with db.write() as one, db.write() as two, db.write() as three:
            pids = [backend.run(s, {}).fetchone()[0] for s in (one, two, three)]
        with psycopg.connect(_libpq(postgres_url), autocommit=True) as admin:
            for pid in pids:
                admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        outcomes = []
        for _ in range(4):
            try:
                with db.write() as session:
                    backend.run(session, {}).fetchone()
                outcomes.append("ok")
            except OperationalError as error:
                assert error.connection_invalidated
                outcomes.append("lost")
        assert outcomes == ["lost", "ok", "ok", "ok"]
    finally:
        db.dispose()


def _libpq(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
