"""Disputes and the clocks, through the service and its deadline sweep on SQLite and
PostgreSQL with a manual clock (docs/deadlines.md): the disputer's own clock keeps running;
the other seats' clocks stop for at most one decision's time; each seat may have one
dispute open, whoever else has one; and a seat whose dispute was dismissed waits before it
opens the next."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from pbem.app.bootstrap import build_sweeper
from pbem.app.service import Created, GameService
from pbem.clock.sweep import Sweeper
from pbem.core import events as ev
from pbem.core.db import Database
from pbem.core.errors import Conflict
from pbem.core.models import Deadline
from pbem.core.read_models import first_difference
from pbem.core.time_source import ManualClock, format_time
from tests.helpers import database_of
from tests.service.deadline_helpers import clock_of, timed_service
from tests.service.helpers import REGISTRY

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday
SECOND = timedelta(seconds=1)
HOUR = timedelta(hours=1)


@pytest.fixture
def service(database: Database, tmp_path: Path) -> GameService:
    return timed_service(database, tmp_path, START)


@pytest.fixture
def clock(service: GameService) -> ManualClock:
    return clock_of(service)


@pytest.fixture
def sweeper(service: GameService) -> Sweeper:
    return build_sweeper(service)


def _game(service: GameService, time_control: Any, players: int = 2) -> Created:
    """A hoard game every seat has accepted, timed by ``time_control``."""
    seats = [{"name": f"P{i}", "email": f"p{i}@example.org"} for i in range(players)]
    created = service.create_game("hoard", {"rounds": 2}, seats, time_control=time_control)
    for seat in range(players):
        service.accept_invitation(created.id, seat, channel="api")
    return created


def _deadline(service: GameService, gid: str, seat: int) -> Deadline:
    with database_of(service).read() as session:
        row = session.get(Deadline, (gid, seat))
        assert row is not None
        session.expunge(row)
        return row


def _deadline_moves(service: GameService, gid: str) -> list[tuple[int, str]]:
    return [
        (p.seat, p.canonical)
        for e in service.raw_events(gid)
        if isinstance(p := e.payload, ev.ActionApplied) and p.channel == "deadline"
    ]


def _swept(sweeper: Sweeper, gid: str) -> list[tuple[int, str]]:
    return [(m.seat, m.played) for m in sweeper.sweep().moves if m.game_id == gid]


def _owes_after_first_move(service: GameService, gid: str) -> tuple[int, int]:
    """Seat 0 moves: the move's version and the seat that owes the next decision."""
    service.submit(gid, 0, "keep", expected_version=service.load(gid).version, channel="api")
    loaded = service.load(gid)
    [owing] = loaded.to_act
    return loaded.version, owing


def test_a_dispute_never_stops_the_disputers_own_clock(
    service: GameService, sweeper: Sweeper, clock: ManualClock
) -> None:
    """The campaign's stall: with 6 seconds a move, seat 1 disputes seat 0's move and the
    administrator never answers; seat 1's deadline move still comes on time."""
    gid = _game(service, "6s").id
    disputed, owing = _owes_after_first_move(service, gid)
    assert owing == 1
    clock.advance(2 * SECOND)
    service.open_dispute(gid, 1, disputed, None, "P0 never sent keep", channel="api")
    row = _deadline(service, gid, 1)
    assert (row.status, row.due_at) == ("running", format_time(START + 6 * SECOND))
    clock.advance(4 * SECOND - timedelta(microseconds=1))
    assert _swept(sweeper, gid) == []
    clock.advance(timedelta(microseconds=1))
    assert _swept(sweeper, gid) == [(1, "keep")]
    assert _deadline_moves(service, gid) == [(1, "keep")]
    assert service.parts.disputes.open_one(gid) is not None  # still waiting for the administrator
    assert first_difference(database_of(service), gid, REGISTRY) is None


def test_the_other_seats_clocks_stop_for_one_decisions_time_at_most(
    service: GameService, sweeper: Sweeper, clock: ManualClock
) -> None:
    """Seat 0 disputes its own move while seat 1 owes: seat 1's clock stops while the
    dispute is open, but not beyond one decision's time, answered or not."""
    gid = _game(service, "10h").id
    disputed, owing = _owes_after_first_move(service, gid)
    service.open_dispute(gid, 0, disputed, None, "I meant draw", channel="api")
    row = _deadline(service, gid, owing)
    assert (row.status, row.due_at) == ("running", format_time(START + 20 * HOUR))
    clock.advance(20 * HOUR - SECOND)
    assert _swept(sweeper, gid) == []
    clock.advance(SECOND)
    assert _swept(sweeper, gid) == [(owing, "keep")]
    assert first_difference(database_of(service), gid, REGISTRY) is None


def test_a_dispute_resolved_early_gives_back_only_the_time_it_was_open(
    service: GameService, clock: ManualClock
) -> None:
    created = _game(service, "10h")
    gid = created.id
    disputed, owing = _owes_after_first_move(service, gid)
    opened = service.open_dispute(gid, 0, disputed, None, "I meant draw", channel="api")
    clock.advance(3 * HOUR)
    service.resolve_dispute(gid, created.admin_token, opened.dispute, uphold=False, reason="no")
    assert _deadline(service, gid, owing).due_at == format_time(START + 13 * HOUR)
    assert first_difference(database_of(service), gid, REGISTRY) is None


def test_each_seat_may_open_its_own_dispute_but_one_at_a_time(
    service: GameService, clock: ManualClock
) -> None:
    created = _game(service, "10h", players=3)
    gid = created.id
    disputed, _ = _owes_after_first_move(service, gid)
    first = service.open_dispute(gid, 1, disputed, None, "not what P0 sent", channel="api")
    with pytest.raises(Conflict, match=f"Your dispute {first.dispute} is still open"):
        service.open_dispute(gid, 1, disputed, None, "and again", channel="api")
    # Another seat is not held up by it.
    second = service.open_dispute(gid, 2, disputed, None, "I saw it too", channel="api")
    assert second.status == "open"
    assert {d["dispute"] for d in service.disputes_of(gid) if d["status"] == "open"} == {
        first.dispute,
        second.dispute,
    }
    # An answer that names none ('agree' alone) goes to the only one the seat may answer,
    # and is asked which when there are two.
    assert service.parts.disputes.open_one(gid, 1) == second.dispute
    with pytest.raises(Conflict, match=f"Disputes {first.dispute}, {second.dispute} are open"):
        service.parts.disputes.open_one(gid, 0)
    assert first_difference(database_of(service), gid, REGISTRY) is None


def test_a_seat_whose_dispute_was_dismissed_waits_one_decisions_time(
    service: GameService, clock: ManualClock
) -> None:
    created = _game(service, "10h")
    gid = created.id
    disputed, _ = _owes_after_first_move(service, gid)
    opened = service.open_dispute(gid, 1, disputed, None, "not what P0 sent", channel="api")
    clock.advance(HOUR)
    service.resolve_dispute(gid, created.admin_token, opened.dispute, uphold=False, reason="it was")
    clock.advance(10 * HOUR - SECOND)
    with pytest.raises(Conflict, match="was dismissed") as refused:
        service.open_dispute(gid, 1, disputed, None, "I still say so", channel="api")
    assert "Mon 02 Mar 2026 20:00 UTC" in str(refused.value)
    version = service.load(gid).version
    clock.advance(SECOND)
    again = service.open_dispute(gid, 1, disputed, None, "I still say so", channel="api")
    assert again.version == version + 1
