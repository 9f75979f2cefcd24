"""What inbound mail is believed, and what an address that has not accepted its invitation
is sent: a delivery report counts only when it cites a mail we sent, and marks only the
addresses that mail went to; a reply to an invitation from another sender, or one that says
nothing, brings the invited address no error showing the position (nor any other mail).
On SQLite and PostgreSQL."""

from __future__ import annotations

import secrets
from datetime import timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage

import pytest
from sqlmodel import select

from pbem.app.bootstrap import reply_words
from pbem.mail.inbound.pipeline import Inbound
from pbem.mail.models import AddressFailure, OutboxMail
from pbem.mail.outbound.compose import rotate_key
from tests.mail.helpers import MailWorld, plain_text, reply_to
from tests.settings import with_mail


def _inbound(world: MailWorld) -> Inbound:
    return Inbound(
        world.db, world.settings, world.service, world.clock, words=reply_words(world.service)
    )


def _body(mail: OutboxMail) -> str:
    message = message_from_bytes(mail.message, policy=policy.default)
    assert isinstance(message, EmailMessage)
    content = plain_text(message)
    assert isinstance(content, str)
    return content


def _report(recipient: str, cited: str) -> bytes:
    """A delivery status report from a mailer daemon, for ``recipient``, citing ``cited``."""
    return (
        "From: MAILER-DAEMON@mx.example.com\r\nTo: games@pbem.test\r\nSubject: Undelivered\r\n"
        f"Message-ID: <dsn.{secrets.token_hex(4)}@mx.example.com>\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b"\r\n\r\n'
        "--b\r\nContent-Type: text/plain\r\n\r\nfailed\r\n"
        "--b\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx\r\n\r\n"
        f"Final-Recipient: rfc822; {recipient}\r\nAction: failed\r\nStatus: 5.1.1\r\n\r\n"
        "--b\r\nContent-Type: text/rfc822-headers\r\n\r\n"
        f"Message-ID: <{cited}>\r\n\r\n--b--\r\n"
    ).encode()


def _failing(world: MailWorld) -> list[str]:
    with world.db.read() as session:
        return sorted(r.address for r in session.exec(select(AddressFailure)))


def test_a_delivery_report_is_believed_only_for_a_mail_we_sent_to_that_address(
    world: MailWorld,
) -> None:
    game = world.new_game()
    alice_mail, bob_mail = world.outbox(game.id)[:2]
    assert (alice_mail.recipient, bob_mail.recipient) == ("alice@example.com", "bob@example.com")
    inbound = _inbound(world)
    # Citing no mail of ours (a Message-ID of our domain that we never sent, then none).
    for cited in ("pbem.x.0123456789abcdef@pbem.test", "anything@mx.example.com"):
        forged = inbound.receive(_report("bob@example.com", cited), "imap")
        assert forged.outcome == "ignored", forged.detail
    # Alice cites a mail she got herself, naming Bob: only her own address could be marked.
    mine = inbound.receive(_report("bob@example.com", alice_mail.message_id), "imap")
    assert mine.outcome == "bounce" and "bob@" not in mine.detail
    assert _failing(world) == ["alice@example.com"]
    inbound.receive(reply_to(alice_mail, "E5"), "imap")
    after = world.outbox(game.id)[2:]
    assert after and not any("Bob (Blue) is bouncing" in _body(m) for m in after)
    assert not any("mail to your address bounced" in _body(m) for m in after if m.seat == 1)
    # A real report, citing the mail that went to Bob, is believed.
    real = inbound.receive(_report("bob@example.com", bob_mail.message_id), "imap")
    assert real.outcome == "bounce" and "bob@example.com" in _failing(world)


def _invited_game(world: MailWorld) -> tuple[str, list[str]]:
    tag = secrets.token_hex(3)
    players = [{"name": n, "email": f"{n.lower()}.{tag}@example.com"} for n in ("Ann", "Bob")]
    game = world.service.create_game("lancelot", {}, players, channel="api", requester="ip:9")
    assert [m.kind for m in world.outbox(game.id)] == ["invitation", "invitation"]
    return game.id, [p["email"] for p in players]


def _sent_after(world: MailWorld, before: set[int]) -> list[OutboxMail]:
    return [m for m in world.outbox() if m.id not in before]


@pytest.mark.parametrize("mismatch", ["refuse", "hold"])
def test_a_reply_to_an_invitation_from_another_sender_sends_nothing(
    world: MailWorld, mismatch: str
) -> None:
    world.settings = with_mail(world.settings, from_mismatch=mismatch)
    game_id, (ann, _) = _invited_game(world)
    invitation = world.outbox(game_id)[0]
    before = {m.id for m in world.outbox()}
    for text in ("E5", "show", "Z99"):
        raw = reply_to(invitation, text, sender="mallory@evil.example")
        result = _inbound(world).receive(raw, "webhook")
        assert result.outcome == "refused", result.detail
    assert _sent_after(world, before) == []
    assert world.service.invitation_waiting(game_id, 0)
    # Ann's own reply is still understood.
    accepted = _inbound(world).receive(reply_to(invitation, "accept"), "webhook")
    assert accepted.outcome == "applied", accepted.detail
    assert [m.recipient for m in _sent_after(world, before)] == [ann]


def test_an_empty_reply_to_an_invitation_is_answered_as_one_without_the_position(
    world: MailWorld,
) -> None:
    game_id, (ann, _) = _invited_game(world)
    before = {m.id for m in world.outbox()}
    result = _inbound(world).receive(reply_to(world.outbox(game_id)[0], ""), "webhook")
    assert result.outcome == "refused", result.detail
    [answer] = _sent_after(world, before)
    assert answer.recipient == ann
    text = _body(answer)
    assert "did not accept" in text
    assert "/games/" not in text and "Game page" not in text and "Version" not in text


def test_mail_we_cannot_route_is_not_answered_to_an_address_only_invited(
    world: MailWorld,
) -> None:
    game_id, (ann, _) = _invited_game(world)
    invitation = world.outbox(game_id)[0]
    before = {m.id for m in world.outbox()}
    # Ann's address, a reply address without its token, no thread of ours.
    raw = reply_to(invitation, "E5", keep_token=False, message_id="lost@client.example")
    raw = raw.replace(f"In-Reply-To: <{invitation.message_id}>".encode(), b"X-Note: none")
    raw = raw.replace(invitation.message_id.encode(), b"elsewhere@client.example")
    result = _inbound(world).receive(raw, "webhook")
    assert result.outcome == "refused", result.detail
    assert _sent_after(world, before) == []
    # An address that plays is still told why its mail went nowhere.
    world.new_game()
    before = {m.id for m in world.outbox()}
    stray = raw.replace(ann.encode(), b"alice@example.com").replace(b"lost@", b"lost2@")
    assert _inbound(world).receive(stray, "webhook").outcome == "refused"
    sent = _sent_after(world, before)
    assert [(m.kind, m.recipient) for m in sent] == [("error", "alice@example.com")]


def test_a_reply_routed_by_a_mail_sent_before_the_key_was_rotated_is_refused(
    world: MailWorld,
) -> None:
    game = world.new_game()
    old = [m for m in world.outbox(game.id) if m.seat == 0][-1]
    world.clock.advance(timedelta(minutes=5))
    with world.db.write() as session:
        rotate_key(session, game.id, 0, world.clock.now())
    # Without the reply address's token, the reply is routed by the mail it answers: that
    # mail went out before the rotation, so its Message-ID is no better than its address.
    result = _inbound(world).receive(reply_to(old, "E5", keep_token=False), "webhook")
    assert result.outcome == "refused", result.detail
    assert "before this seat's links" in result.detail
    assert world.service.load(game.id).version == game.version
    # A mail written since routes as before: Alice's next turn.
    world.clock.advance(timedelta(minutes=5))
    svc = world.service
    for seat, move in ((0, "E5"), (1, "F6")):
        played = svc.submit(
            game.id, seat, move, expected_version=svc.load(game.id).version, channel="api"
        )
        assert played.error is None, played.error
    turn = [m for m in world.outbox(game.id) if m.seat == 0][-1]
    assert turn.kind == "turn" and turn.created_at > old.created_at
    shown = _inbound(world).receive(reply_to(turn, "show", keep_token=False), "webhook")
    assert shown.outcome == "applied", shown.detail
