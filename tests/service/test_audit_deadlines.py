"""The audit's deadline fields (``pbem.audit.evidence``: the report, the API, the page and ``pbem
audit``) say the real deadline state, on SQLite and PostgreSQL with a manual clock: the
game's time control and each seat's deadline now, and for each step the deadline of the
decision it ended, whether it was played in time, and when the service played it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pbem.app.bootstrap import build_sweeper
from pbem.app.service import GameService
from pbem.audit.evidence import text_report
from pbem.core.db import Database
from pbem.core.time_source import ManualClock
from tests.helpers import audit
from tests.service.deadline_helpers import clock_of, timed_service

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday
HOUR = timedelta(hours=1)


@pytest.fixture
def service(database: Database, tmp_path: Path) -> GameService:
    return timed_service(database, tmp_path, START)


@pytest.fixture
def clock(service: GameService) -> ManualClock:
    return clock_of(service)


def _timed_game(service: GameService, time_control: str = "10h") -> str:
    seats = [{"name": f"P{i}", "email": f"p{i}@example.org"} for i in range(2)]
    gid = service.create_game("hoard", {"rounds": 2}, seats, time_control=time_control).id
    for seat in range(2):
        service.accept_invitation(gid, seat, channel="api")
    return gid


def test_a_timed_games_audit_says_its_deadlines(service: GameService, clock: ManualClock) -> None:
    gid = _timed_game(service)
    clock.advance(3 * HOUR)
    moved = service.submit(
        gid, 0, "keep", expected_version=service.load(gid).version, channel="api"
    )
    assert audit(service, gid, viewer=1, admin=False)["deadline"] == (
        "10 hours per move; P0: not to move; P1: Mon 02 Mar 2026 22:00 UTC (in 10 hours)"
    )
    # Seat 1 lets its deadline pass: the sweep plays its default move.
    clock.advance(10 * HOUR)
    swept = [m for m in build_sweeper(service).sweep().moves if m.game_id == gid]
    assert [(m.seat, m.played) for m in swept] == [(1, "keep")]
    deadline_move = service.load(gid).version

    report = audit(service, gid, viewer=None, admin=True)
    assert report["deadline"] != "no time control"
    assert report["deadline"].startswith("10 hours per move")
    # Both seats owe the next round's decision since the deadline move: ten hours later.
    assert report["deadline"] == (
        "10 hours per move; P0: Tue 03 Mar 2026 08:00 UTC (in 10 hours); "
        "P1: Tue 03 Mar 2026 08:00 UTC (in 10 hours)"
    )

    [own_step] = audit(service, gid, viewer=None, admin=True, version=moved.version)["steps"]
    assert own_step["deadline"] == (
        "due Mon 02 Mar 2026 19:00 UTC; played in time, at Mon 02 Mar 2026 12:00 UTC"
    )
    [late] = audit(service, gid, viewer=0, admin=False, version=deadline_move)["steps"]
    assert late["deadline"] == (
        "due Mon 02 Mar 2026 22:00 UTC; missed: the service played the default move"
    )
    printed = text_report(audit(service, gid, viewer=None, admin=True, version=moved.version))
    assert "deadlines: 10 hours per move; P0: Tue 03 Mar 2026 08:00 UTC" in printed
    assert "deadline: due Mon 02 Mar 2026 19:00 UTC; played in time" in printed


def test_a_step_played_after_its_deadline_in_the_grace_time(
    service: GameService, clock: ManualClock
) -> None:
    seats = [{"name": f"P{i}", "email": f"p{i}@example.org"} for i in range(2)]
    tc = {"kind": "fixed", "per_decision": "2h", "grace": "1h"}
    gid = service.create_game("hoard", {"rounds": 2}, seats, time_control=tc).id
    for seat in range(2):
        service.accept_invitation(gid, seat, channel="api")
    clock.advance(2 * HOUR + 30 * timedelta(minutes=1))
    moved = service.submit(
        gid, 0, "keep", expected_version=service.load(gid).version, channel="api"
    )
    [step] = audit(service, gid, viewer=None, admin=True, version=moved.version)["steps"]
    assert step["deadline"] == (
        "due Mon 02 Mar 2026 11:00 UTC; played after it, in the grace time, "
        "at Mon 02 Mar 2026 11:30 UTC"
    )


def test_an_untimed_game_says_so(service: GameService) -> None:
    seats = [{"name": f"P{i}", "email": f"p{i}@example.org"} for i in range(2)]
    gid = service.create_game("hoard", {"rounds": 2}, seats).id
    moved = service.submit(
        gid, 0, "keep", expected_version=service.load(gid).version, channel="api"
    )
    report = audit(service, gid, viewer=None, admin=True, version=moved.version)
    assert report["deadline"] == "no time control"
    assert report["steps"][0]["deadline"] == "no time control"
