"""The checks every command of the application service makes inside its unit of work: may
this seat act, was the submission made on a version it may still be applied to, is this the
game's administrator, and who may not even know a private game exists. With the helpers the
commands share: what a seat can type, the game's seed, and the end of a finished game."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from sqlmodel import Session

from engine.core import Rules, action_from_json
from pbem.core import events as ev
from pbem.core.errors import Conflict, Forbidden, GameNotFound, StaleVersion
from pbem.core.events import StoredEvent
from pbem.core.models import Game
from pbem.core.naming import names_for
from pbem.core.unit_of_work import UnitOfWork
from pbem.create import events as creation_events
from pbem.play.views import describe
from pbem.seats import credentials
from pbem.talk import events as talk_events

#: How a submission made on an older version is judged (see ``check_version``):
#: ``strict`` (the JSON API) refuses it; ``own_moves_ok`` accepts it when only this seat
#: acted since; ``same_decision`` (replies by mail, seat-page forms) also accepts it when
#: nothing that bears on this seat's decision changed since.
StalePolicy = Literal["strict", "own_moves_ok", "same_decision"]


def check_can_act(txn: UnitOfWork, seat: int) -> None:
    if not 0 <= seat < len(txn.seats):
        raise Forbidden(f"There is no seat {seat} in this game.")
    if txn.waiting:
        raise Conflict(not_started(txn.game.open_seats if txn.game else 0))
    if txn.seats[seat].resigned:
        names = names_for(txn.rules, txn.state, [s.name for s in txn.seats])
        raise Forbidden(f"{names.of(seat)} has resigned from this game.")
    if txn.finished:
        raise Conflict(f"The game is over (it finished at version {txn.version}).")


def check_version(txn: UnitOfWork, seat: int, expected: int, policy: StalePolicy) -> None:
    head = txn.version
    if expected == head:
        return
    if 1 <= expected < head:
        # An accepted invitation, or table talk, moves the version but not the game: a
        # message is not a move, even to the strict JSON API.
        since = [e for e in txn.read(after=expected) if not _bookkeeping(e)]
        if not since:
            return
    if 1 <= expected < head and policy != "strict":
        # A dispute opened or answered since changes nothing on the board.
        since = [
            e
            for e in txn.read(after=expected)
            if not _bookkeeping(e) and not isinstance(e.payload, ev.PositionNeutral)
        ]
        if all(isinstance(p := e.payload, ev.ActionApplied) and p.seat == seat for e in since):
            return
        if policy == "same_decision" and same_decision(txn, seat, expected, since):
            return
    if expected > head:
        message = f"Version {expected} does not exist yet: the game is at version {head}."
    else:
        message = (
            f"You played on version {expected}, but the game has moved on to version "
            f"{head}. Nothing was applied: look at the game again and resubmit."
        )
    raise StaleVersion(message, head, describe(txn.loaded(), seat))


def _bookkeeping(e: StoredEvent) -> bool:
    """An event that changes neither the position nor anything a seat decides on."""
    return e.type in creation_events.BOOKKEEPING or e.type in talk_events.TALK_TYPES


def same_decision(txn: UnitOfWork, seat: int, expected: int, since: Sequence[StoredEvent]) -> bool:
    """True when the decision ``seat`` made on version ``expected`` is still the one it
    faces (docs/mail.md, "Replies to an older mail").

    Every event since must be an action: the seat's own (it knows its own moves), or
    another seat's that was reversible (no draw, no reveal) and made while this seat
    owed its decision before and after it — a simultaneous decision, such as a secret
    vote or a choice every seat makes at once, which the rules let each seat take
    without seeing the others'. And the seat's legal actions at the head are exactly
    those it had when it last saw the game (or last acted). Anything else — a public
    move made in turn (a county taken), a reveal (a law decided), an undo, a
    resignation — changes what it decides on, and the reply is refused.
    """
    rules = txn.rules
    state = txn.state_at(expected)
    baseline = state
    for e in since:
        p = e.payload
        if not isinstance(p, ev.ActionApplied):
            return False
        if p.seat != seat and (p.irreversible or seat not in rules.to_act(state)):
            return False
        state = rules.apply(state, p.seat, action_from_json(p.action)).state
        if p.seat == seat:
            baseline = state
        elif seat not in rules.to_act(state):
            return False
    return rules.legal_actions(baseline, seat) == rules.legal_actions(txn.state, seat)


def check_admin(txn: UnitOfWork, admin_token: str | None) -> None:
    if not credentials.is_admin_token(txn.session, txn.game_id, admin_token):
        if txn.game is not None and hidden_from(txn.session, txn.game, admin_token):
            raise no_such_game(txn.game_id)  # a 403 would confirm the game exists
        raise Forbidden("This needs the game's admin token.")


def can_type_at(rules: Rules, state: Any, seat: int) -> list[str]:
    return [rules.format_action(state, a) for a in rules.legal_actions(state, seat)[:12]]


def can_type(txn: UnitOfWork, seat: int) -> list[str]:
    return can_type_at(txn.rules, txn.state, seat)


def seed(txn: UnitOfWork) -> str:
    return credentials.seed(txn.session, txn.game_id)


def finish(txn: UnitOfWork, state: Any) -> list[ev.Payload]:
    if txn.rules.to_act(state):
        return []
    outcome = txn.rules.outcome(state)
    return [
        ev.GameFinished(
            outcome=outcome.to_json() if outcome else {"scores": [], "winners": []},
            seed=seed(txn),
            reason="rules",
        )
    ]


def hidden_from(session: Session, game: Game, token: str | None) -> bool:
    """Whether the holder of ``token`` (or of none) may not know this game exists: it is
    private, and the token is neither one of its seats' nor its admin's."""
    if not game.private:
        return False
    if not token:
        return True
    seat = credentials.seat_of_token(session, game.id, token)
    return seat is None and not credentials.is_admin_token(session, game.id, token)


def no_such_game(game_id: str) -> GameNotFound:
    # The very words of ``game_or_404``: a private game reads as one that does not exist.
    return GameNotFound(f"There is no game {game_id!r}.")


def not_started(open_seats: int) -> str:
    """What a seat is told when it acts in a game still waiting for players."""
    more = "1 more player" if open_seats == 1 else f"{open_seats} more players"
    return (
        f"The game has not started yet: it is waiting for {more} to join. Nobody can move "
        "until every seat is taken or the organiser starts it with the players who joined."
    )
