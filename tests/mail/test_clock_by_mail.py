"""The clock's mail commands, each a reply fed to the inbound pipeline (``Inbound.receive``,
as the webhook does), on SQLite and PostgreSQL: ``default <move>`` (checked now when the
seat is to act, kept otherwise), ``away until …`` and ``back`` across every game of the
address with the allowance running out, and ``extend``/``pause`` granted or refused by the
other player's ``agree extend``/``disagree pause``. Each is answered, and the ``Deadline``
row moves as the clock says."""

from __future__ import annotations

from datetime import timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage

from pbem.app.bootstrap import reply_words
from pbem.app.service import Created
from pbem.core.models import Deadline
from pbem.core.time_source import format_time
from pbem.mail.inbound.pipeline import Inbound
from pbem.mail.models import OutboxMail
from tests.mail.helpers import MailWorld, plain_text, reply_to

TC = {"kind": "fixed", "per_decision": "48h", "vacation": "3d"}
HOUR = timedelta(hours=1)


def _text(mail: OutboxMail) -> str:
    message = message_from_bytes(mail.message, policy=policy.default)
    assert isinstance(message, EmailMessage)
    return " ".join(str(plain_text(message)).split())


def _game(world: MailWorld, names: tuple[str, str]) -> Created:
    seats = [{"name": n, "email": f"{n.lower()}@example.com"} for n in names]
    world.welcome(seats)
    return world.service.create_game("lancelot", {}, seats, channel="api", time_control=TC)


def _latest(world: MailWorld, gid: str, seat: int) -> OutboxMail:
    return [m for m in world.outbox(gid) if m.seat == seat][-1]


def _row(world: MailWorld, gid: str, seat: int) -> Deadline:
    with world.db.read() as session:
        row = session.get(Deadline, (gid, seat))
        assert row is not None
        session.expunge(row)
        return row


def test_a_standing_order_by_mail(world: MailWorld) -> None:
    game = _game(world, ("Alice", "Bob"))
    gid, start = game.id, world.clock.now()
    version = world.service.load(gid).version
    outcome, detail, answer = world.say(gid, 0, "default zz")
    assert outcome == "refused" and answer.kind == "error"
    assert world.service.load(gid).version == version
    assert _row(world, gid, 0).standing_order is None

    outcome, detail, answer = world.say(gid, 0, "default E5")
    assert (outcome, detail) == ("applied", "standing order: E5")
    # Recovering a mail whose worker died after applying it does not apply it again.
    ref = world.service.raw_events(gid)[-1].payload.channel_ref  # type: ignore[attr-defined]
    assert ref is not None and world.service.has_event_from(gid, ref)
    assert answer.kind == "clock" and "Standing order set" in _text(answer)
    assert _row(world, gid, 0).standing_order == "E5"
    assert _row(world, gid, 0).due_at == format_time(start + 48 * HOUR)

    # Bob owes nothing now: his order is kept, to be checked at his deadline.
    outcome, detail, answer = world.say(gid, 1, "default F6")
    assert outcome == "applied" and "checked then" in _text(answer)
    outcome, detail, answer = world.say(gid, 1, "Default none")
    assert outcome == "applied" and _row(world, gid, 1).standing_order is None


def test_away_and_back_in_every_game_of_the_address(world: MailWorld) -> None:
    # Names of their own: the module's database keeps the other tests' games.
    first = _game(world, ("Vera", "Walt"))
    second = _game(world, ("Xena", "Vera"))
    start = world.clock.now()
    past = world.say(first.id, 0, "away until 2001-01-01")
    assert past[0] == "refused" and "already past" in _text(past[2])
    # The same kind of error on the same version: answered once a day (no mail loops), and
    # the log says why.
    inbound = Inbound(
        world.db, world.settings, world.service, world.clock, words=reply_words(world.service)
    )
    garbled = inbound.receive(reply_to(_latest(world, first.id, 0), "away until soon"), "webhook")
    assert garbled.outcome == "refused" and "2026-12-24" in garbled.detail

    back_day = (start + 48 * HOUR).date().isoformat()
    outcome, detail, answer = world.say(first.id, 0, f"away until {back_day}")
    assert outcome == "applied" and "in 2 game(s)" in detail
    told = _text(answer)
    # Said as a sentence: until when, what the allowance is, what is left, what happens when
    # it runs out.
    assert told.count("your clock stops until Wed 04 Jun 2025 00:00 UTC.") == 2, told
    assert f"Lancelot, game {first.id} (this game): your clock stops until" in told
    assert f"Lancelot, game {second.id}: your clock stops until" in told
    assert "This game allows 3 days away in all; after this you have 1 day 9 hours left." in told
    assert "Your deadline there is now Fri 06 Jun 2025 00:00 UTC." in told
    assert "your standing order (if you left one with 'default <move>') or else" in told
    until = format_time(start.replace(hour=0) + 48 * HOUR)
    assert _row(world, first.id, 0).away_until == until
    assert _row(world, second.id, 1).away_until == until
    # Vera owes the first move of the first game: her deadline moves by the time away.
    away_for = start.replace(hour=0) + 48 * HOUR - start
    assert _row(world, first.id, 0).due_at == format_time(start + 48 * HOUR + away_for)

    world.clock.advance(HOUR)
    outcome, detail, answer = world.say(first.id, 0, "back")
    told = _text(answer)
    assert outcome == "applied" and "Welcome back: your time counts again" in told
    assert f"Lancelot, game {first.id} (this game): your clock runs again from now." in told
    assert "This game allows 3 days away in all; you have 2 days 23 hours left." in told
    assert _row(world, first.id, 0).due_at == format_time(start + 49 * HOUR)

    # Away for a month, from an hour after the start: the 3 days' allowance, less the hour
    # used, ends it 72 hours after the start.
    month = (start + 30 * 24 * HOUR).date().isoformat()
    outcome, detail, answer = world.say(second.id, 1, f"away until {month}")
    told = _text(answer)
    assert outcome == "applied" and "You are away until Wed 02 Jul 2025 00:00 UTC." in told
    assert (
        f"Lancelot, game {second.id} (this game): the game's vacation allowance runs out "
        "first, so your clock there stops only until Thu 05 Jun 2025 09:00 UTC and runs "
        "again then. This game allows 3 days away in all; after this you have none left."
    ) in told, told
    assert _row(world, second.id, 1).away_until == format_time(start + 72 * HOUR)
    # Xena is told when Vera's clock runs again, not the day Vera gave
    told_other = _text(_latest(world, second.id, 0))
    assert "the game's vacation allowance runs out at" in told_other, told_other
    assert month not in told_other
    world.clock.advance(HOUR)
    outcome, detail, answer = world.say(second.id, 1, f"away until {month}")
    assert outcome == "refused" and "no vacation allowance left" in _text(answer)
    assert "Your vacation was not recorded in any of your games" in _text(answer)
    assert "pbem time-control" not in _text(answer)  # an operator's command, not a player's


def test_an_extension_and_a_pause_by_consent(world: MailWorld) -> None:
    game = _game(world, ("Alice", "Bob"))
    gid, start = game.id, world.clock.now()
    first = {m.id for m in world.outbox(gid)}
    outcome, detail, answer = world.say(gid, 0, "extend 12h")
    # One mail each: Alice's answer, Bob's question.
    assert sorted(m.seat for m in world.outbox(gid) if m.id not in first) == [0, 1]
    assert (outcome, detail) == ("applied", "asked the others to extend by 12 hours")
    assert "agree extend" in _text(answer)
    assert _row(world, gid, 0).due_at == format_time(start + 48 * HOUR)
    # Bob is asked, and answers that very mail.
    asked = _latest(world, gid, 1)
    assert asked.kind == "clock"
    assert (
        "Alice (Red) asks for 12 hours more before their deadline. Reply 'agree extend' to agree"
        in _text(asked)
    )
    before = {m.id for m in world.outbox(gid)}
    outcome, detail, answer = world.say(gid, 1, "agree extend")
    assert outcome == "applied" and "every player agreed" in detail
    # Alice hears of it once: the notice of the extension (no second mail of the request's).
    told = [m for m in world.outbox(gid) if m.id not in before and m.seat == 0]
    assert len(told) == 1 and "extended" in _text(told[0]), [_text(m) for m in told]
    assert _row(world, gid, 0).due_at == format_time(start + 60 * HOUR)
    # Nothing is waiting now: a second "agree extend" is refused and changes nothing.
    version = world.service.load(gid).version
    outcome, detail, answer = world.say(gid, 1, "agree extend")
    assert outcome == "refused" and "no request to extend" in detail
    assert world.service.load(gid).version == version

    outcome, detail, answer = world.say(gid, 1, "pause")
    assert outcome == "applied" and _row(world, gid, 0).status == "running"
    assert "Bob (Blue) asks to pause the game's clocks" in _text(_latest(world, gid, 0))
    outcome, detail, answer = world.say(gid, 0, "disagree pause")
    assert (outcome, detail) == ("applied", "refused the request to pause")
    told = _latest(world, gid, 1)
    assert "Alice (Red) did not agree, so it is refused" in _text(told)
    assert _row(world, gid, 0).status == "running"


def test_a_seat_whose_invitation_waits_is_not_asked(world: MailWorld) -> None:
    seats = [{"name": "Yves", "email": "yves@example.com"}]
    world.welcome(seats)
    seats.append({"name": "Zoe", "email": "zoe-never-played@example.com"})
    game = world.service.create_game("lancelot", {}, seats, channel="api", time_control=TC)
    before = {m.id for m in world.outbox(game.id)}
    asked = world.service.request_clock_change(game.id, 0, "pause", channel="api")
    assert asked.status == "requested"
    assert [m for m in world.outbox(game.id) if m.id not in before] == []


def test_help_lists_the_clock_commands(world: MailWorld) -> None:
    game = _game(world, ("Hana", "Ivo"))
    outcome, _detail, answer = world.say(game.id, 0, "help")
    assert outcome == "applied" and answer.kind == "help"
    told = _text(answer)
    for words in (
        "default <move>",
        "away until 2026-12-24",
        "extend [24h]",
        "agree extend",
        "time zone Europe/Paris",
    ):
        assert words in told


def test_a_standing_order_written_with_a_colon_is_the_move_alone() -> None:
    from pbem.clock.replies import _LINE

    found = _LINE.match("Default: D4")
    assert found is not None and found.group("order") == "D4"
