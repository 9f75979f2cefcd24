"""The mails of creating a game and inviting its players: the invitation (at the start, and
again after ``pbem rotate-token``), the start of the game, and the one mail a player gets on
accepting an invitation. A seat whose invitation waits gets nothing but the invitation; the
append that records the acceptance brings it the game as it stands, never the stale mails it
missed. The outbox asks these planners through the table the composition root fills
(``pbem.mail.outbound.mail_planners``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlmodel import Session

from engine.core import Rules
from pbem.app.config import Settings
from pbem.clock import events as ce
from pbem.clock.time_control import TimeControl
from pbem.core import events as ev
from pbem.core.naming import Names
from pbem.core.repository import Loaded, SeatInfo
from pbem.create import events as creation_events
from pbem.create import invitations
from pbem.mail.models import OutboxMail
from pbem.mail.outbound import compose as c
from pbem.mail.outbound.mail_planners import (
    NO_MAIL,
    AppendMails,
    Mail,
    MailPlanner,
    SeatMail,
)
from pbem.play.mails import turn_mail


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


def _invited(append: AppendMails) -> SeatMail | None:
    ctx = append.ctx
    waiting = invitations.waiting_among(ctx.session, append.facts.pending_invitations, ctx.seats)
    if not waiting:
        return None
    created = ev.GAME_CREATED in append.types
    # An open seat taken by an address that never played: its invitation now.
    taken = _taken(append)

    def mail(seat: SeatInfo) -> Mail | None:
        if seat.seat not in waiting:
            return None
        if not created and seat.seat not in taken:
            return NO_MAIL  # nothing but the invitation until the player accepts
        text = invitation_text(
            ctx.session, append.settings, ctx.rules, ctx.game_id, seat.seat, append.names,
            ctx.seats, append.key_version(seat.seat), str(append.common(seat)["receipt"]),
        )  # fmt: skip
        return Mail("invitation", text)

    return mail


def _joined(append: AppendMails) -> SeatMail | None:
    """The one mail a player gets on accepting an invitation: the game as it stands (its
    turn, or where the game is), instead of every mail held back until then."""
    if append.game_over:
        return None
    accepted = {
        p.seat
        for e in append.events
        if isinstance(p := e.payload, creation_events.InvitationAccepted)
    }

    def mail(seat: SeatInfo) -> Mail | None:
        if seat.seat not in accepted or seat.resigned:
            return None
        if seat.seat in append.to_act_after:
            return turn_mail(append, seat)
        text = c.render(
            "notice",
            **append.common(seat),
            headline="you have joined the game.",
            since=c.since_text(append.history, seat.seat, 0, "What happened so far:", append.names),
            asked="You will get a mail when it is your turn.\n",
        )
        return Mail("notice", text)

    return mail


def _time_control(append: AppendMails) -> str | None:
    """The time control an append sets, for people (None: it sets none)."""
    for e in append.events:
        if isinstance(p := e.payload, ce.TimeControlSet):
            return TimeControl.from_json(p.time_control).describe()
    return None


def _taken(append: AppendMails) -> frozenset[int]:
    """The open seats taken in this append."""
    return frozenset(p.seat for e in append.events if isinstance(p := e.payload, ev.SeatTaken))


def waiting_line(open_seats: int) -> str:
    """What a waiting game's mails and pages say of it."""
    more = "1 more player has" if open_seats == 1 else f"{open_seats} more players have"
    return f"The game starts when {more} joined (or when its organiser starts it)."


def _waiting(append: AppendMails) -> SeatMail | None:
    """A game waiting for players: each seat named at its creation, and each player taking an
    open seat (not invited: an invited one gets its invitation), is told it has a seat and
    that the game starts when every seat is taken. Nothing to the others."""
    ctx = append.ctx
    if not ctx.open_after:
        return None
    new = (
        frozenset(s.seat for s in ctx.seats) if ev.GAME_CREATED in append.types else _taken(append)
    )

    def mail(seat: SeatInfo) -> Mail | None:
        if seat.seat not in new:
            return None
        headline = "you have a seat in this game."
        return Mail("notice", append.notice(seat, headline, waiting_line(ctx.open_after)))

    return mail


def _started(append: AppendMails) -> SeatMail:
    asked = "You will get a mail when it is your turn."
    if (timing := _time_control(append)) is not None:
        asked += f"\nTime control: {timing}."
    return lambda seat: Mail("start", append.notice(seat, "the game has started.", asked))


#: A seat whose invitation waits: the invitation at the start of the game, then no mail until
#: its player accepts.
INVITED = MailPlanner(_invited)
#: A player accepted its invitation: the game as it stands (its turn, or a notice).
JOINED = MailPlanner(_joined, on=frozenset({creation_events.INVITATION_ACCEPTED}))
#: The game started (at its creation, or when its open seats were filled or closed): a notice
#: to every seat not invited (and not to act first).
STARTED = MailPlanner(_started, on=frozenset({creation_events.GAME_STARTED}))
#: A game waiting for players: its seats named at creation, and each player who takes an open
#: seat, are told so.
WAITING = MailPlanner(_waiting, on=frozenset({ev.GAME_CREATED, ev.SEAT_TAKEN}))
