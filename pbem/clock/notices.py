"""The mails of the clock's requests (``pbem.clock.consent``), written in the transaction of
the append like the outbox's: when a seat asks to extend its deadline, to pause or to
resume, every other seat is asked to answer; when one refuses, the others are told (the one
who refused has its answer). A request granted is told by the outbox's notice of the
extension, pause or resumption it appends (``pbem.clock.mail_news``), so not here.

A listener of its own so that appends without a request (nearly all) cost one look at the
event types.
"""

from __future__ import annotations

from datetime import datetime

from pbem.app.config import Settings
from pbem.clock import events as ce
from pbem.clock.time_control import format_duration
from pbem.core import store
from pbem.core.time_source import Clock, SystemClock
from pbem.core.unit_of_work import AppendContext
from pbem.create import invitations
from pbem.mail.models import OutboxMail
from pbem.mail.outbound import compose as c

_TYPES = frozenset({ce.CLOCK_REQUESTED, ce.CLOCK_REQUEST_ANSWERED})


class ClockNotices:
    def __init__(self, settings: Settings, clock: Clock | None = None) -> None:
        self.settings = settings
        self.clock: Clock = clock or SystemClock()

    def on_appended(self, ctx: AppendContext) -> None:
        if not any(e.type in _TYPES for e in ctx.events):
            return
        for mail in plan(ctx, self.settings, self.clock.now()):
            ctx.session.add(mail)


def _asked(p: ce.ClockRequested, who: str) -> str:
    if p.what == "extend":
        return f"{who} asks for {format_duration(p.seconds or 0)} more before their deadline"
    return f"{who} asks to {p.what} the game's clocks"


def plan(ctx: AppendContext, settings: Settings, now: datetime) -> list[OutboxMail]:
    names = ctx.names
    payloads = [e.payload for e in ctx.events]
    asked = next((p for p in payloads if isinstance(p, ce.ClockRequested)), None)
    answer = next((p for p in payloads if isinstance(p, ce.ClockRequestAnswered)), None)
    granted = any(
        getattr(p, "by", None) == "consent"
        and isinstance(p, ce.DeadlineExtended | ce.GamePaused | ce.GameResumed)
        for p in payloads
    )
    texts: dict[int, str] = {}
    if asked is not None and not granted:
        what = asked.what
        line = (
            f"{_asked(asked, names.of(asked.seat))}. Reply 'agree {what}' to agree, or "
            f"'disagree {what}'. The last agreement grants it; one disagreement refuses it."
        )
        texts = {s.seat: line for s in ctx.seats if s.seat != asked.seat and not s.resigned}
    elif answer is not None and not granted and not answer.agree:
        found = store.read(ctx.session, ctx.game_id, answer.request - 1, answer.request)
        request = found[0].payload if found else None
        if not isinstance(request, ce.ClockRequested):
            return []
        subject = _asked(request, names.of(request.seat))
        line = f"{subject}: {names.of(answer.seat)} did not agree, so it is refused."
        texts = {s.seat: line for s in ctx.seats if s.seat != answer.seat}
    if not texts:
        return []
    waiting = invitations.waiting_seats(ctx.session, ctx.game_id, ctx.seats)
    mails = []
    for seat in ctx.seats:
        text = texts.get(seat.seat)
        if text is None or not seat.email or seat.seat in waiting:
            continue
        body = "\n\n".join(
            [
                c.MARKER,
                f"{ctx.rules.name.title()}, game {ctx.game_id}: the clock.",
                text,
                f"Game page: {c.seat_link(ctx.session, settings, ctx.game_id, seat.seat)}",
                c.receipt(ctx.version, ctx.head_hash),
            ]
        )
        mails.append(
            c.outbox_mail(
                settings,
                kind="clock",
                game_id=ctx.game_id,
                seat=seat.seat,
                to_name=seat.name,
                to_address=seat.email,
                subject=c.subject_of(ctx.game, ctx.game_id),
                text=body + "\n",
                now=now,
                version=ctx.version,
                head_hash=ctx.head_hash,
                reply_to=c.seat_reply_address(
                    ctx.session, settings, ctx.game_id, seat.seat, ctx.version
                ),
            )
        )
    return mails
