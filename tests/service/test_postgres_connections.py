"""PostgreSQL: a pooled connection whose server side went away while it sat idle is replaced
before use (the transaction never sees it), and a connection given back moments ago is
handed out again without a ping (a reply by mail is two transactions a few milliseconds
apart; a ping each was a round trip each)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from pbem.core import db as db_module
from pbem.core.db import Database

pytestmark = pytest.mark.postgres


@pytest.fixture
def database(postgres_url: str) -> Iterator[Database]:
    db = Database(postgres_url, pool_size=1)
    yield db
    db.dispose()


def _backend_pid(db: Database) -> int:
    with db.read() as session:
        return int(session.connection().execute(text("SELECT pg_backend_pid()")).scalar_one())


def _pings(db: Database, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    pings: list[int] = []
    ping = db.engine.dialect.do_ping

    def counted(dbapi_connection: Any) -> bool:
        pings.append(1)
        return ping(dbapi_connection)

    monkeypatch.setattr(db.engine.dialect, "do_ping", counted)
    return pings


def test_an_idle_connection_killed_by_the_server_is_replaced_before_use(
    database: Database, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _backend_pid(database)
    libpq_url = make_url(postgres_url).set(drivername="postgresql").render_as_string(False)
    with psycopg.connect(libpq_url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (before,))
    # Idle for longer than the threshold (as after a quiet night): it is pinged, the ping
    # fails, and the pool hands out a new connection.
    monkeypatch.setattr(db_module, "PING_AFTER_IDLE_SECONDS", 0.0)
    pings = _pings(database, monkeypatch)
    with database.write() as session:
        assert session.connection().execute(text("SELECT 1")).scalar_one() == 1
    assert _backend_pid(database) != before
    assert pings, "the idle connection was handed out without a ping"


def test_a_connection_given_back_moments_ago_is_not_pinged(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(db_module, "PING_AFTER_IDLE_SECONDS", 60.0)
    first = _backend_pid(database)
    pings = _pings(database, monkeypatch)
    for _ in range(3):
        with database.write() as session:
            session.connection().execute(text("SELECT 1"))
    assert pings == []
    assert _backend_pid(database) == first  # the same connection each time
