"""Races between real processes, on SQLite and on PostgreSQL.

20 processes submit at the same expected version at the same moment: exactly one is
accepted, the others get 409, and the versions have no gap and no duplicate. With one
idempotency key, all of them get the one original result and one event is stored.
"""

from __future__ import annotations

import multiprocessing
import tempfile
from pathlib import Path
from typing import Any

import pytest

from pbem.app.bootstrap import build_service
from pbem.app.service import GameService
from pbem.core.db import Database
from pbem.core.errors import ServiceError
from tests.service.helpers import REGISTRY
from tests.settings import make_settings

PROCESSES = 20


def _racer(
    url: str,
    gid: str,
    seat: int,
    text: str,
    version: int,
    key: str | None,
    barrier: Any,
    results: Any,
) -> None:
    db = Database(url)
    with tempfile.TemporaryDirectory() as tmp:
        service = build_service(
            make_settings(url, Path(tmp)), db=db, registry=REGISTRY, listeners=[]
        )
        service.load(gid)  # connect and warm up before the start line
        barrier.wait(timeout=60)
        try:
            result = service.submit(
                gid, seat, text, expected_version=version, channel="api", idempotency_key=key
            )
            results.put(("accepted", result.version, result.replayed))
        except ServiceError as e:
            results.put((e.status, e.message, None))
        except Exception as e:  # reported to the test, which fails on it
            results.put(("crash", repr(e), None))
        finally:
            db.dispose()


def _race(
    url: str, gid: str, seat: int, texts: list[str], version: int, key: str | None
) -> list[tuple]:
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(len(texts))
    results = ctx.Queue()
    procs = [
        ctx.Process(target=_racer, args=(url, gid, seat, t, version, key, barrier, results))
        for t in texts
    ]
    for p in procs:
        p.start()
    out = [results.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=30)
        assert p.exitcode == 0
    return out


def _versions(service: GameService, gid: str) -> list[int]:
    return [e.version for e in service.raw_events(gid)]


@pytest.fixture
def lancelot(service: GameService) -> str:
    return service.create_game("lancelot", {}, [{"name": "A"}, {"name": "B"}]).id


def test_twenty_processes_at_one_version_exactly_one_is_accepted(
    service: GameService, database_url: str, lancelot: str
) -> None:
    for _ in range(2):  # two rounds: seat 0, then seat 1
        loaded = service.load(lancelot)
        (seat,) = loaded.to_act
        moves = loaded.legal(seat)[:PROCESSES]
        assert len(moves) == PROCESSES
        outcomes = _race(database_url, lancelot, seat, moves, loaded.version, None)
        accepted = [o for o in outcomes if o[0] == "accepted"]
        refused = [o for o in outcomes if o[0] == 409]
        assert len(accepted) == 1, outcomes
        assert len(refused) == PROCESSES - 1, outcomes
        assert accepted[0][1] == loaded.version + 1
        versions = _versions(service, lancelot)
        assert versions == list(range(1, loaded.version + 2))


def test_twenty_retries_with_one_key_store_one_event(
    service: GameService, database_url: str, lancelot: str
) -> None:
    move = service.load(lancelot).legal(0)[0]
    outcomes = _race(database_url, lancelot, 0, [move] * PROCESSES, 2, "retry-key-1")
    assert all(o[0] == "accepted" and o[1] == 3 for o in outcomes), outcomes
    assert sorted(o[2] for o in outcomes) == [False] + [True] * (PROCESSES - 1)
    assert _versions(service, lancelot) == [1, 2, 3]
