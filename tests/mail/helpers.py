"""Helpers of the mail suite: a game service with the mail outbox, its settings, and replies
written as a mail client would write them."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage

from sqlalchemy import delete
from sqlmodel import col, select

from pbem.app.bootstrap import build_inbound
from pbem.app.config import Settings
from pbem.app.service import Created, GameService
from pbem.core.db import Database
from pbem.core.time_source import ManualClock
from pbem.create.invitations import has_played
from pbem.mail.models import OutboxMail


@dataclass
class MailWorld:
    db: Database
    settings: Settings
    clock: ManualClock
    service: GameService

    def outbox(self, game_id: str | None = None) -> list[OutboxMail]:
        with self.db.read() as session:
            query = select(OutboxMail).order_by(col(OutboxMail.id))
            if game_id is not None:
                query = query.where(OutboxMail.game_id == game_id)
            rows = list(session.exec(query))
            session.expunge_all()  # keep them readable after the read's rollback
            return rows

    def new_game(self, players: int = 2, **config: object) -> Created:
        names = ["Alice", "Bob", "Carol", "Dave", "Erin"][:players]
        seats = [{"name": n, "email": f"{n.lower()}@example.com"} for n in names]
        self.welcome(seats)
        return self.service.create_game(
            "lancelot", {"players": players, **config}, seats, channel="api"
        )

    def say(self, game_id: str, seat: int, text: str) -> tuple[str, str, OutboxMail]:
        """Reply ``text`` to the seat's latest mail of the game, through the real inbound
        pipeline: (outcome, detail, the last mail it caused)."""
        inbound = build_inbound(self.service)
        before = {m.id for m in self.outbox()}
        latest = [m for m in self.outbox(game_id) if m.seat == seat][-1]
        result = inbound.receive(reply_to(latest, text), "webhook")
        new = [m for m in self.outbox() if m.id not in before]
        assert new, (result.outcome, result.detail)
        return result.outcome, result.detail, new[-1]

    def welcome(self, seats: list[dict[str, str]]) -> None:
        """Players new to the service first accept an invitation, as a person does: each
        replies "accept" to the invitation of a game of their own. From then on their address
        has played, and their games mail them as players. That game's mails are removed, so
        that a test sees only the mails of the games it plays."""
        with self.db.read() as session:
            new = [s for s in seats if s["email"] and not has_played(session, s["email"])]
        if not new:
            return
        others = [{"name": "Stranger"}] if len(new) < 2 else []
        game = self.service.create_game("lancelot", {}, [*new, *others], channel="api")
        inbound = build_inbound(self.service)
        for invitation in self.outbox(game.id):
            result = inbound.receive(reply_to(invitation, "accept"), "webhook")
            assert result.outcome == "applied", result.detail
        with self.db.write() as session:
            session.exec(delete(OutboxMail).where(col(OutboxMail.game_id) == game.id))


def mail_text(mail: OutboxMail) -> str:
    """The text body of an outbox mail, as its reader sees it."""
    return text_part(mail.message)


def plain_text(message: object) -> str:
    """The text/plain part of a parsed mail (each of ours is multipart/alternative: text and
    HTML), as a reader who prefers plain text sees it."""
    assert isinstance(message, EmailMessage)
    part = message.get_body(("plain",))
    assert part is not None, "the mail has no text/plain part"
    content = part.get_content()
    assert isinstance(content, str)
    # Lines as a mail program shows them (a part of a multipart mail keeps its CRLFs).
    return content.replace("\r\n", "\n")


def text_part(raw: bytes) -> str:
    """The text/plain part of a mail we sent (each is multipart/alternative: text and HTML),
    as a reader who prefers plain text sees it."""
    message = message_from_bytes(raw, policy=policy.default)
    assert isinstance(message, EmailMessage)
    part = message.get_body(("plain",))
    assert part is not None, "the mail has no text/plain part"
    content = part.get_content()
    assert isinstance(content, str)
    # Lines as a mail program shows them (a part of a multipart mail keeps its CRLFs).
    return content.replace("\r\n", "\n")


def reply_to(
    mail: OutboxMail | bytes,
    body: str,
    *,
    sender: str | None = None,
    message_id: str | None = None,
    keep_token: bool = True,
) -> bytes:
    """A plain-text reply to one of our mails (an outbox row, or the raw mail as received),
    as a mail client would write it: the commands on top, then the attribution and the
    quoted mail."""
    raw = mail if isinstance(mail, bytes) else mail.message
    original = message_from_bytes(raw, policy=policy.default)
    assert isinstance(original, EmailMessage)
    own_id = str(original["Message-ID"]).strip("<>")
    recipient = original["To"].addresses[0].addr_spec
    to = original["Reply-To"].addresses[0].addr_spec if original["Reply-To"] else ""
    if not keep_token:
        to = "play@" + to.rpartition("@")[2]
    quoted = "\n".join("> " + line for line in text_part(raw).splitlines())
    ident = message_id or f"reply.{secrets.token_hex(6)}@client.example"
    return (
        f"From: Player <{sender or recipient}>\r\n"
        f"To: {to}\r\n"
        f"Subject: Re: {original['Subject']}\r\n"
        f"Message-ID: <{ident}>\r\n"
        f"In-Reply-To: <{own_id}>\r\n"
        f"References: {original['References']} <{own_id}>\r\n"
        "MIME-Version: 1.0\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
        "\r\n"
        f"{body}\r\n\r\nOn Mon, 2 Jun 2025 at 09:00, pbem wrote:\r\n{quoted}\r\n"
    ).encode()
