"""What the mails say of deadlines, through the real outbox on SQLite and PostgreSQL: a turn
mail's "Deadline:" line (from the seat's projected deadline, "in …" from the service's
clock), the start mail's time control, and the notice every seat gets when a deadline is
missed, which never shows another seat's secret action before its reveal."""

from __future__ import annotations

from datetime import timedelta

from pbem.app.bootstrap import build_service, build_sweeper, outbox_listener
from pbem.app.service import GameService
from pbem.clock import events as ce
from pbem.core.db import Database
from pbem.core.models import Deadline
from pbem.mail.models import OutboxMail
from tests.mail.helpers import MailWorld, mail_text
from tests.service.helpers import REGISTRY

NAMES = ["Alice", "Bob", "Carol"]


def _seats(world: MailWorld, players: int) -> list[dict[str, str]]:
    seats = [{"name": n, "email": f"{n.lower()}@example.com"} for n in NAMES[:players]]
    world.welcome(seats)
    return seats


def _mails(world: MailWorld, gid: str, after: int = 0) -> list[OutboxMail]:
    return [m for m in world.outbox(gid) if (m.id or 0) > after]


def _last_id(world: MailWorld, gid: str) -> int:
    return max((m.id or 0 for m in world.outbox(gid)), default=0)


def _deadline(db: Database, gid: str, seat: int) -> Deadline:
    with db.read() as session:
        row = session.get(Deadline, (gid, seat))
        assert row is not None
        session.expunge(row)
        return row


def _order(service: GameService, gid: str, seat: int, text: str) -> None:
    """A standing order, as the seat's ``default <move>`` records it."""
    with service.parts.transactions.on(gid) as work:
        order = ce.StandingOrderSet(
            seat=seat, text=text, channel="email", channel_ref=None, salt=""
        )
        work.append([order], work.state, lapse=False)


def _sweep(service: GameService) -> None:
    """What the scheduler's sweep does at the service's now: the deadlines due are missed,
    and the deadline moves made (or the game waits)."""
    report = build_sweeper(service).sweep()
    assert report.moves and not report.failed, report


def test_turn_mails_show_the_deadline_and_the_start_mail_the_time_control(
    world: MailWorld,
) -> None:
    seats = _seats(world, 2)
    created = world.service.create_game(
        "lancelot", {}, seats, channel="api", time_control="standard"
    )
    gid = created.id
    start = world.clock.now()  # Mon 2 Jun 2025 09:00 UTC
    first = {m.seat: mail_text(m) for m in world.outbox(gid)}
    # Alice is to act first: her mail says when, the others' the time control.
    assert "Deadline: Wed 04 Jun 2025 09:00 UTC (in 2 days)" in first[0], first[0]
    assert "Time control: 2 days per move." in first[1], first[1]
    world.clock.advance(timedelta(hours=20, minutes=30))
    before = _last_id(world, gid)
    world.service.submit(gid, 0, "E5", expected_version=created.version, channel="api")
    turn = [m for m in _mails(world, gid, before) if m.kind == "turn"]
    assert [m.seat for m in turn] == [1]
    # Bob's 48 hours start with Alice's move; "in …" is counted from the service's now.
    due = start + timedelta(hours=20, minutes=30, days=2)
    assert f"Deadline: {due:%a %d %b %Y %H:%M} UTC (in 2 days)" in mail_text(turn[0])


def test_an_untimed_game_says_no_deadline_is_set(world: MailWorld) -> None:
    created = world.service.create_game("lancelot", {}, _seats(world, 2), channel="api")
    mail = next(m for m in world.outbox(created.id) if m.seat == 0)
    assert "Deadline: none set" in mail_text(mail)
    assert "Time control" not in mail_text(mail)


def test_a_paused_clock_and_a_late_seat_are_said_so(world: MailWorld) -> None:
    seats = _seats(world, 2)
    timing = {"per_decision": "1h", "kind": "fixed", "on_deadline": "wait"}
    created = world.service.create_game("lancelot", {}, seats, channel="api", time_control=timing)
    gid = created.id
    before = _last_id(world, gid)
    with world.service.parts.transactions.on(gid) as work:
        work.append(
            [ce.GamePaused(by="administrator", by_seat=None, channel="cli", channel_ref=None)],
            work.state,
        )
    notices = {m.seat: mail_text(m) for m in _mails(world, gid, before)}
    assert set(notices) == {0, 1}
    for text in notices.values():
        assert "the game is paused." in text
        assert "Game paused by the administrator: the clocks stopped." in text
    assert _deadline(world.db, gid, 0).status == "paused"
    with world.service.parts.transactions.on(gid) as work:
        work.append(
            [ce.GameResumed(by="administrator", by_seat=None, channel="cli", channel_ref=None)],
            work.state,
        )
    world.clock.advance(timedelta(hours=2))
    before = _last_id(world, gid)
    _sweep(world.service)
    late = {m.seat: mail_text(m) for m in _mails(world, gid, before)}
    assert set(late) == {0, 1}
    assert "You missed the deadline of Mon 02 Jun 2025 10:00 UTC; the game waits" in late[0]
    assert "Alice (Red) missed the deadline of Mon 02 Jun 2025 10:00 UTC; the game waits" in late[1]
    assert _deadline(world.db, gid, 0).status == "late"


def test_every_seat_is_told_who_was_late_and_what_was_played_for_them(
    world: MailWorld,
) -> None:
    seats = _seats(world, 2)
    created = world.service.create_game("lancelot", {}, seats, channel="api", time_control="demo")
    gid = created.id
    world.clock.advance(timedelta(minutes=4))
    before = _last_id(world, gid)
    _order(world.service, gid, 0, "E5")
    _sweep(world.service)
    mails = {m.seat: (m.kind, mail_text(m)) for m in _mails(world, gid, before)}
    assert set(mails) == {0, 1}
    kind, alice = mails[0]
    assert kind == "notice"
    assert (
        "You missed the deadline of Mon 02 Jun 2025 09:03 UTC; played for you: E5 "
        "(your standing order)." in alice
    ), alice
    kind, bob = mails[1]
    assert kind == "turn"  # the deadline move made it Bob's turn: his mail says both
    assert (
        "Alice (Red) missed the deadline of Mon 02 Jun 2025 09:03 UTC; played for them: E5 "
        "(their standing order)." in bob
    ), bob
    assert "(deadline move): E5" in bob  # the "since your last move" line
    # Bob's deadline runs from the deadline move, not from Alice's missed deadline.
    assert "Deadline: Mon 02 Jun 2025 09:07 UTC (in 3 minutes)" in bob, bob


def test_a_secret_action_played_at_a_deadline_is_not_shown_to_the_others(
    database: Database, world: MailWorld
) -> None:
    service = build_service(
        world.settings,
        db=database,
        clock=world.clock,
        registry=REGISTRY,
        listeners=[outbox_listener(world.settings, world.clock)],
    )
    seats = _seats(world, 3)
    created = service.create_game("hoard", {"rounds": 2}, seats, channel="api", time_control="1h")
    gid = created.id
    for seat in range(3):  # each draws a gem, then every seat owes a secret stake
        service.submit(gid, seat, "draw", expected_version=service.load(gid).version, channel="api")
    state = service.load(gid).state
    assert state.phase == "vote"
    gem = state.purses[0][0]
    before = _last_id(world, gid)
    with service.parts.transactions.on(gid) as work:  # only Alice is late
        more = [
            ce.DeadlineExtended(
                seat=s,
                seconds=3600,
                by="administrator",
                by_seat=None,
                channel="cli",
                channel_ref=None,
            )
            for s in (1, 2)
        ]
        work.append(more, work.state, lapse=False)
    extended = {m.seat: mail_text(m) for m in _mails(world, gid, before)}
    assert set(extended) == {0, 1, 2}  # every seat is told, by a notice of its own
    for text in extended.values():
        assert "Bob's deadline extended by 1 hour (the administrator)." in text, text
    world.clock.advance(timedelta(hours=1, seconds=1))
    before = _last_id(world, gid)
    _order(service, gid, 0, f"stake {gem}")
    _sweep(service)
    mails = {m.seat: mail_text(m) for m in _mails(world, gid, before)}
    assert set(mails) == {0, 1, 2}
    assert f"played for you: stake {gem} (your standing order)" in mails[0], mails[0]
    for seat in (1, 2):
        assert gem not in mails[seat], mails[seat]
        assert (
            "Alice missed the deadline of Mon 02 Jun 2025 10:00 UTC; played for them: a "
            "secret action, shown at its reveal (their standing order)." in mails[seat]
        ), mails[seat]
