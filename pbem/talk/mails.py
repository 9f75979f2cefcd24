"""The mails of table talk. A message reaches only its recipients (every other seat, for
``say``): each gets a mail of its own within a minute, in the game's thread and answerable like
every mail of the game, whose "What happened" lists the message (and only what that seat may
see: its own board, never another seat's view). Its writer gets no copy (the page and the
API show it; a reply by mail is answered only when it fails). A seat's next turn mail lists
the messages written to it since its last move among what happened: when that mail is
written within the minute, the message's own mail is dropped (``pbem.talk.coalescing``), so
a message beside a move arrives with the turn it brings.

Nobody else gets a mail for a message, nor for the administrator hiding one (the page shows
the reason in its place): the outbox asks this planner before the others for these appends
(``pbem.app.bootstrap.mail_planners``), and it answers ``NO_MAIL`` for everyone not mailed.
"""

from __future__ import annotations

from pbem.core.repository import SeatInfo
from pbem.mail.outbound.mail_planners import NO_MAIL, AppendMails, Mail, MailPlanner, SeatMail
from pbem.talk import events as talk_events
from pbem.talk.coalescing import DELAY
from pbem.talk.visibility import may_read


def _talk(append: AppendMails) -> SeatMail | None:
    messages = [p for e in append.events if isinstance(p := e.payload, talk_events.TableTalkSent)]

    def mail(seat: SeatInfo) -> Mail | None:
        mine = [m for m in messages if m.seat != seat.seat and may_read(m, seat.seat)]
        if not mine:
            return NO_MAIL
        writer = append.names.of(mine[0].seat)
        headline = (
            f"{writer} writes to everyone"
            if not mine[0].recipients
            else f"{writer} writes to {append.names.many(mine[0].recipients)}"
        )
        first_name = append.names.people[mine[0].seat]
        asked = (
            "To answer, write on a line of your reply 'say <your words>' (to everyone) or "
            f"'to {first_name}: <your words>' (to {first_name} alone)."
        )
        # It waits a minute: a turn mail written meanwhile carries it instead (coalescing).
        return Mail("talk", append.notice(seat, headline, asked), not_before=DELAY)

    return mail


#: A message: its own mail to each of its recipients; nothing to anyone else.
TALK = MailPlanner(_talk, on=talk_events.TALK_TYPES)
