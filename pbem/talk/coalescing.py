"""A message's mail folded into the turn mail that carries it.

A message's own mail waits ``DELAY`` (a minute) in the outbox before the relay sends it
(``pbem.talk.mails``). When, meanwhile, an append mails its recipient the turn ("your turn",
whose "Since your last move" lists the messages written to the seat since it last acted),
and that mail holds the message's words, the waiting mail is dropped: the seat gets one mail,
not two. A "say hi" beside a move in one reply is so read with the turn it brings.

It is a listener of every append (``pbem.app.bootstrap.default_listeners``), after the outbox
listener, in the same transaction: the turn mail and the dropping commit together. It only
ever drops a talk mail that is still waiting (pending, never tried, not yet due): the relay
does not lease a mail before it is due, so a mail it may be sending is never touched; at
worst (a turn written in the very second the minute ends) the seat reads the message twice.
"""

from __future__ import annotations

from datetime import timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage

from sqlmodel import col, select

from pbem.core.time_source import Clock, SystemClock, format_time
from pbem.core.unit_of_work import AppendContext
from pbem.mail.models import PENDING, OutboxMail
from pbem.talk import events as talk_events
from pbem.talk.projection import TableTalk

#: How long a message's own mail waits for a turn mail to carry it.
DELAY = timedelta(minutes=1)
#: The mails that list the seat's news since its last move (``pbem.play.mails``).
CARRIERS = ("turn",)


class TalkCoalescing:
    """Drops the waiting talk mails whose messages a turn mail of the append carries."""

    def __init__(self, clock: Clock | None = None) -> None:
        self.clock: Clock = clock or SystemClock()

    def on_appended(self, ctx: AppendContext) -> None:
        if any(e.type in talk_events.TALK_TYPES for e in ctx.events):
            return  # a message's append writes only its own mails
        session = ctx.session
        carriers = session.exec(
            select(OutboxMail).where(
                OutboxMail.game_id == ctx.game_id,
                OutboxMail.version == ctx.version,
                col(OutboxMail.kind).in_(CARRIERS),
            )
        ).all()
        now = format_time(self.clock.now())
        for carrier in carriers:
            waiting = session.exec(
                select(OutboxMail).where(
                    OutboxMail.game_id == ctx.game_id,
                    OutboxMail.seat == carrier.seat,
                    OutboxMail.kind == "talk",
                    OutboxMail.status == PENDING,
                    OutboxMail.attempts == 0,
                    col(OutboxMail.next_attempt_at) > now,
                )
            ).all()
            if not waiting:
                continue
            text = _words(carrier.message)
            for mail in waiting:
                message = session.get(TableTalk, (ctx.game_id, mail.version))
                if message is not None and " ".join(message.text.split()) in text:
                    session.delete(mail)


def _words(raw: bytes) -> str:
    """A mail's text part, whitespace runs as one space (a long line may be wrapped)."""
    parsed = message_from_bytes(raw, policy=policy.default)
    if not isinstance(parsed, EmailMessage):
        return ""
    part = parsed.get_body(("plain",))
    content = part.get_content() if part is not None else ""
    return " ".join(str(content).split())
