"""Replies written from a ``mailto:`` link of our mails: the body is a move's canonical text
(``format_action``), maybe with the mail program's signature under it, the subject "Re: …",
and no In-Reply-To or References (a new mail, not a reply). They are routed by the reply
address alone and applied, through the real inbound pipeline, as the mail programs write
them: plain text (iPhone, Android), multipart with an HTML part (Gmail, Outlook), flowed
text (Thunderbird, Apple Mail)."""

from __future__ import annotations

import secrets
from email import message_from_bytes, policy
from email.message import EmailMessage

import pytest

from pbem.app.bootstrap import build_inbound
from pbem.mail.models import OutboxMail
from tests.mail.helpers import MailWorld


def _latest(world: MailWorld, game_id: str, seat: int) -> OutboxMail:
    return [m for m in world.outbox(game_id) if m.seat == seat][-1]


def mailto_reply(
    mail: OutboxMail, body: str, *, html: str | None = None, flowed: bool = False
) -> bytes:
    """The mail a mail program sends from a ``mailto:`` link to ``mail``'s reply address
    with ``body``: no In-Reply-To, no References, the subject "Re: …"."""
    original = message_from_bytes(mail.message, policy=policy.default)
    assert isinstance(original, EmailMessage)
    sender = original["To"].addresses[0].addr_spec
    reply = EmailMessage()
    reply["From"] = f"Player <{sender}>"
    reply["To"] = original["Reply-To"].addresses[0].addr_spec
    reply["Subject"] = f"Re: {original['Subject']}"
    reply["Message-ID"] = f"<mailto.{secrets.token_hex(6)}@client.example>"
    if flowed:
        reply.set_content(body, params={"format": "flowed"})
    else:
        reply.set_content(body)
    if html is not None:
        reply.add_alternative(html, subtype="html")
    raw = reply.as_bytes()
    assert b"In-Reply-To" not in raw and b"References" not in raw
    return raw


SIGNATURES = [
    "",
    "\n\nSent from my iPhone",
    "\n-- \nAnn",
    "\n\n--\nAnn Smith\n+44 20 7946 0000",
    "\n\nGet Outlook for iOS",
    "\n\nSent from my Galaxy",
]


@pytest.mark.parametrize("signature", SIGNATURES)
def test_a_mailto_reply_of_the_canonical_text_is_applied(world: MailWorld, signature: str) -> None:
    game = world.new_game()
    inbound = build_inbound(world.service)
    raw = mailto_reply(_latest(world, game.id, 0), "E5" + signature)
    result = inbound.receive(raw, "webhook")
    assert (result.outcome, result.detail) == ("applied", "E5")
    assert world.service.load(game.id).version == game.version + 1


def test_mailto_replies_as_gmail_and_thunderbird_write_them_are_applied(world: MailWorld) -> None:
    game = world.new_game()
    inbound = build_inbound(world.service)
    gmail = mailto_reply(
        _latest(world, game.id, 0),
        "E5\n\n-- \nAlice",
        html=(
            '<div dir="ltr">E5</div><br clear="all"><div><br></div>'
            '<span class="gmail_signature_prefix">-- </span><br>'
            '<div dir="ltr" class="gmail_signature">Alice</div>'
        ),
    )
    assert inbound.receive(gmail, "webhook").outcome == "applied"
    flowed = mailto_reply(_latest(world, game.id, 1), "F6\n\n-- \nBob", flowed=True)
    result = inbound.receive(flowed, "webhook")
    assert (result.outcome, result.detail) == ("applied", "F6")
    events = world.service.raw_events(game.id)
    assert [e.data["canonical"] for e in events[-2:]] == ["E5", "F6"]


def test_a_mailto_reply_of_a_long_canonical_text_is_applied(world: MailWorld) -> None:
    """Lancaster's placement, the longest kind of canonical text, from an iPhone."""
    names = ["Ann", "Bob", "Cat"]
    gid = world.service.create_game(
        "lancaster",
        {},
        [{"name": n, "email": f"{n.lower()}.mailto@example.com"} for n in names],
        channel="api",
    ).id
    inbound = build_inbound(world.service)
    for seat in range(3):
        raw = mailto_reply(
            _latest(world, gid, seat), f"extension {seat + 1}\n\nSent from my iPhone"
        )
        assert inbound.receive(raw, "webhook").outcome == "applied"
    seat = min(world.service.load(gid).to_act)
    raw = mailto_reply(
        _latest(world, gid, seat), "knight 2 to C with 1 squire\n\nSent from my iPhone"
    )
    result = inbound.receive(raw, "webhook")
    assert (result.outcome, result.detail) == ("applied", "knight 2 to C with 1 squire")


def test_a_mailto_reply_from_another_address_is_not_applied(world: MailWorld) -> None:
    """The reply address alone routes it, and only for the seat's own address."""
    game = world.new_game()
    raw = mailto_reply(_latest(world, game.id, 0), "E5").replace(
        b"alice@example.com>", b"mallory@example.net>", 1
    )
    result = build_inbound(world.service).receive(raw, "webhook")
    assert result.outcome != "applied"
    assert world.service.load(game.id).version == game.version
