"""The deadline sweep (``pbem.clock.sweep``) on SQLite and PostgreSQL, with a manual
clock: deadline moves (default, standing order, standing order no longer legal, wait),
reminders (once each, coalesced per address), two sweeps at once, a sweep interrupted and
rerun, and days of downtime."""

from __future__ import annotations

import secrets
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlmodel import col, select

from pbem.app.bootstrap import build_service, build_sweeper
from pbem.app.service import GameService
from pbem.clock import events as ce
from pbem.clock.sweep import Sweeper
from pbem.core import events as ev
from pbem.core.db import Database
from pbem.core.models import Deadline, ReminderSent
from pbem.core.read_models import first_difference
from pbem.core.time_source import ManualClock, format_time, parse_time
from pbem.mail.models import OutboxMail
from tests.helpers import database_of
from tests.mail.helpers import text_part
from tests.service.helpers import REGISTRY
from tests.settings import make_settings
from web.cli import main

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday
HOUR = timedelta(hours=1)
TEN_HOURS: dict[str, Any] = {"kind": "fixed", "per_decision": "10h", "reminders": ["4h", "3h"]}


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def service(database: Database, tmp_path: Path, clock: ManualClock) -> GameService:
    settings = make_settings(database.url, tmp_path)
    return build_service(settings, db=database, registry=REGISTRY, listeners=[], clock=clock)


@pytest.fixture
def sweeper(service: GameService) -> Sweeper:
    return build_sweeper(service)


def new_game(
    service: GameService,
    time_control: Any = TEN_HOURS,
    emails: tuple[str | None, str | None] | None = None,
    accept: bool = True,
) -> str:
    if emails is None:
        emails = (f"a{secrets.token_hex(4)}@example.org", f"b{secrets.token_hex(4)}@example.org")
    players = [{"name": "Ann", "email": emails[0]}, {"name": "Bob", "email": emails[1]}]
    gid = service.create_game("hoard", {"rounds": 1}, players, time_control=time_control).id
    if accept:
        for seat, email in enumerate(emails):
            if email:
                service.accept_invitation(gid, seat, channel="api")
    return gid


def payloads(service: GameService, gid: str, kind: type[Any]) -> list[Any]:
    return [e.payload for e in service.raw_events(gid) if isinstance(e.payload, kind)]


def deadline(service: GameService, gid: str, seat: int) -> Deadline:
    with database_of(service).read() as s:
        row = s.get(Deadline, (gid, seat))
        assert row is not None
        return row


def set_standing_order(service: GameService, gid: str, seat: int, text: str) -> None:
    with service.parts.transactions.on(gid) as txn:
        order = ce.StandingOrderSet(seat=seat, text=text, channel="api", channel_ref=None, salt="")
        txn.append([order], txn.state, lapse=False)


def test_a_missed_deadline_gets_the_default_move_once(
    service: GameService, sweeper: Sweeper, clock: ManualClock
) -> None:
    gid = new_game(service)
    assert deadline(service, gid, 0).due_at == format_time(START + 10 * HOUR)
    clock.advance(10 * HOUR - timedelta(seconds=1))
    assert not [m for m in sweeper.sweep().moves if m.game_id == gid]
    clock.advance(timedelta(seconds=1))
    report = sweeper.sweep()
    assert [(m.game_id, m.seat, m.reason, m.played) for m in report.moves if m.game_id == gid] == [
        (gid, 0, "default", "keep")
    ]
    missed = payloads(service, gid, ce.DeadlineMissed)
    assert missed == [ce.DeadlineMissed(0, format_time(START + 10 * HOUR), True, "default")]
    moves = [p for p in payloads(service, gid, ev.ActionApplied) if p.channel == "deadline"]
    assert [(p.seat, p.canonical) for p in moves] == [(0, "keep")]
    # Nothing more to do at the same time: the decision ended.
    assert not [m for m in sweeper.sweep().moves if m.game_id == gid]
    assert len(payloads(service, gid, ce.DeadlineMissed)) == 1
    # The next seat's time starts now.
    assert deadline(service, gid, 1).due_at == format_time(clock.now() + 10 * HOUR)


def test_a_legal_standing_order_is_played(
    service: GameService, sweeper: Sweeper, clock: ManualClock
) -> None:
    gid = new_game(service)
    set_standing_order(service, gid, 0, "draw")
    clock.advance(10 * HOUR)
    [act] = [m for m in sweeper.sweep().moves if m.game_id == gid]
    assert (act.reason, act.played) == ("standing order", "draw")
    [move] = [p for p in payloads(service, gid, ev.ActionApplied) if p.channel == "deadline"]
    assert move.text == "draw"
    # Used once: the seat's next deadline has no standing order.
    assert deadline(service, gid, 0).standing_order is None
    assert first_difference(database_of(service), gid, REGISTRY) is None


def test_a_standing_order_no_longer_legal_falls_back_to_the_default(
    service: GameService, sweeper: Sweeper, clock: ManualClock
) -> None:
    gid = new_game(service)
    set_standing_order(service, gid, 0, "stake gem-000000000000")
    clock.advance(10 * HOUR)
    [act] = [m for m in sweeper.sweep().moves if m.game_id == gid]
    assert act.reason.startswith("standing order not legal: ")
    assert "not allowed now" in act.reason
    assert act.played == "keep"
    [missed] = payloads(service, gid, ce.DeadlineMissed)
    assert missed.reason == act.reason


def test_wait_mode_records_the_missed_deadline_and_plays_nothing(
    service: GameService, sweeper: Sweeper, clock: ManualClock
) -> None:
    gid = new_game(service, {**TEN_HOURS, "on_deadline": "wait"})
    version = service.load(gid).version
    clock.advance(11 * HOUR)
    [act] = [m for m in sweeper.sweep().moves if m.game_id == gid]
    assert (act.move, act.reason, act.played) == (False, "waiting", None)
    assert payloads(service, gid, ce.DeadlineMissed) == [
        ce.DeadlineMissed(0, format_time(START + 10 * HOUR), False, "waiting")
    ]
    assert service.load(gid).version == version + 1
    assert deadline(service, gid, 0).status == "late"
    assert first_difference(database_of(service), gid, REGISTRY) is None
    assert not [m for m in sweeper.sweep().moves if m.game_id == gid]


def test_simultaneous_secret_votes_each_get_their_own_default(
    service: GameService, sweeper: Sweeper, clock: ManualClock
) -> None:
    gid = new_game(service)
    clock.advance(10 * HOUR)
    sweeper.sweep()  # seat 0's draw decision
    clock.advance(10 * HOUR)
    sweeper.sweep()  # seat 1's: then both vote at once
    vote_due = {s: deadline(service, gid, s).due_at for s in (0, 1)}
    assert vote_due[0] == vote_due[1] == format_time(clock.now() + 10 * HOUR)
    clock.advance(10 * HOUR)
    acts = [m for m in sweeper.sweep().moves if m.game_id == gid]
    assert sorted(m.seat for m in acts) == [0, 1]
    assert all(m.played is None for m in acts)  # secret: not even the report shows it
    votes = [p for p in payloads(service, gid, ev.ActionApplied) if p.secret]
    assert sorted(p.seat for p in votes) == [0, 1]
    assert all(p.channel == "deadline" and p.nonce and p.commitment for p in votes)
    assert service.load(gid).finished


def test_downtime_gives_one_move_per_missed_deadline_and_counts_from_the_sweep(
    service: GameService, sweeper: Sweeper, clock: ManualClock
) -> None:
    gid = new_game(service)
    clock.advance(timedelta(days=3))
    acts = [m for m in sweeper.sweep().moves if m.game_id == gid]
    # Only seat 0's deadline had passed: seat 1's decision begins with the deadline move.
    assert [m.seat for m in acts] == [0]
    assert deadline(service, gid, 1).due_at == format_time(clock.now() + 10 * HOUR)
    assert len(payloads(service, gid, ce.DeadlineMissed)) == 1
    clock.advance(timedelta(days=4))
    assert [m.seat for m in sweeper.sweep().moves if m.game_id == gid] == [1]
    missed = payloads(service, gid, ce.DeadlineMissed)
    assert [p.seat for p in missed] == [0, 1]
    assert parse_time(missed[1].due_at) == START + timedelta(days=3) + 10 * HOUR
    # The read models the sweep's appends wrote are the ones the log gives.
    assert first_difference(database_of(service), gid, REGISTRY) is None


def reminder_mails(service: GameService, address: str) -> list[OutboxMail]:
    with database_of(service).read() as s:
        return list(
            s.exec(
                select(OutboxMail).where(
                    OutboxMail.recipient == address, OutboxMail.kind == "reminder"
                )
            ).all()
        )


def test_reminders_are_sent_once_and_coalesced_per_address(
    service: GameService, sweeper: Sweeper, clock: ManualClock
) -> None:
    ann = f"ann{secrets.token_hex(4)}@example.org"
    first = new_game(service, emails=(ann, None))
    clock.advance(30 * timedelta(minutes=1))
    second = new_game(service, emails=(ann, None))
    # 6 h in: the first game's 4 h reminder is due, the second's comes within the hour.
    clock.set(START + 6 * HOUR)
    sweeper.sweep()
    [mail] = reminder_mails(service, ann)
    body = text_part(mail.message)  # the text part (the HTML part says the same)
    assert first in body and second in body
    assert "Mon 02 Mar 2026 19:00 UTC (in 4 hours)" in body
    assert "Mon 02 Mar 2026 19:30 UTC (in 4 hours 30 minutes)" in body
    assert body.count("/games/") == 2
    with database_of(service).read() as s:
        claimed = s.exec(
            select(ReminderSent.game_id, ReminderSent.reminder).where(
                col(ReminderSent.address) == ann
            )
        ).all()
    # Every reminder of the address due within the hour goes in this mail.
    assert sorted(claimed) == sorted(
        [(first, "before 14400s"), (first, "before 10800s"), (second, "before 14400s")]
    )
    # Again at the same time, at the second game's 4 h reminder and at the first's 3 h
    # one: nothing new (all were claimed).
    for at in (6 * HOUR, 6.5 * HOUR, 7 * HOUR):
        clock.set(START + at)
        sweeper.sweep()
    assert len(reminder_mails(service, ann)) == 1
    # The second game's 3 h reminder: one more mail, with the first game's "80% gone"
    # (at 8 h, within the hour).
    clock.set(START + 7.5 * HOUR)
    sweeper.sweep()
    mails = reminder_mails(service, ann)
    assert len(mails) == 2
    body = mails[1].message.decode()
    assert "Mon 02 Mar 2026 19:30 UTC (in 3 hours)" in body
    assert "Mon 02 Mar 2026 19:00 UTC (in 2 hours 30 minutes)" in body
    with database_of(service).read() as s:
        assert s.get(ReminderSent, (first, 0, format_time(START + 10 * HOUR), "80% gone"))


def test_no_reminder_to_a_waiting_or_resigned_seat_or_the_seat_not_late(
    service: GameService, sweeper: Sweeper, clock: ManualClock
) -> None:
    ann, bob = f"ann{secrets.token_hex(4)}@example.org", f"bob{secrets.token_hex(4)}@example.org"
    new_game(service, emails=(ann, bob), accept=False)  # Ann has not accepted: she waits
    clock.set(START + 7 * HOUR)
    sweeper.sweep()
    assert reminder_mails(service, ann) == []
    assert reminder_mails(service, bob) == []  # not Bob's turn


def test_two_sweeps_at_once_act_once(
    service: GameService, database: Database, tmp_path: Path, clock: ManualClock
) -> None:
    ann = f"ann{secrets.token_hex(4)}@example.org"
    games = [new_game(service, emails=(ann, None)) for _ in range(3)]
    clock.set(START + 6 * HOUR)
    # Two sweepers with services of their own (their own caches), as two processes would.
    sweepers = [
        build_sweeper(
            build_service(
                make_settings(database.url, tmp_path),
                db=database, registry=REGISTRY, listeners=[], clock=clock,
            )
        )
        for _ in range(2)
    ]  # fmt: skip
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def run(sweeper: Sweeper) -> None:
        try:
            barrier.wait()
            sweeper.sweep()
            clock_now = START + 10 * HOUR
            barrier.wait()
            sweeper.sweep(clock_now)
        except BaseException as e:  # reported below
            errors.append(e)

    # Both remind first (6 h in), then both act on the deadlines (10 h in).
    threads = [threading.Thread(target=run, args=(s,)) for s in sweepers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(reminder_mails(service, ann)) == 1
    for gid in games:
        assert len(payloads(service, gid, ce.DeadlineMissed)) == 1
        assert (
            len([p for p in payloads(service, gid, ev.ActionApplied) if p.channel == "deadline"])
            == 1
        )


class Boom(Exception):
    pass


@pytest.mark.parametrize("where", ["before commit", "after commit"])
def test_a_sweep_interrupted_then_rerun_acts_once(
    service: GameService,
    sweeper: Sweeper,
    clock: ManualClock,
    monkeypatch: pytest.MonkeyPatch,
    where: str,
) -> None:
    ann = f"ann{secrets.token_hex(4)}@example.org"
    gid = new_game(service, emails=(ann, None))
    moves = service
    original = moves.deadline_passed

    def crashing(*args: Any, **kwargs: Any) -> Any:
        if where == "after commit":
            original(*args, **kwargs)
            raise Boom
        with service.parts.transactions.on(gid) as txn:
            txn.append(
                [ce.DeadlineMissed(0, format_time(START), True, "never committed")], txn.state
            )
            raise Boom

    monkeypatch.setattr(moves, "deadline_passed", crashing)
    clock.set(START + 10 * HOUR)
    report = sweeper.sweep()
    assert report.failed == 1
    expected = 1 if where == "after commit" else 0
    assert len(payloads(service, gid, ce.DeadlineMissed)) == expected
    monkeypatch.setattr(moves, "deadline_passed", original)
    sweeper.sweep()
    sweeper.sweep()
    assert len(payloads(service, gid, ce.DeadlineMissed)) == 1
    assert (
        len([p for p in payloads(service, gid, ev.ActionApplied) if p.channel == "deadline"]) == 1
    )


def test_lancaster_parliament_votes_each_get_their_own_secret_default(
    service: GameService, sweeper: Sweeper, clock: ManualClock
) -> None:
    players = [{"name": n, "email": None} for n in ("Ann", "Bob", "Cy")]
    gid = service.create_game("lancaster", {}, players, time_control="1h").id
    # Nobody plays: the sweep plays every seat's default until parliament votes.
    for _ in range(40):
        loaded = service.load(gid)
        votes = [a for a in loaded.rules.legal_actions(loaded.state, 0) if "vote" in str(a)]
        if votes and len(loaded.rules.to_act(loaded.state)) == 3:
            break
        clock.advance(HOUR)
        sweeper.sweep()
    else:
        pytest.fail("parliament never sat")
    vote_due = {deadline(service, gid, s).due_at for s in (0, 1, 2)}
    assert vote_due == {format_time(clock.now() + HOUR)}
    before = len(service.raw_events(gid))
    clock.advance(HOUR)
    due_at = deadline(service, gid, 0).due_at
    assert due_at is not None
    # Seat 0's deadline first: before the reveal the others see only that it voted.
    first = service.deadline_passed(gid, 0, due_at, clock.now())
    assert first is not None and (first.reason, first.played) == ("default", None)
    seen = service.events(gid, before, viewer_seat=1)
    assert [e for e in seen if e["type"] == "ActionApplied"]
    [secret] = [
        e.payload
        for e in service.raw_events(gid)[before:]
        if isinstance(e.payload, ev.ActionApplied) and e.payload.channel == "deadline"
    ]
    assert secret.canonical.startswith("vote") and secret.canonical not in str(seen)
    assert secret.nonce is not None and secret.nonce not in str(seen)
    acts = [m for m in sweeper.sweep().moves if m.game_id == gid]
    assert sorted((m.seat, m.reason, m.played) for m in acts) == [
        (1, "default", None),
        (2, "default", None),
    ]
    new = [e.payload for e in service.raw_events(gid)[before:]]
    votes = [p for p in new if isinstance(p, ev.ActionApplied) and p.channel == "deadline"]
    assert sorted(p.seat for p in votes) == [0, 1, 2]
    assert all(p.secret and p.commitment and p.canonical.startswith("vote") for p in votes)
    missed = [p for p in new if isinstance(p, ce.DeadlineMissed)]
    assert sorted(p.seat for p in missed) == [0, 1, 2]


def test_the_deadline_move_mails_the_late_seat_and_the_next_one(
    database: Database, tmp_path: Path, clock: ManualClock
) -> None:
    # The outbox listener on, as in production: the move's mails are written with it.
    settings = make_settings(database.url, tmp_path)
    service = build_service(settings, db=database, registry=REGISTRY, clock=clock)
    ann, bob = f"ann{secrets.token_hex(4)}@example.org", f"bob{secrets.token_hex(4)}@example.org"
    gid = new_game(service, emails=(ann, bob))
    clock.advance(10 * HOUR)
    [act] = [m for m in build_sweeper(service).sweep().moves if m.game_id == gid]
    assert act.played == "keep"
    with database_of(service).read() as s:
        mails = s.exec(
            select(OutboxMail).where(
                OutboxMail.game_id == gid, col(OutboxMail.created_at) == format_time(clock.now())
            )
        ).all()
    kinds = {m.recipient: m.kind for m in mails}
    # the late seat is told what was played for it (a notice, not a confirmation of its act)
    assert kinds == {ann: "notice", bob: "turn"}
    late = next(m for m in mails if m.recipient == ann)
    assert b"You missed the deadline" in late.message


def test_reminders_interrupted_before_commit_are_sent_by_the_next_sweep(
    service: GameService, sweeper: Sweeper, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann = f"ann{secrets.token_hex(4)}@example.org"
    new_game(service, emails=(ann, None))
    clock.set(START + 6 * HOUR)
    from pbem.clock import reminders

    original = reminders._mail

    def crashing(*args: Any, **kwargs: Any) -> Any:
        original(*args, **kwargs)
        raise Boom

    monkeypatch.setattr(reminders, "_mail", crashing)
    assert sweeper.sweep().failed == 1
    assert reminder_mails(service, ann) == []
    monkeypatch.setattr(reminders, "_mail", original)
    sweeper.sweep()
    sweeper.sweep()
    assert len(reminder_mails(service, ann)) == 1


def test_pbem_sweep_runs_one_sweep_and_says_what_it_did(
    service: GameService, database: Database, tmp_path: Path
) -> None:
    # The game's clock started in March 2026 (the manual clock): by the system clock the
    # command uses, its first deadline passed long ago. (The command knows the real games
    # only: this module's test games fail there, each on its own, and are reported.)
    players = [{"name": "Ann", "email": None}, {"name": "Bob", "email": None}]
    gid = service.create_game("lancelot", {}, players, time_control=TEN_HOURS).id
    env = {"PBEM_DATABASE_URL": database.url, "PBEM_VAR_DIR": str(tmp_path / "var")}
    result = CliRunner().invoke(main, ["sweep"], env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    [line] = [x for x in result.output.splitlines() if x.startswith(f"game {gid} ")]
    assert line.startswith(f"game {gid} seat 0: deadline 2026-03-02T19:00:00.000000Z missed; ")
    assert line.endswith(" (default)")
    assert "deadline(s)" in result.output.splitlines()[-1]
    assert len(payloads(service, gid, ce.DeadlineMissed)) == 1
