"""PostgreSQL: a pipelined write (``Database.pipelined_write``, the unit of work's
transaction) sends a driver statement made with ``wait=False`` without waiting for its
answer; the next statement whose answer is read waits for both. An error in a statement
sent ahead is raised all the same (by the next statement that waits, or by the commit), and
the whole transaction rolls back; the pooled connection leaves pipeline mode either way."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest
from psycopg import pq
from sqlalchemy import Column, Integer, MetaData, Table, insert, text
from sqlalchemy.exc import IntegrityError

from pbem.core.db import Database, DriverStatement
from tests.service.helpers import count_pipeline_waits

pytestmark = pytest.mark.postgres

_INSERT_WAITING = text("INSERT INTO pipelined (id) VALUES (:id)")
_INSERT = DriverStatement(_INSERT_WAITING, wait=False)
_COUNT = text("SELECT count(*) FROM pipelined")


@pytest.fixture
def database(postgres_url: str) -> Iterator[Database]:
    # One pooled connection: every transaction below reuses the one before it.
    db = Database(postgres_url, pool_size=1)
    with db.write() as session:
        session.connection().execute(text("DROP TABLE IF EXISTS pipelined"))
        session.connection().execute(text("CREATE TABLE pipelined (id integer PRIMARY KEY)"))
    yield db
    db.dispose()


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Each time a pipelined write waits for the server before its commit."""
    return count_pipeline_waits(monkeypatch)


def _store_one(db: Database) -> None:
    """Row 1, committed: inserting it again fails on the server."""
    with db.write() as session:
        _INSERT.run(session, {"id": 1})


def _ids(db: Database) -> list[int]:
    with db.read() as session:
        ids = session.connection().execute(text("SELECT id FROM pipelined ORDER BY id"))
        return list(ids.scalars())


def _pooled(db: Database) -> tuple[int, pq.PipelineStatus, bool, pq.TransactionStatus]:
    """What the pool hands out next: its server process (a dropped connection is replaced by
    another), and whether it is out of pipeline mode, out of autocommit and out of any
    transaction, as a pooled connection must be."""
    with db.engine.connect() as connection:
        driver = connection.connection.driver_connection
        assert isinstance(driver, psycopg.Connection)
        state = (driver.pgconn.pipeline_status, driver.autocommit, driver.info.transaction_status)
        pid = connection.execute(text("SELECT pg_backend_pid()")).scalar_one()
        connection.rollback()
    return (int(pid), *state)


_CLEAN = (pq.PipelineStatus.OFF, False, pq.TransactionStatus.IDLE)


def test_statements_whose_answer_is_unread_go_with_the_next_one_read(
    database: Database, waits: list[int]
) -> None:
    with database.pipelined_write() as session:
        for n in (1, 2, 3):
            _INSERT.run(session, {"id": n})
        assert waits == [], "a statement made with wait=False waited for its answer"
        # The read waits once, for the three inserts and itself, and sees them.
        assert session.connection().execute(_COUNT).scalar_one() == 3
        assert waits == [1]
        _INSERT.run(session, {"id": 4})
    assert _ids(database) == [1, 2, 3, 4]
    assert _pooled(database)[1:] == _CLEAN


def test_an_error_sent_ahead_is_raised_by_the_next_read_and_undoes_everything(
    database: Database,
) -> None:
    _store_one(database)
    with (
        pytest.raises(IntegrityError, match="pipelined_pkey"),
        database.pipelined_write() as session,
    ):
        _INSERT.run(session, {"id": 2})
        _INSERT.run(session, {"id": 1})  # taken: fails on the server
        session.connection().execute(_COUNT).scalar_one()
        pytest.fail("the read after a failed statement went on")
    assert _ids(database) == [1]
    assert _pooled(database)[1:] == _CLEAN
    with database.pipelined_write() as session:
        _INSERT.run(session, {"id": 5})
    assert _ids(database) == [1, 5]


def test_an_error_in_the_last_statement_sent_ahead_is_raised_by_the_commit(
    database: Database,
) -> None:
    _store_one(database)
    with (
        pytest.raises(IntegrityError, match="pipelined_pkey"),
        database.pipelined_write() as session,
    ):
        _INSERT.run(session, {"id": 2})
        _INSERT.run(session, {"id": 1})
    assert _ids(database) == [1]
    assert _pooled(database)[1:] == _CLEAN


def test_an_exception_in_the_block_rolls_back_what_was_sent_ahead(database: Database) -> None:
    before = _pooled(database)[0]
    with (
        pytest.raises(RuntimeError, match="changed my mind"),
        database.pipelined_write() as session,
    ):
        _INSERT.run(session, {"id": 7})
        raise RuntimeError("changed my mind")
    assert _ids(database) == []
    # Rolled back, and the connection given back to the pool (not dropped): no error of the
    # database's was in flight.
    assert _pooled(database) == (before, *_CLEAN)


def test_a_statement_without_no_wait_waits_for_its_answer(
    database: Database, waits: list[int]
) -> None:
    with database.pipelined_write() as session:
        result = session.connection().execute(_INSERT_WAITING, {"id": 1})
        assert waits == [1]
        assert result.rowcount == 1  # its answer is there to read


def test_a_savepoint_that_fails_is_rolled_back_to_and_the_write_goes_on(
    database: Database,
) -> None:
    # As when two workers answer the same sender at once (pbem.mail.inbound.replies): the loser's
    # INSERT fails inside a savepoint, and its transaction carries on without it.
    _store_one(database)
    with database.pipelined_write() as session:
        _INSERT.run(session, {"id": 2})
        with pytest.raises(IntegrityError, match="pipelined_pkey"), session.begin_nested():
            session.connection().execute(_INSERT_WAITING, {"id": 1})
        _INSERT.run(session, {"id": 3})
        assert session.connection().execute(_COUNT).scalar_one() == 3
    assert _ids(database) == [1, 2, 3]


def test_nothing_is_seen_by_others_before_the_commit(database: Database, postgres_url: str) -> None:
    # (the driver runs in autocommit mode with a BEGIN of ours: without it, each statement
    # would commit on its own)
    other = Database(postgres_url, pool_size=1)
    try:
        with database.pipelined_write() as session:
            _INSERT.run(session, {"id": 1})
            assert session.connection().execute(_COUNT).scalar_one() == 1
            assert _ids(other) == []
        assert _ids(other) == [1]
    finally:
        other.dispose()


def test_a_failure_with_statements_queued_behind_it_drops_the_connection(
    database: Database,
) -> None:
    # As when a move's events INSERT fails with the games row, the mails and the kept result
    # queued behind it: answers to those may still be on their way, and the connection is
    # not given back to the pool with them.
    _store_one(database)
    before = _pooled(database)[0]
    with (
        pytest.raises(IntegrityError, match="pipelined_pkey"),
        database.pipelined_write() as session,
    ):
        _INSERT.run(session, {"id": 1})  # taken: fails on the server
        for n in (2, 3, 4, 5):
            _INSERT.run(session, {"id": n})
        session.connection().execute(_COUNT).scalar_one()
    assert _ids(database) == [1]
    after = _pooled(database)
    assert after[0] != before, "the connection that failed went back to the pool"
    assert after[1:] == _CLEAN
    with database.pipelined_write() as session:
        _INSERT.run(session, {"id": 6})
    assert _ids(database) == [1, 6]


def test_a_write_that_reads_nothing_still_commits(database: Database) -> None:
    # Nothing waits before the end: the COMMIT must still be sent (psycopg's own commit
    # would go by a transaction status it has not heard of since the BEGIN).
    with database.pipelined_write() as session:
        _INSERT.run(session, {"id": 1})
        _INSERT.run(session, {"id": 2})
    assert _ids(database) == [1, 2]
    assert _pooled(database)[1:] == _CLEAN


def test_an_answer_read_is_there_even_from_a_statement_sent_without_waiting(
    database: Database,
) -> None:
    # SQLAlchemy adds RETURNING itself for a generated key of a one-row INSERT, and reads it
    # at once: its statements always wait. A driver statement sent without waiting gives its
    # answer when it is fetched.
    table = Table("keyed", MetaData(), Column("id", Integer, primary_key=True))
    with database.write() as session:
        session.connection().execute(text("DROP TABLE IF EXISTS keyed"))
        session.connection().execute(text("CREATE TABLE keyed (id serial PRIMARY KEY)"))
    returning = DriverStatement(text("INSERT INTO keyed DEFAULT VALUES RETURNING id"), wait=False)
    with database.pipelined_write() as session:
        result = session.connection().execute(insert(table), {})
        assert result.inserted_primary_key == (1,)
        assert returning.run(session, {}).fetchone() == (2,)
