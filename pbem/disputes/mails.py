"""The mails of disputes: the notice every seat gets when a dispute is opened or resolved, and
the lines every mail carries while one is open (what it is about, how to answer). The outbox
asks these planners through the table the composition root fills
(``pbem.mail.outbound.mail_planners``)."""

from __future__ import annotations

import json
from collections.abc import Callable

from pbem.core import store
from pbem.disputes import events as dispute_events
from pbem.disputes.notices import dispute_headline, dispute_notice
from pbem.disputes.projection import open_disputes
from pbem.disputes.rules import administrator_only
from pbem.mail.outbound.mail_planners import (
    AppendMails,
    Mail,
    MailPlanner,
    SeatMail,
    StandingNotice,
)


def _open_dispute_lines(append: AppendMails) -> Callable[[int], str] | None:
    # Read once for every seat's mail, and only when one is open.
    if not append.facts.dispute_open:
        return None
    disputes = open_disputes(append.session, append.ctx.game_id)
    if not disputes:
        return None
    # Retractions come after what they retract: the log from the disputed moves on says
    # whether consent could uphold each.
    firsts = {d.dispute: min(json.loads(d.versions)) for d in disputes}
    log = store.read(append.session, append.ctx.game_id, after=min(firsts.values()) - 1)
    consent_possible = {n: not administrator_only(log, v) for n, v in firsts.items()}
    names = append.names

    def lines(viewer: int) -> str:
        return "\n".join(
            dispute_notice(d, viewer, names, consent_possible=consent_possible[d.dispute])
            for d in disputes
        )

    return lines


def _news(append: AppendMails) -> SeatMail | None:
    headline = dispute_headline(append.events)
    if headline is None:
        return None
    return lambda seat: Mail("notice", append.notice(seat, headline))


#: While a dispute is open, every mail says what it is about and how to answer it.
OPEN_DISPUTES = StandingNotice(_open_dispute_lines)
#: A dispute was opened or resolved: a notice to every seat.
NEWS = MailPlanner(
    _news, on=frozenset({dispute_events.DISPUTE_OPENED, dispute_events.DISPUTE_RESOLVED})
)
