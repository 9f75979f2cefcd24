"""The outbox: mails written with the events that caused them.

``OutboxListener.on_appended`` runs inside the game service's write transaction, so a move
and its notifications commit together or not at all. Per append, each seat with an address
gets at most one mail:

- the game ended: the final scores, the board and the revealed seed, to every seat;
- the seat is (newly) to act: "your turn" (not to an address that chose the daily digest,
  ``pbem.clock.digest``: its game is listed there instead);
- another seat asks to undo: the request, to answer with ``accept`` or ``decline``;
- the seat acted: a confirmation (``mail.confirmations``; a secret action always gets one,
  as it carries the vote's salt);
- a dispute opened or resolved: a notice to every seat (every mail says while one is open);
- the game's clock: a deadline missed (who was late, what was played for them), an
  extension, a pause, a vacation, a new time control: a notice to every seat (not to the
  seat that went away or asked for the pause itself); a turn mail says when its deadline is;
- undo, an undo request that lapsed, resignation or the start of the game: a notice.

A seat whose address had never played is invited (``pbem.create.invitations``): at the start of
the game it gets an invitation instead, and then nothing until its player accepts; the
append that records the acceptance brings it the game as it stands (its turn, or a notice
with the board), never the stale mails it missed.

The relay that sends these mails is ``pbem.mail.outbound.relay``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import insert
from sqlmodel import Session

from engine.core import Rules
from pbem.app.config import Settings
from pbem.clock import events as ce
from pbem.clock.events import CLOCK_EVENTS
from pbem.clock.mail_news import clock_news, deadline_line, vacation_ends
from pbem.clock.preferences import address_key
from pbem.clock.time_control import TimeControl
from pbem.core import events as ev
from pbem.core import store
from pbem.core.cache import EventTails
from pbem.core.db import DriverStatement
from pbem.core.events import StoredEvent
from pbem.core.models import Game
from pbem.core.naming import Names
from pbem.core.repository import Loaded, SeatInfo
from pbem.core.time_source import Clock, SystemClock
from pbem.core.unit_of_work import AppendContext
from pbem.create import invitations
from pbem.disputes.notices import dispute_headline, dispute_notice
from pbem.disputes.projection import open_disputes
from pbem.disputes.rules import administrator_only
from pbem.mail.models import OutboxMail
from pbem.mail.outbound import compose as c
from pbem.play.views import result_text

#: How many events before an append the listener reads to write "since your last move".
HISTORY_WINDOW = 100
#: the clock's events (``pbem.clock.mail_news``)
_CLOCK_TYPES = frozenset(kind.TYPE for kind in CLOCK_EVENTS)


def _seat_of(event: StoredEvent) -> int:
    p = event.payload
    assert isinstance(p, ev.SEAT_ACTS)
    return p.seat


def _finished(event: StoredEvent) -> ev.GameFinished:
    p = event.payload
    assert isinstance(p, ev.GameFinished)
    return p


# -- writing: the listener -----------------------------------------------------------------


class OutboxListener:
    """Writes the notification mails of every append, in the append's transaction."""

    def __init__(self, settings: Settings, clock: Clock | None = None) -> None:
        self.settings = settings
        self.clock: Clock = clock or SystemClock()
        # The log's tail of each game, continued with every append instead of read again.
        self.tails: EventTails[StoredEvent] = EventTails(
            settings.state_cache_size, HISTORY_WINDOW + 16
        )

    def on_appended(self, ctx: AppendContext) -> None:
        mails = plan_mails(ctx, self.settings, self.clock.now(), self.tails)
        if mails:
            # One INSERT for the rows, not ORM objects to track: nothing reads them back
            # in this transaction, and this runs for every move.
            _INSERT_MAILS.run(ctx.session, mails)


#: Built once (every move runs it). ``inline``: no RETURNING of the generated ids, which
#: nobody reads, so that the pipelined write need not wait for it (``wait=False``).
_INSERT_MAILS = DriverStatement(insert(OutboxMail).inline(), wait=False)


def plan_mails(
    ctx: AppendContext,
    settings: Settings,
    now: datetime,
    tails: EventTails[StoredEvent] | None = None,
) -> list[dict[str, Any]]:
    """The mails of one append, as outbox rows (``tails``: the listener's cache of the log's
    tail)."""
    new = ctx.events
    types = {e.type for e in new}
    rules = ctx.rules
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
    to_act_before = rules.to_act(ctx.state_before) if ctx.state_before is not None else frozenset()
    to_act_after = rules.to_act(ctx.state_after)
    # Opening or answering a dispute is not a move: it asks nobody to play. The retraction
    # of an upheld dispute names its opener, but the administrator or the others' consent
    # decided it: nobody is confirmed an act of theirs, every seat gets the notice.
    resolved = any(e.type == ev.DISPUTE_RESOLVED for e in new)
    # A deadline move is played for the seat, not by it: no confirmation of it, but the
    # notice that tells every seat (``clock``), or its turn if it is to act again.
    moved_for = {
        p.seat
        for e in new
        if isinstance(p := e.payload, ev.ActionApplied) and p.channel == "deadline"
    }
    actors = {
        p.seat
        for e in new
        if isinstance(p := e.payload, ev.SEAT_ACTS)
        and p.channel not in ("auto", "deadline")
        and not isinstance(p, ev.PositionNeutral)
        and not (resolved and isinstance(p, ev.ActionsRetracted))
    }
    finished = next((e for e in new if e.type == ev.GAME_FINISHED), None)
    undo_request = next((e for e in new if e.type == ev.UNDO_REQUESTED), None)
    lapsed = next((e for e in new if e.type == ev.UNDO_LAPSED), None)
    position_changed = bool(types & {ev.GAME_CREATED, ev.ACTIONS_RETRACTED})
    facts = c.mail_facts(ctx.session, ctx.game_id, [s.email or "" for s in ctx.seats])
    failing = facts.failing
    subject = c.subject_for(rules, ctx.game_id)
    names = ctx.names
    pending = _pending_undo(ctx, undo_request, finished is not None)
    dispute_news = dispute_headline(new)
    # Once for every seat's mail, and only when one is open.
    disputes = open_disputes(ctx.session, ctx.game_id) if facts.dispute_open else []
    clock = None
    if types & _CLOCK_TYPES:
        clock = clock_news(new, names, vacation_ends(ctx.session, ctx.game_id))
    # Retractions come after what they retract: the log from the disputed moves on says
    # whether consent could uphold each.
    consent_possible: dict[int, bool] = {}
    if disputes:
        firsts = {d.dispute: min(json.loads(d.versions)) for d in disputes}
        log = store.read(ctx.session, ctx.game_id, after=min(firsts.values()) - 1)
        consent_possible = {n: not administrator_only(log, v) for n, v in firsts.items()}
    keys = facts.key_versions
    rules_link = c.rules_link(settings, rules)
    waiting = invitations.waiting_among(ctx.session, facts.pending_invitations, ctx.seats)
    accepted = {p.seat for e in new if isinstance(p := e.payload, ev.InvitationAccepted)}
    mails = []
    for seat in ctx.seats:
        if not seat.email:
            continue
        if seat.seat in waiting and ev.GAME_CREATED not in types:
            continue  # nothing but the invitation until the player accepts
        key = keys.get(seat.seat, 0)
        # A secret action's salt is its author's receipt: it goes out now, before the reveal,
        # whatever ``mail.confirmations`` says.
        votes = c.vote_receipts(settings, ctx.game_id, new, seat.seat)
        common: dict[str, object] = {
            "marker": c.MARKER,
            "title": f"{rules.name.title()}, game {ctx.game_id}",
            "name": names.of(seat.seat),
            "link": c.seat_link(ctx.session, settings, ctx.game_id, seat.seat, key),
            "rules_link": rules_link,
            "receipt": "\n".join(
                r
                for r in (
                    c.receipt(ctx.version, ctx.head_hash),
                    votes,
                )
                if r
            ),
            "board": c.board_text(
                rules, ctx.state_after, seat.seat, names, finished=finished is not None
            ),
            "notices": _notices(
                ctx.seats,
                failing,
                seat.seat,
                pending,
                names,
                "\n".join(
                    dispute_notice(
                        d, seat.seat, names, consent_possible=consent_possible[d.dispute]
                    )
                    for d in disputes
                ),
                "" if clock is None else clock.notices(history, seat.seat, names),
            ),
        }
        kind: str | None
        if seat.seat in waiting:
            kind, text = "invitation", _invitation_text(ctx, settings, seat, common, names, key)
        elif seat.seat in accepted and not seat.resigned and finished is None:
            kind, text = _joined(ctx, history, seat, common, names, now, facts)
        elif finished is not None:
            kind, text = "end", _end_text(ctx, history, seat, finished, common, names)
        elif seat.resigned:
            kind = None
        elif seat.seat in to_act_after and (
            position_changed
            or seat.seat not in to_act_before
            or seat.seat in actors
            or seat.seat in moved_for
        ):
            kind = "turn"
            text = _turn_text(ctx, history, seat, common, names, now, facts)
        elif undo_request is not None and seat.seat != _seat_of(undo_request):
            kind = "notice"
            text = _notice(history, before, seat, common, names, "an undo request.", "")
        elif seat.seat in actors and (settings.mail.confirmations or votes):
            kind = "applied"
            text = c.render(
                "applied",
                **common,
                since=c.since_text(history, seat.seat, before, "Applied:", names),
                waiting=names.many(to_act_after),
            )
        elif dispute_news is not None:
            kind = "notice"
            text = _notice(history, before, seat, common, names, dispute_news, "")
        elif clock is not None and seat.seat not in clock.doers:
            kind = "notice"
            text = _notice(history, before, seat, common, names, clock.headline or "", "")
        elif lapsed is not None:
            # Every seat the request concerned (its maker and those asked) hears of it.
            kind = "notice"
            text = _notice(history, before, seat, common, names, "an undo request lapsed.", "")
        elif types & {ev.ACTIONS_RETRACTED, ev.PLAYER_RESIGNED, ev.GAME_CREATED}:
            kind = "start" if ev.GAME_CREATED in types else "notice"
            headline = "the game has started." if kind == "start" else "news of the game."
            asked = "You will get a mail when it is your turn." if kind == "start" else ""
            if kind == "start" and (timing := _time_control(new)) is not None:
                asked += f"\nTime control: {timing}."
            text = _notice(history, before, seat, common, names, headline, asked)
        else:
            kind = None
        if kind is None or (kind == "turn" and address_key(seat.email) in facts.digest):
            continue
        mails.append(
            c.outbox_row(
                settings,
                kind=kind,
                game_id=ctx.game_id,
                seat=seat.seat,
                to_name=seat.name,
                to_address=seat.email,
                subject=subject,
                text=text,
                now=now,
                version=ctx.version,
                head_hash=ctx.head_hash,
                reply_to=None
                if kind == "end"
                else c.seat_reply_address(
                    ctx.session, settings, ctx.game_id, seat.seat, ctx.version, key
                ),
            )
        )
    return mails


def _time_control(new: Sequence[StoredEvent]) -> str | None:
    """The time control an append sets, for people (None: it sets none)."""
    for e in new:
        if isinstance(p := e.payload, ce.TimeControlSet):
            return TimeControl.from_json(p.time_control).describe()
    return None


def _turn_text(
    ctx: AppendContext,
    history: list[StoredEvent],
    seat: SeatInfo,
    common: dict[str, object],
    names: Names,
    now: datetime,
    facts: c.MailFacts,
) -> str:
    zone = facts.time_zones.get(address_key(seat.email)) if seat.email else None
    return c.render(
        "turn",
        **common,
        since=c.since_text(
            history,
            seat.seat,
            c.last_own_action(history, seat.seat),
            "Since your last move:",
            names,
        ),
        can_type=c.can_type(ctx.rules, ctx.state_after, seat.seat),
        deadline=deadline_line(ctx.session, ctx.game_id, seat.seat, now, zone),
    )


def _joined(
    ctx: AppendContext,
    history: list[StoredEvent],
    seat: SeatInfo,
    common: dict[str, object],
    names: Names,
    now: datetime,
    facts: c.MailFacts,
) -> tuple[str, str]:
    """The one mail a player gets on accepting an invitation: the game as it stands (its
    turn, or where the game is), instead of every mail held back until then."""
    if seat.seat in ctx.rules.to_act(ctx.state_after):
        return "turn", _turn_text(ctx, history, seat, common, names, now, facts)
    text = c.render(
        "notice",
        **common,
        headline="you have joined the game.",
        since=c.since_text(history, seat.seat, 0, "What happened so far:", names),
        asked="You will get a mail when it is your turn.\n",
    )
    return "notice", text


def _invitation_text(
    ctx: AppendContext,
    settings: Settings,
    seat: SeatInfo,
    common: dict[str, object],
    names: Names,
    key: int,
) -> str:
    return invitation_text(
        ctx.session, settings, ctx.rules, ctx.game_id, seat.seat, names, ctx.seats, key,
        str(common["receipt"]),
    )  # fmt: skip


def invitation_text(
    session: Session,
    settings: Settings,
    rules: Rules,
    game_id: str,
    seat: int,
    names: Names,
    seats: Sequence[SeatInfo],
    key: int,
    receipt: str,
) -> str:
    """The invitation of ``seat``: who plays, and how to accept (its link signed with the
    seat's key version ``key``)."""
    return c.render(
        "invitation",
        marker=c.MARKER,
        title=f"{rules.name.title()}, game {game_id}",
        name=names.of(seat),
        game=rules.name.title(),
        service=settings.base_url.rstrip("/"),
        players=names.many(s.seat for s in seats),
        accept_link=c.invitation_link(session, settings, game_id, seat, key),
        rules_link=c.rules_link(settings, rules),
        receipt=receipt,
    )


def invitation_again(
    session: Session, settings: Settings, loaded: Loaded, seat: int, now: datetime
) -> OutboxMail:
    """The invitation once more, with the seat's links as they are now: after ``pbem
    rotate-token`` revoked the earlier ones (an address that has not accepted gets nothing
    but its invitation, so this is how its player gets the new link)."""
    info = loaded.seats[seat]
    assert info.email, f"seat {seat} of game {loaded.game_id} has no address to invite"
    key = c.key_version(session, loaded.game_id, seat)
    text = invitation_text(
        session, settings, loaded.rules, loaded.game_id, seat, loaded.names, loaded.seats, key,
        c.receipt(loaded.version, loaded.head_hash),
    )  # fmt: skip
    return c.outbox_mail(
        settings,
        kind="invitation",
        game_id=loaded.game_id,
        seat=seat,
        to_name=info.name,
        to_address=info.email,
        subject=c.subject_for(loaded.rules, loaded.game_id),
        text=text,
        now=now,
        version=loaded.version,
        head_hash=loaded.head_hash,
        reply_to=c.seat_reply_address(session, settings, loaded.game_id, seat, loaded.version, key),
    )


@dataclass(frozen=True)
class _PendingUndo:
    """An undo request waiting for answers, as the mails of this append describe it."""

    request: int
    seat: int
    to_version: int
    answered: frozenset[int]


def _pending_undo(
    ctx: AppendContext, undo_request: StoredEvent | None, finished: bool
) -> _PendingUndo | None:
    """The undo request still open after this append: the one just made, or an earlier one
    (every mail says so while it waits). The append lapsed any other
    (``pbem.core.unit_of_work``)."""
    if finished:
        return None
    if undo_request is not None:
        d = undo_request.payload
        assert isinstance(d, ev.UndoRequested)
        return _PendingUndo(undo_request.version, d.seat, d.to_version, frozenset())
    row = ctx.open_undo
    if row is None:
        return None
    answered = frozenset(json.loads(row.accepted_by))
    return _PendingUndo(row.request, row.seat, row.to_version, answered)


def _notices(
    seats: tuple[SeatInfo, ...],
    failing: frozenset[str],
    viewer: int,
    pending: _PendingUndo | None,
    names: Names,
    dispute: str = "",
    clock: str = "",
) -> str:
    lines = [c.bounce_notices(seats, failing, viewer, names), dispute, clock]
    if pending is not None and pending.seat != viewer:
        if viewer in pending.answered:
            lines.append(
                f"{names.of(pending.seat)} asks to take the game back to version "
                f"{pending.to_version}; you accepted, the others have yet to answer."
            )
        else:
            lines.append(
                f"{names.of(pending.seat)} asks to take the game back to version "
                f"{pending.to_version} (undo request {pending.request}): reply 'accept' to "
                "agree or 'decline' to refuse, on a line of its own. Any move in the game "
                "lets the request lapse."
            )
    elif pending is not None:
        lines.append(
            f"Your undo request {pending.request} (back to version {pending.to_version}) is "
            "waiting for the others' answers."
        )
    text = "\n".join(line for line in lines if line)
    return f"\n{text}\n" if text else ""


def _notice(
    history: list[StoredEvent],
    before: int,
    seat: SeatInfo,
    common: dict[str, object],
    names: Names,
    headline: str,
    asked: str,
) -> str:
    return c.render(
        "notice",
        **common,
        headline=headline,
        since=c.since_text(history, seat.seat, before, "What happened:", names),
        asked=asked + "\n" if asked else "",
    )


def _end_text(
    ctx: AppendContext,
    history: list[StoredEvent],
    seat: SeatInfo,
    finished: StoredEvent,
    common: dict[str, object],
    names: Names,
) -> str:
    result = result_text(_finished(finished).outcome, names)
    game = ctx.session.get(Game, ctx.game_id)
    commitment = game.seed_commitment if game is not None else "(unknown)"
    return c.render(
        "end",
        **common,
        result=result,
        since=c.since_text(
            history,
            seat.seat,
            c.last_own_action(history, seat.seat),
            "The last moves:",
            names,
        ),
        seed=_finished(finished).seed,
        commitment=commitment,
    )
