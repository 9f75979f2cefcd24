"""Several seats' disputes open at once, by mail (docs/deadlines.md): one seat's dispute
waiting for the administrator does not stop another from opening its own; every mail then
tells of each; and an ``agree`` that names none asks which. Through the inbound pipeline, on
SQLite and PostgreSQL."""

from __future__ import annotations

from email import message_from_bytes, policy
from email.message import EmailMessage

from pbem.app.bootstrap import build_inbound
from pbem.mail.models import OutboxMail
from tests.mail.helpers import MailWorld, plain_text, reply_to


def _text(mail: OutboxMail) -> str:
    message = message_from_bytes(mail.message, policy=policy.default)
    assert isinstance(message, EmailMessage)
    return " ".join(str(plain_text(message)).split())


def test_two_seats_dispute_at_once_and_an_answer_names_which(world: MailWorld) -> None:
    game = world.new_game(players=3)
    gid = game.id
    loaded = world.service.load(gid)
    world.service.submit(gid, 0, "D4", expected_version=loaded.version, channel="api")
    move = world.service.load(gid).version

    outcome, detail, _ = world.say(gid, 1, f"dispute {move}: Alice never sent D4")
    assert (outcome, detail) == ("applied", f"dispute {move + 1} opened")
    outcome, detail, _ = world.say(gid, 2, f"dispute {move}: nor did I see it")
    assert (outcome, detail) == ("applied", f"dispute {move + 2} opened")

    alice = [m for m in world.outbox(gid) if m.seat == 0][-1]
    told = _text(alice)
    assert f"Dispute {move + 1}: Bob" in told and f"Dispute {move + 2}: Carol" in told

    outcome, detail, answer = world.say(gid, 0, "agree")
    assert outcome == "refused"
    assert f"Disputes {move + 1}, {move + 2} are open: say which you answer" in _text(answer)
    latest = [m for m in world.outbox(gid) if m.seat == 0][-1]
    named = build_inbound(world.service).receive(reply_to(latest, f"disagree {move + 1}"), "dev")
    assert (named.outcome, named.detail) == ("applied", f"disagree {move + 1}")
    [bobs] = [d for d in world.service.disputes_of(gid) if d["dispute"] == move + 1]
    assert bobs["disagreed"] == [0]
