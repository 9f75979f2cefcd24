"""Undo never deletes: the rules of taking actions back, as a plan of events to append
(the service's ``undo`` and ``decide_undo`` append it).

A seat may take back its own latest actions while no other seat has acted since and no
transition since was irreversible (a draw, a reveal); going further back (over other seats'
actions) needs every other active seat's consent: ``UndoRequested``, then ``UndoDecided``
from each; the last acceptance appends ``ActionsRetracted``. Nothing ever crosses an
irreversible step, a resignation or the end of the game. A request lapses when the game moves
on before it is decided (``lapse_waiting_request``, the lapse rule the unit of work runs).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from sqlmodel import Session, select

from pbem.core import events as ev
from pbem.core.errors import AgainstTheRules, Conflict, GameNotFound
from pbem.core.events import StoredEvent
from pbem.core.models import Seat, UndoRequest
from pbem.create import events as creation_events
from pbem.undo import events as undo_events
from pbem.undo.projection import waiting_request

# The first version an undo can return to: right after GameStarted.
FIRST_POSITION = 2


@dataclass(frozen=True)
class Plan:
    to_version: int
    versions: list[int]
    needs_consent: bool
    #: the irreversible steps (draws, reveals) among the retracted versions: only the
    #: administrator's remedy for a dispute may cross them (``cross_irreversible``)
    crossed: list[int]


def plan(
    events: Sequence[StoredEvent],
    head: int,
    seat: int,
    to_version: int | None,
    resigned: set[int],
    *,
    consent: bool = False,
    name_of: Callable[[int], str] = lambda seat: f"seat {seat}",
    cross_irreversible: bool = False,
) -> Plan:
    """What undoing for ``seat`` back to ``to_version`` (default: before its latest
    action) would retract, or AgainstTheRules saying why it cannot be done (naming players
    with ``name_of``, e.g. "Ann (Red)"). ``cross_irreversible``: irreversible steps are
    listed in ``crossed`` instead of refused (an administrator upholding a dispute)."""
    actions = ev.effective_actions(events)
    if to_version is None:
        own = [e for e in actions if _action(e).seat == seat]
        if not own:
            raise AgainstTheRules("You have no action to take back.")
        to_version = own[-1].version - 1
    if head <= FIRST_POSITION:
        raise AgainstTheRules("Nothing has been played yet: there is nothing to go back to.")
    if not FIRST_POSITION <= to_version < head:
        raise AgainstTheRules(
            f"You can go back to a version from {FIRST_POSITION} to {head - 1}, not {to_version}."
        )
    retracted = [e for e in actions if e.version > to_version]
    if not retracted:
        raise AgainstTheRules(f"No action was played after version {to_version}: nothing to undo.")
    crossed: list[int] = []
    for e in events:
        if e.version <= to_version:
            continue
        p = e.payload
        if isinstance(p, ev.PlayerResigned):
            raise AgainstTheRules(
                f"Cannot go back past version {e.version}: {name_of(p.seat)} resigned there."
            )
        if isinstance(p, ev.ActionApplied) and p.irreversible and e in retracted:
            if cross_irreversible:
                crossed.append(e.version)
                continue
            # The design: undo never crosses a step that drew randomness or revealed a secret.
            raise AgainstTheRules(
                f"Cannot undo version {e.version} ({p.canonical}): it drew randomness "
                "or revealed hidden information, and undo never crosses such a step."
            )
    others = {_action(e).seat for e in retracted} - {seat} - resigned
    return Plan(
        to_version,
        [e.version for e in retracted],
        needs_consent=bool(others) or consent,
        crossed=crossed,
    )


def awaited(row: UndoRequest, seats: Iterable[Seat]) -> set[int]:
    """The seats whose answer the request still waits for: every seat that has not
    resigned, but the one that asked and those that accepted."""
    accepted = set(json.loads(row.accepted_by))
    return {s.seat for s in seats if not s.resigned} - {row.seat} - accepted


def open_request(session: Session, game_id: str) -> UndoRequest | None:
    return session.exec(
        select(UndoRequest).where(UndoRequest.game_id == game_id, UndoRequest.status == "open")
    ).first()


def lapse_waiting_request(
    session: Session, game_id: str, new_events: Sequence[ev.Appendable]
) -> list[ev.Appendable]:
    """The events to append, with ``UndoLapsed`` right after the first that moves the game
    on while an undo request waits for answers (so the log says the request lapsed, and
    when): the lapse rule the composition root registers with the unit of work
    (``pbem.core.unit_of_work.register_lapse_rules``)."""
    events = list(new_events)
    # (An accepted invitation moves nothing: the request lapses at the move after it.)
    first = next(
        (i for i, e in enumerate(events) if e.type not in _MOVE_NOTHING),
        None,
    )
    if first is None:
        return events
    row = waiting_request(session, game_id)
    if row is None:
        return events
    lapsed = undo_events.UndoLapsed(request=row.request, seat=row.seat, to_version=row.to_version)
    return [*events[: first + 1], lapsed, *events[first + 1 :]]


#: the events that let no request lapse, even in an append that may (a request, made while
#: none waits; an accepted invitation)
_MOVE_NOTHING = frozenset({undo_events.UNDO_REQUESTED, creation_events.INVITATION_ACCEPTED})


def check_decision(
    session: Session, game_id: str, seat: int, request: int, head: int
) -> UndoRequest:
    # Requests are numbered by their event's version: anything else names none (and a
    # number too large for the database's integers must not reach it).
    row = session.get(UndoRequest, (game_id, request)) if 1 <= request <= head else None
    if row is None:
        raise GameNotFound(f"There is no undo request {request} in this game.")
    if row.status != "open":
        raise Conflict(f"Undo request {request} is already {row.status}.")
    if row.seat == seat:
        raise AgainstTheRules("You made this request: the other players decide on it.")
    if seat in json.loads(row.accepted_by):
        raise Conflict(f"You already accepted undo request {request}.")
    return row


def _action(e: StoredEvent) -> ev.ActionApplied:
    p = e.payload
    assert isinstance(p, ev.ActionApplied)
    return p
