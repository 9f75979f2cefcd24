"""The mails of play: a seat's turn (with its deadline, when the game is timed), the
confirmation of what a seat did, the news of a resignation, and the end of the game (the
final scores, the board and the revealed seed). The outbox asks these planners through the
table the composition root fills (``pbem.mail.outbound.mail_planners``)."""

from __future__ import annotations

from pbem.clock.mail_news import deadline_line
from pbem.clock.preferences import address_key
from pbem.core import events as ev
from pbem.core.models import Game
from pbem.core.repository import SeatInfo
from pbem.disputes import events as dispute_events
from pbem.mail.outbound import compose as c
from pbem.mail.outbound.mail_planners import (
    NO_MAIL,
    AppendMails,
    Mail,
    MailPlanner,
    SeatMail,
)
from pbem.mail.outbound.quick_links import quick_links_text
from pbem.play import seat_acts
from pbem.play.quick_moves import quick_moves
from pbem.play.views import result_text
from pbem.rematch import mails as rematch_mails


def _actors(append: AppendMails) -> frozenset[int]:
    """The seats that acted themselves in this append. Opening or answering a dispute is not
    a move: it asks nobody to play. The retraction of an upheld dispute names its opener,
    but the administrator or the others' consent decided it: nobody is confirmed an act of
    theirs, every seat gets the notice."""
    resolved = dispute_events.DISPUTE_RESOLVED in append.types
    return frozenset(
        p.seat
        for e in append.events
        if isinstance(p := e.payload, seat_acts.SEAT_ACTS)
        and p.channel not in ("auto", "deadline")
        and not isinstance(p, ev.PositionNeutral)
        and not (resolved and isinstance(p, ev.ActionsRetracted))
    )


def turn_mail(append: AppendMails, seat: SeatInfo) -> Mail:
    """The seat's turn: what happened since its last move, what it can type, and its
    deadline; ``NO_MAIL`` for an address that chose the daily digest (``pbem.clock.digest``
    lists its game instead)."""
    assert seat.email
    if address_key(seat.email) in append.facts.digest:
        return NO_MAIL
    zone = append.facts.time_zones.get(address_key(seat.email))
    history, names = append.history, append.names
    ctx = append.ctx
    common = append.common(seat)
    quick = quick_links_text(
        quick_moves(append.rules, ctx.state_after, seat.seat),
        c.seat_reply_address(
            append.session,
            append.settings,
            ctx.game_id,
            seat.seat,
            ctx.version,
            append.key_version(seat.seat),
        ),
        c.subject_for(append.rules, ctx.game_id),
        str(common["link"]),
    )
    text = c.render(
        "turn",
        **common,
        quick=quick,
        since=c.since_text(
            history,
            seat.seat,
            c.last_own_action(history, seat.seat),
            "Since your last move:",
            names,
        ),
        can_type=c.can_type(append.rules, append.ctx.state_after, seat.seat),
        deadline=deadline_line(append.session, append.ctx.game_id, seat.seat, append.now, zone),
    )
    return Mail("turn", text)


def _turn(append: AppendMails) -> SeatMail:
    # A deadline move is played for the seat, not by it: no confirmation of it, but the
    # notice that tells every seat (``pbem.clock.mail_news``), or its turn if it is to act
    # again.
    moved_for = {
        p.seat
        for e in append.events
        if isinstance(p := e.payload, ev.ActionApplied) and p.channel == "deadline"
    }
    position_changed = bool(append.types & {ev.GAME_CREATED, ev.ACTIONS_RETRACTED})
    actors = append.once(_actors)

    def mail(seat: SeatInfo) -> Mail | None:
        if seat.seat in append.to_act_after and (
            position_changed
            or seat.seat not in append.to_act_before
            or seat.seat in actors
            or seat.seat in moved_for
        ):
            return turn_mail(append, seat)
        return None

    return mail


def _confirmation(append: AppendMails) -> SeatMail:
    actors = append.once(_actors)
    confirmations = append.settings.mail.confirmations

    def mail(seat: SeatInfo) -> Mail | None:
        # A secret action's salt is its author's receipt: it goes out whatever
        # ``mail.confirmations`` says.
        if seat.seat not in actors or not (confirmations or append.votes(seat.seat)):
            return None
        text = c.render(
            "applied",
            **append.common(seat),
            since=c.since_text(append.history, seat.seat, append.before, "Applied:", append.names),
            waiting=append.names.many(append.to_act_after),
        )
        return Mail("applied", text)

    return mail


def _end(append: AppendMails) -> SeatMail:
    finished = append.first(ev.GAME_FINISHED)
    assert finished is not None
    p = finished.payload
    assert isinstance(p, ev.GameFinished)
    result = result_text(p.outcome, append.names)
    game = append.session.get(Game, append.ctx.game_id)
    commitment = game.seed_commitment if game is not None else "(unknown)"

    def mail(seat: SeatInfo) -> Mail:
        history = append.history
        text = c.render(
            "end",
            **append.common(seat),
            result=result,
            since=c.since_text(
                history,
                seat.seat,
                c.last_own_action(history, seat.seat),
                "The last moves:",
                append.names,
            ),
            seed=p.seed,
            commitment=commitment,
            rematch=rematch_mails.OFFER,
        )
        # Answerable: a reply says 'rematch' (``pbem.rematch``).
        return Mail("end", text)

    return mail


def _resigned(_append: AppendMails) -> SeatMail:
    return lambda seat: NO_MAIL if seat.resigned else None


def _resignation(append: AppendMails) -> SeatMail:
    return lambda seat: Mail("notice", append.notice(seat, "news of the game."))


#: The game ended: the final scores, the board and the revealed seed, to every seat.
GAME_OVER = MailPlanner(_end, on=frozenset({ev.GAME_FINISHED}))
#: A seat that resigned gets no more mail (but the end of the game).
RESIGNED = MailPlanner(_resigned)
#: The seat is (newly) to act: its turn.
TURN = MailPlanner(_turn)
#: The seat acted: a confirmation (``mail.confirmations``; a secret action always gets one).
CONFIRMATION = MailPlanner(_confirmation, on=frozenset(kind.TYPE for kind in seat_acts.SEAT_ACTS))
#: A seat resigned: news of the game to the others.
RESIGNATION = MailPlanner(_resignation, on=frozenset({ev.PLAYER_RESIGNED}))
