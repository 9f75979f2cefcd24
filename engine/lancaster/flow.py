"""Driving the agenda: who acts, what they may do, applying an action and running on to the
next real decision.

``apply`` settles the head frame with the action, then ``advance`` runs every frame that needs
no decision, and takes every decision with a single option automatically (saying so in the
log), until some seat must choose or the game ends.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from engine.core.protocol import Action, IllegalActionError, NotYourTurnError, Transition
from engine.core.records import replace
from engine.lancaster.frames import Ctx, Handler, format_action, sorted_options
from engine.lancaster.phases import (
    conflicts,
    laws,
    parliament,
    placement,
    rewards,
    rounds,
)
from engine.lancaster.state import Frame, State

_ALL: tuple[Handler, ...] = (
    rounds.SetupExtension(),
    placement.Place(),
    placement.Favor(),
    parliament.VoteOnLaw(),
    parliament.ReturnMarkers(),
    parliament.ReturnMarkersLate(),
    laws.ApplyLaw(),
    laws.LawChoice(),
    rewards.CountyReward(),
    rewards.CastleReward(),
    rewards.CastlePaid(),
    rewards.AllyCastle(),
    rewards.CastleEnd(),
    conflicts.ResolveConflict(),
    conflicts.Ransom(),
    conflicts.Captured(),
    rounds.EndRound(),
)
_HANDLERS: dict[str, Handler] = {h.kind: h for h in _ALL}
#: Extension point: the handler of each frame kind, the base game's and those the modules
#: register (``register_handler`` in ``wiring.py``: the tower, the offices, extensions back)
HANDLERS: Mapping[str, Handler] = MappingProxyType(_HANDLERS)


def register_handler(*handlers: Handler) -> None:
    for h in handlers:
        _HANDLERS[h.kind] = h


def handler(frame: Frame) -> Handler:
    return HANDLERS[str(frame[0])]


def head(state: State) -> tuple[Frame, Handler] | None:
    if not state.agenda:
        return None
    frame = state.agenda[0]
    return frame, handler(frame)


def to_act(state: State) -> frozenset[int]:
    h = head(state)
    if h is None:
        return frozenset()
    return h[1].seats(state, h[0])


def legal_actions(state: State, seat: int) -> tuple[Action, ...]:
    h = head(state)
    if h is None or seat not in h[1].seats(state, h[0]):
        return ()
    return tuple(sorted_options(h[1].options(state, h[0], seat)))


def is_legal(state: State, seat: int, action: Action) -> bool:
    """``action in legal_actions(state, seat)``, without sorting the options (the verifier
    asks it of every recorded action)."""
    h = head(state)
    if h is None or seat not in h[1].seats(state, h[0]):
        return False
    return h[1].is_option(state, h[0], seat, action)


def check(state: State, seat: int, action: Action) -> tuple[Frame, Handler]:
    """The head frame and its handler, once ``action`` is known to be legal for ``seat``."""
    h = head(state)
    if h is None:
        raise NotYourTurnError("The game is over: nobody acts any more.")
    frame, hd = h
    if seat not in hd.seats(state, frame):
        raise NotYourTurnError(f"It is not your turn: {hd.waiting(state, frame)}")
    if not isinstance(action, tuple) or not action:
        raise IllegalActionError("An action must be a non-empty tuple.")
    hd.check(state, frame, seat, action)
    return frame, hd


def apply(state: State, seat: int, action: Action) -> Transition:
    frame, hd = check(state, seat, action)
    ctx = Ctx()
    state = hd.resolve(state, frame, seat, action, ctx)
    state = advance(state, ctx)
    return Transition(state, tuple(ctx.log), ctx.irreversible)


def advance(state: State, ctx: Ctx) -> State:
    while state.agenda:
        frame = state.agenda[0]
        hd = handler(frame)
        state, waiting = hd.step(state, frame, ctx)
        if not waiting:
            continue
        frame = state.agenda[0]
        seats = hd.seats(state, frame)
        if not seats:
            state = _pop(state)
            continue
        if hd.simultaneous or len(seats) != 1:
            return state
        seat = next(iter(seats))
        if hd.ask(state, frame, seat):
            return state
        options = hd.options(state, frame, seat)
        assert len(options) == 1, (frame, options)
        ctx.say(
            f"{state.colour_name(seat)} has one choice, taken automatically: "
            f"{format_action(state, options[0])}."
        )
        state = hd.resolve(state, frame, seat, options[0], ctx)
    return state


def _pop(state: State) -> State:
    return replace(state, agenda=state.agenda[1:])
