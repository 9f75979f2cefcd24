"""One reply, one answer: however many ``show``, ``help`` and clock lines a reply holds, it
brings at most one informational mail, and identical lines are applied and answered once
(docs/mail.md). Through the real inbound pipeline, on SQLite and PostgreSQL."""

from __future__ import annotations

from email import message_from_bytes, policy
from email.message import EmailMessage

from pbem.app.bootstrap import build_inbound
from pbem.app.service import Created
from pbem.clock import events as ce
from pbem.mail.models import OutboxMail
from tests.mail.helpers import MailWorld, plain_text, reply_to

TC = {"kind": "fixed", "per_decision": "48h"}


def _text(mail: OutboxMail) -> str:
    message = message_from_bytes(mail.message, policy=policy.default)
    assert isinstance(message, EmailMessage)
    return str(plain_text(message))


def _game(world: MailWorld, names: tuple[str, str]) -> Created:
    seats = [{"name": n, "email": f"{n.lower()}@example.com"} for n in names]
    world.welcome(seats)
    return world.service.create_game("lancelot", {}, seats, channel="api", time_control=TC)


def _reply(world: MailWorld, gid: str, seat: int, body: str) -> tuple[str, list[OutboxMail]]:
    """The reply's outcome and every mail it caused."""
    before = {m.id for m in world.outbox()}
    latest = [m for m in world.outbox(gid) if m.seat == seat][-1]
    result = build_inbound(world.service).receive(reply_to(latest, body), "webhook")
    return result.outcome, [m for m in world.outbox() if m.id not in before]


def test_forty_informational_lines_bring_one_mail(world: MailWorld) -> None:
    game = _game(world, ("Ivy", "Jon"))
    lines = ["show", "help", "time zone Europe/Paris", "Show", "time zone europe/paris"] * 8
    outcome, mails = _reply(world, game.id, 0, "\n".join(lines))
    assert outcome == "applied"
    [answer] = mails
    assert answer.recipient == "ivy@example.com"
    text = _text(answer)
    # Each answer once: the help, the position, the time zone.
    assert text.count("Reply to any mail of this game with commands") == 1
    assert text.count("Time zone set: Europe/Paris") == 1
    assert text.count("You can type, for example:") == 1


def test_forty_identical_standing_orders_append_one_event(world: MailWorld) -> None:
    game = _game(world, ("Kim", "Lou"))
    before = len(world.service.raw_events(game.id))
    outcome, mails = _reply(world, game.id, 0, "\n".join(["default E5"] * 40))
    assert outcome == "applied"
    new = world.service.raw_events(game.id)[before:]
    assert [type(e.payload) for e in new] == [ce.StandingOrderSet]
    [answer] = mails
    assert _text(answer).count("Standing order set") == 1


def test_a_move_with_show_and_help_brings_one_answer_besides_the_games_mails(
    world: MailWorld,
) -> None:
    game = _game(world, ("Max", "Ned"))
    outcome, mails = _reply(world, game.id, 0, "show\nhelp\nE5")
    assert outcome == "applied"
    answers = [m for m in mails if m.recipient == "max@example.com" and m.kind != "turn"]
    informational = [m for m in answers if m.kind in ("help", "show", "clock", "answers")]
    assert len(informational) == 1
    text = _text(informational[0])
    assert "Reply to any mail of this game with commands" in text
    assert "You can type, for example:" in text


def test_a_clock_line_that_changes_the_setting_again_is_applied(world: MailWorld) -> None:
    game = _game(world, ("Ora", "Pim"))
    before = len(world.service.raw_events(game.id))
    outcome, mails = _reply(world, game.id, 0, "default E5\ndefault none\ndefault E5")
    assert outcome == "applied"
    orders = [e.payload for e in world.service.raw_events(game.id)[before:]]
    assert [getattr(p, "text", "?") for p in orders] == ["E5", None, "E5"]
    [answer] = mails
    assert answer.kind == "clock"
    # Each answer once, in the order that ends with what holds now.
    text = _text(answer)
    assert text.count("Standing order set") == 1
    assert text.index("Your standing order is cleared") < text.index("Standing order set")
