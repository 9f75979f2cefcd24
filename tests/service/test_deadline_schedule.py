"""Each seat's deadline as the ``deadlines`` read model stores it, through a real service on
SQLite with a stopped clock: fixed time, a clock's bank, weekends across daylight-saving
changes, pauses, disputes, vacations, extensions, grace, reminders, simultaneous decisions,
a time control changed mid-game and standing orders. Every test ends by checking that the
stored rows are the ones the log gives (``first_difference``)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from pbem.app.service import GameService
from pbem.clock import events as ce
from pbem.clock.schedule import fold
from pbem.clock.time_control import DAY, HOUR, TimeControl, parse_time_control
from pbem.core import events as ev
from pbem.core.db import Database
from pbem.core.migrate import upgrade
from pbem.core.read_models import first_difference
from tests.helpers import database_of
from tests.service.deadline_helpers import (
    MONDAY,
    PLAYERS,
    accept_all,
    append,
    at,
    away,
    back,
    extended,
    paused,
    play,
    resumed,
    rows,
    standing,
    timed_service,
    wait,
)
from tests.service.helpers import REGISTRY


@pytest.fixture(scope="module")
def database_url(sqlite_url: str) -> str:
    """These suites are about time, not storage: SQLite only (the property test covers
    PostgreSQL)."""
    db = Database(sqlite_url)
    try:
        upgrade(db)
    finally:
        db.dispose()
    return sqlite_url


@pytest.fixture
def service(database: Database, tmp_path: Path) -> Iterator[GameService]:
    yield timed_service(database, tmp_path)


def _game(service: GameService, time_control: Any, game: str = "lancelot", n: int = 2) -> str:
    return accept_all(
        service, service.create_game(game, {}, PLAYERS[:n], time_control=time_control).id
    )


def _owing(service: GameService, gid: str) -> int:
    [seat] = service.load(gid).to_act
    return seat


def _matches_log(service: GameService, gid: str) -> None:
    assert first_difference(database_of(service), gid, REGISTRY) is None


def test_an_untimed_game_has_no_deadlines(service: GameService) -> None:
    gid = _game(service, None)
    play(service, gid)
    assert rows(service, gid) == {}
    _matches_log(service, gid)


def test_fixed_time_per_decision(service: GameService) -> None:
    gid = _game(service, "48h")
    first = _owing(service, gid)
    row = rows(service, gid)[first]
    assert (row.status, row.owes_since, row.due_at, row.act_at) == (
        "running", at(MONDAY), at(MONDAY + 2 * timedelta(days=1)), at(MONDAY + timedelta(days=2)),
    )  # fmt: skip
    assert row.bank is None
    now = wait(service, hours=5)
    play(service, gid, first)
    second = _owing(service, gid)
    assert second != first
    after = rows(service, gid)
    assert (after[first].status, after[first].due_at, after[first].act_at) == ("idle", None, None)
    assert after[first].next_reminder_at is None and after[first].reminders == "[]"
    assert (after[second].owes_since, after[second].due_at) == (
        at(now),
        at(now + timedelta(hours=48)),
    )
    _matches_log(service, gid)


def test_a_clock_banks_the_time_left_plus_its_increment_up_to_its_cap(
    service: GameService,
) -> None:
    gid = _game(service, {"kind": "clock", "initial": "10h", "increment": "2h", "cap": "12h"})
    a = _owing(service, gid)
    assert rows(service, gid)[a].due_at == at(MONDAY + timedelta(hours=10))
    wait(service, hours=3)
    play(service, gid, a)  # 10 - 3 + 2
    b = _owing(service, gid)
    assert rows(service, gid)[a].bank == 9 * HOUR
    now = wait(service, hours=1)
    play(service, gid, b)  # 10 - 1 + 2
    assert rows(service, gid)[b].bank == 11 * HOUR
    assert rows(service, gid)[a].due_at == at(now + timedelta(hours=9))
    wait(service, hours=1)
    play(service, gid, a)  # 9 - 1 + 2
    assert rows(service, gid)[a].bank == 10 * HOUR
    wait(service, minutes=1)
    play(service, gid, b)  # 11 - 0:01 + 2, capped
    assert rows(service, gid)[b].bank == 12 * HOUR
    now = wait(service, hours=20)  # a runs out: the bank does not go below nothing
    row = rows(service, gid)[a]
    assert row.due_at == at(now - timedelta(hours=10))
    play(service, gid, a)
    assert rows(service, gid)[a].bank == 2 * HOUR
    _matches_log(service, gid)


@pytest.mark.parametrize(
    ("start", "due"),
    [
        # Friday noon in Paris (CET); the weekend's Monday is in summer time (CEST):
        # 12 h on Friday, then 36 h from Monday 00:00 CEST.
        (datetime(2026, 3, 27, 11, 0, tzinfo=UTC), datetime(2026, 3, 31, 10, 0, tzinfo=UTC)),
        # Friday noon CEST; winter time from Sunday October 25th.
        (datetime(2026, 10, 23, 10, 0, tzinfo=UTC), datetime(2026, 10, 27, 11, 0, tzinfo=UTC)),
        # began on the Saturday: nothing counts before Monday 00:00 (CEST)
        (datetime(2026, 3, 28, 15, 0, tzinfo=UTC), datetime(2026, 3, 31, 22, 0, tzinfo=UTC)),
        # Sunday 23:30 UTC in October is already Monday 00:30 in Paris
        (datetime(2026, 10, 25, 23, 30, tzinfo=UTC), datetime(2026, 10, 27, 23, 30, tzinfo=UTC)),
    ],
)
def test_weekends_do_not_count_in_the_games_time_zone_across_daylight_saving(
    database: Database, tmp_path: Path, start: datetime, due: datetime
) -> None:
    service = timed_service(database, tmp_path, start)
    gid = _game(
        service,
        {"preset": "standard", "weekend_pause": True, "time_zone": "Europe/Paris"},
    )
    assert rows(service, gid)[_owing(service, gid)].due_at == at(due)
    _matches_log(service, gid)


def test_a_pause_stops_every_clock_until_the_game_resumes(service: GameService) -> None:
    gid = _game(service, "48h")
    seat = _owing(service, gid)
    wait(service, hours=10)
    append(service, gid, paused())
    row = rows(service, gid)[seat]
    assert (row.status, row.due_at, row.act_at, row.next_reminder_at) == (
        "paused", None, None, None,
    )  # fmt: skip
    assert row.owes_since == at(MONDAY)
    wait(service, hours=5)
    append(service, gid, paused(by_seat=seat))  # already paused: nothing more
    wait(service, hours=2)
    append(service, gid, resumed())
    row = rows(service, gid)[seat]
    assert (row.status, row.due_at) == ("running", at(MONDAY + timedelta(hours=48 + 7)))
    append(service, gid, resumed())  # not paused: nothing
    assert rows(service, gid)[seat].due_at == at(MONDAY + timedelta(hours=48 + 7))
    _matches_log(service, gid)


def test_an_open_dispute_stops_the_clock(service: GameService) -> None:
    created = service.create_game("lancelot", {}, PLAYERS[:2], time_control="48h")
    gid = accept_all(service, created.id)
    wait(service, hours=1)
    first = play(service, gid)
    version = service.load(gid).version
    second = _owing(service, gid)
    start = wait(service, hours=1)
    opened = service.open_dispute(gid, first, version, None, "not what I sent", channel="api")
    # Stopped for one decision's time at most: the due time while it is open says so.
    row = rows(service, gid)[second]
    assert (row.status, row.due_at) == ("running", at(start + timedelta(hours=-1 + 48 + 48)))
    wait(service, hours=3)
    service.resolve_dispute(gid, created.admin_token, opened.dispute, uphold=False, reason="it was")
    row = rows(service, gid)[second]
    assert row.status == "running"
    assert row.due_at == at(start + timedelta(hours=-1 + 48 + 3))
    _matches_log(service, gid)


def test_a_dispute_and_a_pause_both_have_to_end(service: GameService) -> None:
    created = service.create_game("lancelot", {}, PLAYERS[:2], time_control="48h")
    gid = accept_all(service, created.id)
    wait(service, hours=1)
    first = play(service, gid)
    version = service.load(gid).version
    second = _owing(service, gid)
    wait(service, hours=1)
    opened = service.open_dispute(gid, first, version, None, "not what I sent", channel="api")
    wait(service, hours=1)
    append(service, gid, paused())
    wait(service, hours=1)
    service.resolve_dispute(gid, created.admin_token, opened.dispute, uphold=False, reason="x")
    assert rows(service, gid)[second].status == "paused"
    wait(service, hours=1)
    append(service, gid, resumed())
    assert rows(service, gid)[second].due_at == at(MONDAY + timedelta(hours=1 + 48 + 3))
    _matches_log(service, gid)


def test_a_vacation_does_not_count_and_ends_early_when_the_player_is_back(
    service: GameService,
) -> None:
    gid = _game(service, "48h")
    seat = _owing(service, gid)
    now = wait(service, hours=1)
    append(service, gid, away(seat, now + timedelta(hours=10)))
    row = rows(service, gid)[seat]
    assert row.due_at == at(MONDAY + timedelta(hours=58))
    assert row.away_until == at(now + timedelta(hours=10))
    wait(service, hours=4)
    append(service, gid, back(seat))
    row = rows(service, gid)[seat]
    assert row.due_at == at(MONDAY + timedelta(hours=52))
    _matches_log(service, gid)


def test_a_vacation_counts_only_while_the_allowance_lasts(service: GameService) -> None:
    gid = _game(service, {"preset": "standard", "vacation": "6h"})
    seat = _owing(service, gid)
    now = wait(service, hours=1)
    append(service, gid, away(seat, now + timedelta(days=3)))
    assert rows(service, gid)[seat].due_at == at(MONDAY + timedelta(hours=48 + 6))
    wait(service, hours=7)
    append(service, gid, back(seat))  # the allowance ran out an hour ago: all used
    now = wait(service, hours=1)
    append(service, gid, away(seat, now + timedelta(days=1)))  # nothing left
    assert rows(service, gid)[seat].due_at == at(MONDAY + timedelta(hours=48 + 6))
    _matches_log(service, gid)


def test_an_early_return_keeps_the_rest_of_the_allowance(service: GameService) -> None:
    gid = _game(service, {"preset": "standard", "vacation": "6h"})
    seat = _owing(service, gid)
    wait(service, hours=1)
    append(service, gid, away(seat, MONDAY + timedelta(days=2)))
    wait(service, hours=2)
    append(service, gid, back(seat))
    now = wait(service, hours=1)
    append(service, gid, away(seat, now + timedelta(days=1)))  # 4 h left
    assert rows(service, gid)[seat].due_at == at(MONDAY + timedelta(hours=48 + 2 + 4))
    _matches_log(service, gid)


def test_an_extension_moves_this_decision_only(service: GameService) -> None:
    gid = _game(service, "48h")
    a = _owing(service, gid)
    wait(service, hours=1)
    append(service, gid, extended(a, 3 * HOUR))
    assert rows(service, gid)[a].due_at == at(MONDAY + timedelta(hours=51))
    now = wait(service, hours=1)
    play(service, gid, a)
    b = _owing(service, gid)
    assert rows(service, gid)[b].owes_since == at(now)
    append(service, gid, extended(a, HOUR))  # owes nothing: nothing to extend
    now2 = wait(service, hours=1)
    play(service, gid, b)
    assert rows(service, gid)[a].due_at == at(now2 + timedelta(hours=48))
    _matches_log(service, gid)


def test_grace_delays_the_deadline_move(service: GameService) -> None:
    gid = _game(service, {"preset": "standard", "grace": "2h"})
    row = rows(service, gid)[_owing(service, gid)]
    assert row.due_at == at(MONDAY + timedelta(hours=48))
    assert row.act_at == at(MONDAY + timedelta(hours=50))


def test_a_missed_deadline_is_late_and_not_acted_on_again(service: GameService) -> None:
    gid = _game(service, {"preset": "standard", "on_deadline": "wait"})
    seat = _owing(service, gid)
    wait(service, hours=49)
    due = at(MONDAY + timedelta(hours=48))
    assert due is not None
    append(service, gid, ce.DeadlineMissed(seat=seat, due_at=due, move=False, reason="waiting"))
    row = rows(service, gid)[seat]
    assert (row.status, row.act_at, row.next_reminder_at) == ("late", None, None)
    _matches_log(service, gid)


def test_reminders(service: GameService) -> None:
    gid = _game(service, "48h")
    row = rows(service, gid)[_owing(service, gid)]
    day, four, eighty = (
        at(MONDAY + timedelta(hours=24)),
        at(MONDAY + timedelta(hours=44)),
        at(MONDAY + timedelta(hours=48 * 0.8)),
    )
    assert row.reminders == ev.canonical_json(
        [["before 86400s", day], ["80% gone", eighty], ["before 14400s", four]]
    )
    assert row.next_reminder_at == day


def test_a_reminder_before_the_decision_began_is_dropped(service: GameService) -> None:
    gid = _game(service, {"kind": "fixed", "per_decision": "3h", "reminders": ["24h", "1h", "3h"]})
    row = rows(service, gid)[_owing(service, gid)]
    assert row.reminders == ev.canonical_json(
        [
            ["80% gone", at(MONDAY + timedelta(hours=2.4))],
            ["before 3600s", at(MONDAY + timedelta(hours=2))],
        ][::-1]
    )
    assert row.next_reminder_at == at(MONDAY + timedelta(hours=2))


def test_reminders_follow_a_pause(service: GameService) -> None:
    gid = _game(service, {"preset": "standard", "reminders": ["4h"], "remind_at_fraction": None})
    seat = _owing(service, gid)
    wait(service, hours=1)
    append(service, gid, paused())
    assert rows(service, gid)[seat].reminders == "[]"
    wait(service, hours=10)
    append(service, gid, resumed())
    row = rows(service, gid)[seat]
    assert row.next_reminder_at == at(MONDAY + timedelta(hours=44 + 10))


def _to_parliament(service: GameService, gid: str) -> frozenset[int]:
    """Plays default moves until several seats owe a vote in parliament at once."""
    for _ in range(500):
        loaded = service.load(gid)
        phase = loaded.rules.view(loaded.state, None)["phase"]
        if len(loaded.to_act) > 1 and "parliament" in phase:
            return loaded.to_act
        wait(service, minutes=7)
        play(service, gid)
    raise AssertionError("no simultaneous decision within 500 moves")


def test_every_seat_that_owes_a_vote_has_its_own_deadline(service: GameService) -> None:
    gid = _game(service, "standard", game="lancaster", n=3)
    voters = _to_parliament(service, gid)
    began = service.clock.now()
    table = rows(service, gid)
    for seat in voters:
        assert (table[seat].status, table[seat].owes_since, table[seat].due_at) == (
            "running", at(began), at(began + timedelta(hours=48)),
        )  # fmt: skip
    first = min(voters)
    wait(service, hours=2)
    play(service, gid, first)
    table = rows(service, gid)
    assert table[first].status == "idle"
    for seat in voters - {first}:
        assert table[seat].due_at == at(began + timedelta(hours=48))
    _matches_log(service, gid)


def test_a_time_control_set_mid_game_applies_from_the_next_decision(
    service: GameService,
) -> None:
    gid = _game(service, "48h")
    a = _owing(service, gid)
    wait(service, hours=1)
    fast = parse_time_control("fast").to_json()
    append(service, gid, ce.TimeControlSet(time_control=fast, by="administrator", channel="api"))
    assert rows(service, gid)[a].due_at == at(MONDAY + timedelta(hours=48))
    now = wait(service, hours=1)
    play(service, gid, a)
    b = _owing(service, gid)
    assert rows(service, gid)[b].due_at == at(now + timedelta(hours=12))
    _matches_log(service, gid)


def test_an_untimed_game_given_a_time_control_gets_deadlines(service: GameService) -> None:
    gid = _game(service, None)
    a = _owing(service, gid)
    now = wait(service, hours=1)
    standard = parse_time_control("standard").to_json()
    append(
        service, gid, ce.TimeControlSet(time_control=standard, by="administrator", channel="api")
    )
    # the seat owes from now on; its decision began under no time control, so the new one
    # applies from its next decision
    row = rows(service, gid)[a]
    assert row.owes_since == at(now)
    later = wait(service, hours=1)
    play(service, gid, a)
    b = _owing(service, gid)
    assert rows(service, gid)[b].due_at == at(later + timedelta(hours=48))
    _matches_log(service, gid)


def test_a_standing_order_is_used_once(service: GameService) -> None:
    gid = _game(service, "48h")
    a = _owing(service, gid)
    append(service, gid, standing(a, "whatever the default is"))
    assert rows(service, gid)[a].standing_order == "whatever the default is"
    wait(service, hours=1)
    play(service, gid, a)  # an ordinary move keeps it
    assert rows(service, gid)[a].standing_order == "whatever the default is"
    wait(service, hours=1)
    play(service, gid)
    wait(service, hours=49)
    play(service, gid, a, channel="deadline")
    assert rows(service, gid)[a].standing_order is None
    b = _owing(service, gid)
    append(service, gid, standing(b, "x"), standing(b, None))
    assert rows(service, gid)[b].standing_order is None
    _matches_log(service, gid)


def test_resigned_seats_owe_nothing(service: GameService) -> None:
    gid = _game(service, "48h", n=3)
    a = _owing(service, gid)
    wait(service, hours=1)
    service.resign(gid, a, channel="api")
    assert rows(service, gid)[a].status == "idle"
    _matches_log(service, gid)


def test_a_clock_bank_survives_moves_in_the_same_microsecond(service: GameService) -> None:
    """Two appends recorded in the same microsecond are one append to a rebuild: the seat
    that came to owe and acted within it is credited its increment either way."""
    gid = _game(service, {"kind": "clock", "initial": "10h", "increment": "2h", "cap": "11h"})
    wait(service, hours=3)
    a = play(service, gid)
    b = play(service, gid)  # no time passes
    table = rows(service, gid)
    assert (table[a].bank, table[b].bank) == (9 * HOUR, 11 * HOUR)
    _matches_log(service, gid)


def test_day_constant() -> None:
    assert DAY == 24 * HOUR and datetime(2026, 3, 29).weekday() == 6
    assert datetime(2026, 10, 25, tzinfo=UTC).weekday() == 6


def _stored(version: int, when: datetime, payload: ev.Payload) -> ev.StoredEvent:
    record = ev.StoredEvent("g", version, payload.type, 1, {}, at(when) or "", "", "")
    record.__dict__["payload"] = payload
    return record


def _moved(seat: int) -> ev.ActionApplied:
    return ev.ActionApplied(
        seat=seat, text="m", canonical="m", action=["m"], channel="api", channel_ref=None,
        received_at="", irreversible=False, secret=False, log=(), nonce=None,
    )  # fmt: skip


def test_two_appends_of_one_microsecond_fold_as_they_did_one_by_one() -> None:
    """Logs written before appends were kept apart may hold two appends of one microsecond,
    which a rebuild reads as one: seat 1 came to owe and acted within it."""
    tc = parse_time_control({"kind": "clock", "initial": "10h", "increment": "2h", "cap": "11h"})
    start, then = MONDAY, MONDAY + timedelta(hours=3)
    created = [([_stored(1, start, ce.TimeControlSet(tc.to_json(), "creator", "api"))], {0})]
    one_by_one = [
        *created,
        ([_stored(2, then, _moved(0))], {1}),
        ([_stored(3, then, _moved(1))], {0}),
    ]
    as_one = [*created, ([_stored(2, then, _moved(0)), _stored(3, then, _moved(1))], {0})]
    folds = [
        fold(TimeControl(), [0, 1], [(e, frozenset(s)) for e, s in batches])
        for batches in (one_by_one, as_one)
    ]
    assert folds[0].to_json() == folds[1].to_json()
    assert (folds[1].seats[0].bank, folds[1].seats[1].bank) == (9 * HOUR, 11 * HOUR)


@pytest.mark.parametrize(
    "time_control", ["10h", {"kind": "clock", "initial": "10h", "increment": "2h"}]
)
def test_an_undone_move_gives_its_decision_back_as_it_stood(
    service: GameService, time_control: Any
) -> None:
    gid = _game(service, time_control)
    a = _owing(service, gid)
    before = rows(service, gid)[a]
    wait(service, hours=3)
    play(service, gid, a)
    wait(service, minutes=10)
    service.undo(gid, a, channel="api")
    assert _owing(service, gid) == a
    after = rows(service, gid)[a]
    # the same deadline, from the same start, and no increment earned by moving and undoing
    assert (after.owes_since, after.due_at, after.bank) == (
        before.owes_since,
        before.due_at,
        before.bank,
    )
    assert after.due_at == at(MONDAY + timedelta(hours=10))
    _matches_log(service, gid)


def test_an_invited_seats_clock_starts_when_its_player_accepts(service: GameService) -> None:
    # addresses no other test of the module used: they have never played, so are invited
    players = [{"name": n, "email": f"{n.lower()}-invited@example.org"} for n in ("Eve", "Fay")]
    gid = service.create_game("lancelot", {}, players, time_control="48h").id
    first = _owing(service, gid)
    assert rows(service, gid)[first].status == "idle"  # invited: not timed yet
    now = wait(service, hours=30)
    service.accept_invitation(gid, first, channel="web")
    row = rows(service, gid)[first]
    assert (row.status, row.owes_since, row.due_at) == (
        "running",
        at(now),
        at(now + timedelta(hours=48)),
    )
    _matches_log(service, gid)


def test_a_new_time_controls_grace_and_reminders_wait_for_the_next_decision(
    service: GameService,
) -> None:
    gid = _game(service, "48h")
    a = _owing(service, gid)
    before = rows(service, gid)[a]
    wait(service, hours=1)
    later = parse_time_control({"preset": "fast", "grace": "1h", "weekend_pause": True})
    append(
        service,
        gid,
        ce.TimeControlSet(time_control=later.to_json(), by="administrator", channel="api"),
    )
    after = rows(service, gid)[a]
    # the decision under way keeps the grace, reminders and weekends it began with
    assert (after.due_at, after.act_at, after.reminders) == (
        before.due_at,
        before.act_at,
        before.reminders,
    )
    now = wait(service, hours=1)
    play(service, gid, a)
    b = rows(service, gid)[_owing(service, gid)]
    assert b.owes_since == at(now)
    assert b.act_at is not None and b.due_at is not None and b.act_at > b.due_at  # 1 h grace
    _matches_log(service, gid)
