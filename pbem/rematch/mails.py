"""The mails of a rematch: in the finished game, a notice to every seat when a rematch is
proposed, agreed to, declined or started (what it is, who agreed, who is awaited, how to
answer); in the new game, a line in its first mails saying which game it is a rematch of.
The outbox asks these through the table the composition root fills
(``pbem.mail.outbound.mail_planners``)."""

from __future__ import annotations

import json
from collections.abc import Callable

from pbem.core.repository import SeatInfo
from pbem.mail.outbound.mail_planners import (
    AppendMails,
    Mail,
    MailPlanner,
    SeatMail,
    StandingNotice,
)
from pbem.rematch import events as re
from pbem.rematch import projection as rp
from pbem.rematch.display import seating_words
from pbem.rematch.models import RematchProposal

#: How a finished game's mails say a rematch is asked for (the end mail's last lines).
OFFER = (
    "To play again with the same players, reply 'rematch' (the seats rotated by one) or "
    "'rematch same seats'; it starts when every player agrees."
)


def game_url(append: AppendMails, game_id: str) -> str:
    return f"{append.settings.base_url.rstrip('/')}/games/{game_id}"


def _news(append: AppendMails) -> SeatMail | None:
    event = next((e for e in append.events if e.type in _NEWS), None)
    if event is None:
        return None
    p = event.payload
    if isinstance(p, re.RematchProposed):
        proposal = event.version
    elif isinstance(p, re.RematchAgreed | re.RematchDeclined | re.RematchStarted):
        proposal = p.proposal
    else:
        return None
    row = append.session.get(RematchProposal, (append.ctx.game_id, proposal))
    if row is None:
        return None
    names = append.names
    agreed = set(json.loads(row.agreed_by))
    waiting = [s.seat for s in append.ctx.seats if s.seat not in agreed]
    how = seating_words(row.seating)

    def mail(seat: SeatInfo) -> Mail:
        you = seat.seat
        if row.status == rp.STARTED and row.new_game_id:
            headline = f"the rematch has started: game {row.new_game_id}."
            asked = (
                f"The new game ({how}): {game_url(append, row.new_game_id)}\n"
                "Its first mail, with your own link and your reply address, comes separately."
            )
        elif row.status == rp.DECLINED and row.declined_by is not None:
            who = "You" if row.declined_by == you else names.of(row.declined_by)
            headline = f"no rematch: {who} declined it."
            asked = "Anyone may propose another with 'rematch'."
        else:
            headline = f"{names.of(row.seat)} proposes a rematch ({how})."
            if you == row.seat:
                headline = f"you propose a rematch ({how})."
            awaited = names.many(waiting) if waiting else "nobody"
            if you in agreed:
                asked = f"You agreed. Waiting for: {awaited}."
            else:
                asked = (
                    "Reply 'rematch' to agree, or 'rematch no' to decline, on a line of its "
                    f"own. It starts when every player agrees. Waiting for: {awaited}."
                )
        return Mail("notice", append.notice(seat, headline, asked))

    return mail


def _origin(append: AppendMails) -> Callable[[int], str] | None:
    made = append.first(re.REMATCH_OF)
    if made is None or not isinstance(p := made.payload, re.RematchOf):
        return None
    line = (
        f"A rematch of game {p.game_id} ({seating_words(p.seating)}): {game_url(append, p.game_id)}"
    )
    return lambda _seat: line


_NEWS = frozenset({re.REMATCH_PROPOSED, re.REMATCH_AGREED, re.REMATCH_DECLINED, re.REMATCH_STARTED})

#: A rematch proposed, agreed to, declined or started: every seat of the finished game hears.
NEWS = MailPlanner(_news, on=_NEWS)
#: The new game's first mails say which game it is a rematch of.
ORIGIN = StandingNotice(_origin, on=frozenset({re.REMATCH_OF}))
