"""The outbox: mails written with the events that caused them.

``OutboxListener.on_appended`` runs inside the game service's write transaction, so a move
and its notifications commit together or not at all. Per append, each seat with an address
gets at most one mail, as the features' mail planners plan it (``pbem.mail.outbound.
mail_planners``: the table, filled in ``pbem.app.bootstrap.mail_planners``, says in which
order they decide). Among them:

- the game ended: the final scores, the board and the revealed seed, to every seat
  (``pbem.play.mails``);
- the seat is (newly) to act: "your turn" (not to an address that chose the daily digest,
  ``pbem.clock.digest``: its game is listed there instead); the seat acted: a confirmation
  (``mail.confirmations``; a secret action always gets one, as it carries the vote's salt);
- another seat asks to undo: the request, to answer with ``accept`` or ``decline``; undo, an
  undo request that lapsed (``pbem.undo.mails``);
- a dispute opened or resolved: a notice to every seat (every mail says while one is open,
  ``pbem.disputes.mails``);
- the game's clock: a deadline missed (who was late, what was played for them), an
  extension, a pause, a vacation, a new time control: a notice to every seat (not to the
  seat that went away or asked for the pause itself); a turn mail says when its deadline is
  (``pbem.clock.mail_news``);
- table talk: a message's own mail to its recipients, sent after a minute unless a turn mail
  written meanwhile carries it (``pbem.talk.mails``, ``pbem.talk.coalescing``);
- the start of the game, and invitations (``pbem.create.mails``): a seat whose address had
  never played is invited: at the start of the game it gets an invitation instead, and then
  nothing until its player accepts; the append that records the acceptance brings it the
  game as it stands (its turn, or a notice with the board), never the stale mails it missed.

The relay that sends these mails is ``pbem.mail.outbound.relay``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pbem.app.config import Settings
from pbem.core import store
from pbem.core.cache import EventTails
from pbem.core.events import StoredEvent
from pbem.core.hot_path import insert_rows
from pbem.core.repository import SeatInfo
from pbem.core.time_source import Clock, SystemClock, format_time
from pbem.core.unit_of_work import AppendContext
from pbem.mail.models import OutboxMail
from pbem.mail.outbound import compose as c
from pbem.mail.outbound.mail_planners import NO_MAIL, AppendMails, Mail, MailPlanners

#: How many events before an append the listener reads to write "since your last move".
HISTORY_WINDOW = 100


class OutboxListener:
    """Writes the notification mails of every append, in the append's transaction, as
    ``planners`` plan them."""

    def __init__(
        self, settings: Settings, planners: MailPlanners, clock: Clock | None = None
    ) -> None:
        self.settings = settings
        self.planners = planners
        self.clock: Clock = clock or SystemClock()
        # The log's tail of each game, continued with every append instead of read again.
        self.tails: EventTails[StoredEvent] = EventTails(
            settings.state_cache_size, HISTORY_WINDOW + 16
        )

    def on_appended(self, ctx: AppendContext) -> None:
        mails = plan_mails(ctx, self.settings, self.clock.now(), self.planners, self.tails)
        # Rows, not ORM objects to track: nothing reads them back in this transaction, and
        # this runs for every move.
        insert_rows(ctx.session, OutboxMail, mails)


def plan_mails(
    ctx: AppendContext,
    settings: Settings,
    now: datetime,
    planners: MailPlanners,
    tails: EventTails[StoredEvent] | None = None,
) -> list[dict[str, Any]]:
    """The mails of one append, as outbox rows, as ``planners`` plan them (``tails``: the
    listener's cache of the log's tail)."""
    new = ctx.events
    if not any(s.email for s in ctx.seats):
        return []
    before = new[0].version - 1
    # The tail of the log is enough: a mail shows at most MAX_SINCE lines of it, and what a
    # seat may see of an event depends only on the events after it (reveals) and on
    # retractions, which name later versions only. Reading it all would grow with the game.
    after = max(0, before - HISTORY_WINDOW)

    def read(after: int) -> list[StoredEvent]:
        return store.read(ctx.session, ctx.game_id, after=after)

    history = read(after) if tails is None else tails.after(ctx.game_id, after, new, read)
    facts = c.mail_facts(ctx.session, ctx.game_id, [s.email or "" for s in ctx.seats])
    ctx.shared[c.WEBHOOK_FACTS] = facts.webhook_subscriptions
    append = AppendMails(ctx, settings, now, history, facts)
    for standing in planners.notices_for(append.types):
        if (lines := standing.write(append)) is not None:
            append.add_notices(lines)
    seat_mails = [
        mail
        for planner in planners.mails_for(append.types)
        if (mail := planner.plan(append)) is not None
    ]
    subject = c.subject_for(ctx.rules, ctx.game_id)
    mails = []
    settled: list[tuple[SeatInfo, Mail]] = []
    for seat in ctx.seats:
        if not seat.email:
            continue
        planned = next((m for seat_mail in seat_mails if (m := seat_mail(seat)) is not None), None)
        if planned is None or planned is NO_MAIL:
            continue
        settled.append((seat, planned))
        mails.append(
            c.outbox_row(
                settings,
                kind=planned.kind,
                game_id=ctx.game_id,
                seat=seat.seat,
                to_name=seat.name,
                to_address=seat.email,
                subject=subject,
                text=planned.text,
                now=now,
                version=ctx.version,
                head_hash=ctx.head_hash,
                reply_to=c.seat_reply_address(
                    ctx.session,
                    settings,
                    ctx.game_id,
                    seat.seat,
                    ctx.version,
                    append.key_version(seat.seat),
                )
                if planned.answerable
                else None,
                board=append.board(seat.seat),
            )
        )
        if planned.not_before:
            mails[-1]["next_attempt_at"] = format_time(now + planned.not_before)
    for settle in planners.settle:
        settle(append, settled)
    return mails
