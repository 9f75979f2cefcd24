"""A message's mail folded into the turn mail that carries it.

A message's own mail waits ``DELAY`` (a minute) in the outbox before the relay sends it
(``pbem.talk.mails``). When, meanwhile, an append mails its recipient the turn ("your turn",
whose "Since your last move" lists the messages written to the seat since it last acted),
and that mail holds the message's words, the waiting mail is dropped: the seat gets one mail,
not two. A "say hi" beside a move in one reply is so read with the turn it brings.

It runs when the outbox has planned an append's mails, in the append's transaction
(``MailPlanners.settle``, filled in ``pbem.app.bootstrap.mail_planners``): the turn mail and
the dropping commit together. The waiting talk mails are read with the facts every move's
mails read (``compose.mail_facts``, one statement), so a move with none waiting costs nothing
more. Only a talk mail still waiting (pending, never tried, not yet due) is dropped: the relay
does not take a mail before it is due, so one it may be sending is never touched; at worst (a
turn written in the very second the minute ends) the seat reads the message twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from sqlalchemy import delete
from sqlmodel import col

from pbem.core.repository import SeatInfo
from pbem.core.time_source import format_time
from pbem.mail.models import PENDING, OutboxMail
from pbem.mail.outbound.mail_planners import AppendMails, Mail
from pbem.talk import events as talk_events

#: How long a message's own mail waits for a turn mail to carry it.
DELAY = timedelta(minutes=1)
#: The mails that list the seat's news since its last move (``pbem.play.mails``).
CARRIERS = frozenset({"turn"})


def drop_carried(append: AppendMails, planned: Sequence[tuple[SeatInfo, Mail]]) -> None:
    """Drop each waiting talk mail whose message a turn mail planned for the same seat
    carries (``MailPlanners.settle``)."""
    waiting = append.facts.waiting_talk
    if not waiting or append.types & talk_events.TALK_TYPES:
        return  # nothing waits, or a message's append, which writes only its own mails
    texts = {
        e.version: " ".join(p.text.split())
        for e in append.history
        if isinstance(p := e.payload, talk_events.TableTalkSent)
    }
    now = format_time(append.now)
    for seat, mail in planned:
        if mail.kind not in CARRIERS:
            continue
        words = " ".join(mail.text.split())
        for waiting_seat, version in waiting:
            text = texts.get(version)
            if waiting_seat != seat.seat or text is None or text not in words:
                continue
            append.session.execute(
                delete(OutboxMail).where(
                    col(OutboxMail.game_id) == append.ctx.game_id,
                    col(OutboxMail.seat) == seat.seat,
                    col(OutboxMail.version) == version,
                    col(OutboxMail.kind) == "talk",
                    col(OutboxMail.status) == PENDING,
                    col(OutboxMail.attempts) == 0,
                    col(OutboxMail.next_attempt_at) > now,
                )
            )
