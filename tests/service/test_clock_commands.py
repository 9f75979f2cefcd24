"""The clock's commands on the service (docs/deadlines.md): the administrator's extension,
pause, resume and time control; a seat's standing order; a player's vacation across its
games; requests granted by every other seat's consent. Each moves the seat's ``Deadline``
row as the fold says, and each refusal changes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pbem.app.bootstrap import build_service, build_sweeper
from pbem.app.service import GameService
from pbem.core.db import Database
from pbem.core.errors import AgainstTheRules, BadRequest, Conflict, Forbidden, Unreadable
from pbem.core.models import Deadline
from pbem.core.read_models import first_difference
from pbem.core.replay import verify
from pbem.core.time_source import ManualClock, format_time
from pbem.play.results import Created
from tests.helpers import database_of
from tests.service.deadline_helpers import accept_all
from tests.service.helpers import REGISTRY
from tests.settings import make_settings

START = datetime(2025, 1, 6, 10, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def service(database: Database, tmp_path: Path, clock: ManualClock) -> Iterator[GameService]:
    yield build_service(
        make_settings(database.url, tmp_path),
        db=database,
        registry=REGISTRY,
        listeners=[],
        clock=clock,
    )


_counter = iter(range(10_000))


def new_game(
    service: GameService, time_control: object = "48h", emails: tuple[str, ...] = ()
) -> Created:
    n = next(_counter)
    players = [
        {"name": f"P{i}", "email": emails[i] if i < len(emails) else f"c{n}-{i}@example.org"}
        for i in range(2)
    ]
    created = service.create_game("hoard", {"rounds": 3}, players, time_control=time_control)
    accept_all(service, created.id)
    return created


def row(service: GameService, game_id: str, seat: int) -> Deadline:
    with database_of(service).read() as session:
        found = session.get(Deadline, (game_id, seat))
        assert found is not None
        session.expunge(found)
        return found


def version(service: GameService, game_id: str) -> int:
    return service.load(game_id).version


def at(when: datetime) -> str:
    return format_time(when)


def test_the_admin_extends_the_deadline_of_the_seat_to_act(service: GameService) -> None:
    g = new_game(service)
    assert row(service, g.id, 0).due_at == at(START + 48 * HOUR)
    result = service.extend(g.id, g.admin_token, 0, 24 * 3600, channel="cli")
    assert result.version == version(service, g.id)
    assert row(service, g.id, 0).due_at == at(START + 72 * HOUR)
    event = service.raw_events(g.id)[-1]
    assert event.type == "DeadlineExtended"
    assert (event.payload.by, event.payload.channel) == ("administrator", "cli")


def test_extending_a_seat_that_owes_nothing_or_without_the_token_changes_nothing(
    service: GameService,
) -> None:
    g = new_game(service)
    other = new_game(service)
    before = version(service, g.id)
    with pytest.raises(Conflict, match="owes no decision"):
        service.extend(g.id, g.admin_token, 1, 3600, channel="cli")
    for token in (None, g.seats[0].token, other.admin_token):
        with pytest.raises(Forbidden):
            service.extend(g.id, token, 0, 3600, channel="api")
    with pytest.raises(Forbidden):
        service.extend(g.id, g.admin_token, 7, 3600, channel="cli")
    assert version(service, g.id) == before
    assert row(service, g.id, 0).due_at == at(START + 48 * HOUR)


def test_an_untimed_game_has_nothing_to_extend_or_pause(service: GameService) -> None:
    g = new_game(service, time_control=None)
    with pytest.raises(Conflict, match="no time control"):
        service.pause(g.id, g.admin_token, channel="cli")
    with pytest.raises(Conflict, match="no time control"):
        service.extend(g.id, g.admin_token, 0, 60, channel="cli")


def test_pause_stops_the_clock_and_resume_restarts_it(
    service: GameService, clock: ManualClock
) -> None:
    g = new_game(service)
    clock.advance(10 * HOUR)
    service.pause(g.id, g.admin_token, channel="api")
    assert row(service, g.id, 0).status == "paused"
    assert row(service, g.id, 0).due_at is None
    before = version(service, g.id)
    with pytest.raises(Conflict, match="already paused"):
        service.pause(g.id, g.admin_token, channel="api")
    assert version(service, g.id) == before
    clock.advance(5 * HOUR)
    service.resume(g.id, g.admin_token, channel="api")
    # 10 hours used before the pause; 38 left from the resumption.
    assert row(service, g.id, 0).due_at == at(START + 15 * HOUR + 38 * HOUR)
    with pytest.raises(Conflict, match="not paused"):
        service.resume(g.id, g.admin_token, channel="api")


def test_a_new_time_control_applies_from_the_next_decision(service: GameService) -> None:
    g = new_game(service)
    service.set_time_control(g.id, g.admin_token, "12h", channel="cli")
    assert row(service, g.id, 0).due_at == at(START + 48 * HOUR)  # the current decision
    service.submit(g.id, 0, "keep", expected_version=version(service, g.id), channel="api")
    assert row(service, g.id, 1).due_at == at(START + 12 * HOUR)
    with pytest.raises(BadRequest):
        service.set_time_control(g.id, g.admin_token, "soon", channel="cli")
    with pytest.raises(Conflict, match="already"):
        service.set_time_control(g.id, g.admin_token, "12h", channel="cli")
    event = service.raw_events(g.id)[-2]
    assert event.type == "TimeControlSet" and event.payload.by == "administrator"


def test_a_standing_order_is_checked_when_the_seat_owes_the_decision(
    service: GameService,
) -> None:
    g = new_game(service)
    before = version(service, g.id)
    with pytest.raises(Unreadable):
        service.set_standing_order(g.id, 0, "fly away", channel="email")
    with pytest.raises(AgainstTheRules):
        service.set_standing_order(g.id, 0, "pass", channel="email")  # not in a draw
    with pytest.raises(Conflict, match="no standing order"):
        service.set_standing_order(g.id, 0, None, channel="email")
    assert version(service, g.id) == before
    done = service.set_standing_order(g.id, 0, "draw", channel="email")
    assert done.checked and row(service, g.id, 0).standing_order == "draw"
    # Seat 1 owes nothing now: its order is kept, to be checked at its deadline.
    later = service.set_standing_order(g.id, 1, "stake ruby", channel="api")
    assert not later.checked and row(service, g.id, 1).standing_order == "stake ruby"
    service.set_standing_order(g.id, 1, None, channel="api")
    assert row(service, g.id, 1).standing_order is None


def test_vacation_in_every_game_of_the_address_until_the_allowance_runs_out(
    service: GameService, clock: ManualClock
) -> None:
    tc = {"kind": "fixed", "per_decision": "48h", "vacation": "3d"}
    a = new_game(service, tc, emails=("ann@example.org",))
    b = new_game(service, tc, emails=("other@example.org", "Ann@example.org"))
    results = service.away("ann@example.org", START + 48 * HOUR, channel="email")
    assert [(r.game_id, r.seat) for r in results] == sorted([(a.id, 0), (b.id, 1)])
    assert all(r.allowance_left == 24 * 3600 for r in results)
    # Seat 0 of game a owes a decision: its deadline moves by the two days away.
    assert row(service, a.id, 0).due_at == at(START + 96 * HOUR)
    assert row(service, a.id, 0).away_until == at(START + 48 * HOUR)
    clock.advance(HOUR)
    back = service.back("ann@example.org", channel="email")
    assert {r.game_id for r in back if r.version is not None} == {a.id, b.id}
    assert row(service, a.id, 0).due_at == at(START + 49 * HOUR)
    # Away again for longer than what is left (3 days - 1 hour): the allowance ends it.
    again = service.away("ann@example.org", START + 30 * 24 * HOUR, channel="email")
    assert all(r.allowance_left == 0 for r in again)
    assert all(r.until == at(START + 72 * HOUR) for r in again)
    clock.advance(HOUR)
    before = (version(service, a.id), version(service, b.id))
    with pytest.raises(Conflict, match="no vacation allowance left"):
        service.away("ann@example.org", START + 90 * HOUR, channel="email")
    assert (version(service, a.id), version(service, b.id)) == before
    with pytest.raises(Conflict, match="no seat"):
        service.away("nobody@example.org", START + 48 * HOUR, channel="email")


def test_an_extension_by_consent(service: GameService) -> None:
    g = new_game(service)
    asked = service.request_clock_change(g.id, 0, "extend", None, channel="email")
    assert asked.status == "requested"
    assert row(service, g.id, 0).due_at == at(START + 48 * HOUR)
    with pytest.raises(Conflict, match="waiting for answers"):
        service.request_clock_change(g.id, 1, "pause", channel="email")
    with pytest.raises(Conflict, match="your own request"):
        service.answer_clock_request(g.id, 0, "extend", True, channel="email")
    with pytest.raises(Conflict, match="no request to pause"):
        service.answer_clock_request(g.id, 1, "pause", True, channel="email")
    granted = service.answer_clock_request(g.id, 1, "extend", True, channel="email")
    assert granted.status == "granted"
    assert row(service, g.id, 0).due_at == at(START + 96 * HOUR)
    assert service.raw_events(g.id)[-1].payload.by == "consent"
    with pytest.raises(Conflict, match="no request"):
        service.answer_clock_request(g.id, 1, None, True, channel="email")


def test_a_pause_refused_by_one_seat_changes_no_deadline(service: GameService) -> None:
    g = new_game(service)
    service.request_clock_change(g.id, 1, "pause", channel="api")
    refused = service.answer_clock_request(g.id, 0, "pause", False, channel="api")
    assert refused.status == "refused"
    assert row(service, g.id, 0).status == "running"
    service.request_clock_change(g.id, 1, "pause", channel="api")
    service.answer_clock_request(g.id, 0, None, True, channel="api")
    assert row(service, g.id, 0).status == "paused"
    with pytest.raises(Conflict, match="already paused"):
        service.request_clock_change(g.id, 0, "pause", channel="api")


def test_after_every_clock_command_the_log_gives_the_stored_read_models(
    service: GameService, clock: ManualClock
) -> None:
    g = new_game(service, emails=("rebuild@example.org",))
    service.set_standing_order(g.id, 1, "pass", channel="api")
    clock.advance(HOUR)
    service.extend(g.id, g.admin_token, 0, 7200, channel="cli")
    service.request_clock_change(g.id, 0, "pause", channel="email")
    clock.advance(HOUR)
    service.answer_clock_request(g.id, 1, "pause", True, channel="email")
    clock.advance(HOUR)
    service.resume(g.id, g.admin_token, channel="api")
    service.away("rebuild@example.org", START + 30 * HOUR, channel="email")
    clock.advance(HOUR)
    service.back("rebuild@example.org", channel="email")
    service.set_time_control(g.id, g.admin_token, "fast", channel="cli")
    service.submit(g.id, 0, "keep", expected_version=version(service, g.id), channel="api")
    assert first_difference(database_of(service), g.id, REGISTRY) is None
    with database_of(service).read() as session:
        report = verify(session, g.id, REGISTRY)
    assert report.ok, report


def test_the_admin_reopens_a_missed_deadline_the_game_waits_on(
    service: GameService, clock: ManualClock
) -> None:
    g = new_game(service, {"kind": "fixed", "per_decision": "1h", "on_deadline": "wait"})
    clock.advance(2 * HOUR)
    [act] = build_sweeper(service).sweep().moves
    assert (act.seat, act.move) == (0, False)
    assert row(service, g.id, 0).status == "late"
    clock.advance(5 * HOUR)  # the game waited; the administrator gives the seat 3 hours more
    result = service.extend(g.id, g.admin_token, 0, 3 * 3600, channel="cli")
    assert "reopened" in result.done
    late = row(service, g.id, 0)
    assert (late.status, late.due_at) == ("running", at(clock.now() + timedelta(hours=3)))
    assert build_sweeper(service).sweep().moves == []
    clock.advance(3 * HOUR)
    [again] = build_sweeper(service).sweep().moves
    assert (again.seat, again.move) == (0, False)
    assert first_difference(database_of(service), g.id, REGISTRY) is None
