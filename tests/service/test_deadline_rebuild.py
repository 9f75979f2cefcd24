"""The ``deadlines`` and ``game_clocks`` rows are projections of the log: after random games
on random timelines (moves, time passing or not, pauses, extensions, vacations, standing
orders, missed deadlines, time controls changed, undo), the stored rows equal the ones a
rebuild from the log gives, one append at a time. On SQLite and PostgreSQL. And a row
changed behind the log's back is named."""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from pbem.app.service import GameService
from pbem.clock import events as ce
from pbem.clock.time_control import parse_time_control
from pbem.core import events as ev
from pbem.core.db import Database
from pbem.core.errors import ServiceError
from pbem.core.read_models import first_difference
from pbem.core.time_source import format_time
from pbem.play.results import Created
from tests.service.deadline_helpers import (
    PLAYERS,
    accept_all,
    append,
    away,
    back,
    extended,
    paused,
    resumed,
    standing,
    timed_service,
)
from tests.service.helpers import REGISTRY

TIME_CONTROLS = [
    None,
    "standard",
    "relaxed",
    "90m",
    {"kind": "clock", "initial": "5h", "increment": "1h", "cap": "6h", "grace": "30m"},
    {"preset": "fast", "weekend_pause": True, "time_zone": "Europe/Paris", "vacation": "3h"},
    {"kind": "clock", "initial": "2d", "weekend_pause": True, "time_zone": "America/New_York"},
]
#: around the daylight-saving changes of 2026, and an ordinary week
STARTS = [
    datetime(2026, 3, 27, 18, 0, tzinfo=UTC),
    datetime(2026, 10, 24, 1, 30, tzinfo=UTC),
    datetime(2026, 6, 10, 9, 0, tzinfo=UTC),
]
#: how far the clock moves between steps, besides the microsecond of each step
WAITS = st.sampled_from([0, 0, 1, 60, 45 * 60, 3 * 3600, 20 * 3600, 2 * 86400])
STEPS = ["wait", "move", "move", "move", "pause", "resume", "extend", "away", "back",
         "standing", "missed", "time control", "undo", "wait", "dispute", "resolve",
         "resign", "accept"]  # fmt: skip


def _step(service: GameService, created: Created, data: st.DataObject) -> None:
    gid = created.id
    loaded = service.load(gid)
    seats = [s.seat for s in loaded.seats]
    seat = data.draw(st.sampled_from(seats))
    step = data.draw(st.sampled_from(STEPS))
    event(step)
    clock = service.clock
    # A rebuild tells appends apart by their recorded time; two of one microsecond are read
    # as one, which no real clock gives one game (``pbem.core.read_models.appends``).
    clock.advance(timedelta(microseconds=1))  # type: ignore[attr-defined]
    now = clock.now()
    if step == "wait":
        clock.advance(timedelta(seconds=data.draw(WAITS)))  # type: ignore[attr-defined]
    elif step == "move":
        if not loaded.to_act or loaded.finished:
            return
        seat = data.draw(st.sampled_from(sorted(loaded.to_act)))
        actions = loaded.rules.legal_actions(loaded.state, seat)
        action = data.draw(st.sampled_from(actions)) if actions else None
        if action is None:
            action = loaded.rules.auto_action(loaded.state, seat)
        channel = data.draw(st.sampled_from(["api", "email", "deadline"]))
        service.submit(
            gid,
            seat,
            loaded.rules.format_action(loaded.state, action),
            expected_version=loaded.version,
            channel=channel,
        )
    elif step == "pause":
        append(service, gid, paused(data.draw(st.sampled_from([None, seat]))))
    elif step == "resume":
        append(service, gid, resumed())
    elif step == "extend":
        append(service, gid, extended(seat, data.draw(st.sampled_from([60, 3600, 86400]))))
    elif step == "away":
        hours = data.draw(st.sampled_from([1, 5, 30, 400]))
        append(service, gid, away(seat, now + timedelta(hours=hours)))
    elif step == "back":
        append(service, gid, back(seat))
    elif step == "accept":
        service.accept_invitation(gid, seat, channel="web")
    elif step == "standing":
        append(service, gid, standing(seat, data.draw(st.sampled_from([None, "pass", "x y"]))))
    elif step == "missed":
        if seat in loaded.to_act:
            missed = ce.DeadlineMissed(
                seat=seat, due_at=format_time(now), move=False, reason="waiting"
            )
            append(service, gid, missed)
    elif step == "time control":
        chosen = data.draw(st.sampled_from(TIME_CONTROLS[1:]))
        tc = parse_time_control(chosen).to_json()
        append(service, gid, ce.TimeControlSet(time_control=tc, by="administrator", channel="api"))
    elif step == "dispute":
        moves = [e.version for e in service.raw_events(gid) if e.type == ev.ACTION_APPLIED]
        if moves:
            with contextlib.suppress(ServiceError):  # not in effect, or one is open
                version = data.draw(st.sampled_from(moves))
                service.open_dispute(gid, seat, version, None, "not mine", channel="api")
                event("a dispute opened")
    elif step == "resolve":
        waiting = [d["dispute"] for d in service.disputes_of(gid) if d["status"] == "open"]
        if waiting:
            dispute = data.draw(st.sampled_from(waiting))
            uphold = data.draw(st.booleans())
            with contextlib.suppress(ServiceError):  # e.g. upholding across a reveal
                service.resolve_dispute(
                    gid, created.admin_token, dispute, uphold=uphold, reason="decided"
                )
                event("a dispute resolved")
    elif step == "resign":
        if len(loaded.seats) - len([s for s in loaded.seats if s.resigned]) > 2:
            with contextlib.suppress(ServiceError):
                service.resign(gid, seat, channel="api")
    elif step == "undo":
        with contextlib.suppress(ServiceError):  # nothing of this seat's to take back
            event(f"undo: {service.undo(gid, seat, channel='api').status}")


def _random_games(database: Database, tmp: Path, data: st.DataObject) -> None:
    game, players = data.draw(st.sampled_from([("lancelot", 2), ("lancelot", 3), ("lancaster", 3)]))
    service = timed_service(database, tmp, data.draw(st.sampled_from(STARTS)))
    created = service.create_game(
        game, {}, PLAYERS[:players], time_control=data.draw(st.sampled_from(TIME_CONTROLS))
    )
    if data.draw(st.booleans()):  # else the clocks start when the seats accept, in _step
        accept_all(service, created.id)
    for _ in range(data.draw(st.integers(min_value=1, max_value=14))):
        _step(service, created, data)
    assert first_difference(database, created.id, REGISTRY) is None


@settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_stored_deadlines_are_the_ones_the_log_gives(
    database: Database, tmp_path: Path, data: st.DataObject
) -> None:
    _random_games(database, tmp_path, data)


@pytest.mark.parametrize("change", ["delete", "edit"])
def test_a_deadline_row_changed_behind_the_logs_back_is_named(
    database: Database, tmp_path: Path, change: str
) -> None:
    service = timed_service(database, tmp_path)
    gid = accept_all(
        service, service.create_game("lancelot", {}, PLAYERS[:2], time_control="standard").id
    )
    [seat] = service.load(gid).to_act
    assert first_difference(database, gid, REGISTRY) is None
    with database.write() as session:
        if change == "delete":
            session.execute(
                text("DELETE FROM deadlines WHERE game_id = :g AND seat = :s"),
                {"g": gid, "s": seat},
            )
        else:
            session.execute(
                text("UPDATE deadlines SET due_at = :d WHERE game_id = :g AND seat = :s"),
                {"d": "2030-01-01T00:00:00.000000Z", "g": gid, "s": seat},
            )
    found = first_difference(database, gid, REGISTRY)
    if change == "delete":
        assert found == f"deadlines ({seat}): the row is missing (the log has it)"
    else:
        assert found is not None
        assert found.startswith(f"deadlines ({seat}), column due_at: stored '2030-01-01")
    # the check changed nothing
    assert first_difference(database, gid, REGISTRY) == found
