"""The King's Resentment (rules text 001; decisions 14 and 15): the dishonor track, the
tower, dishonor for lost battles, and dishonor in the final scoring.

- Setup: each of the track's spaces holds a stack of dishonor markers by player count; the
  rest are in the supply box. The tower holds a neutral knight by player count.
- Phase 1: a knight may be dropped into the tower while the tower's total strength stays at
  most its capacity (7); its owner returns 1 dishonor marker to the supply box per strength
  point (all they have, if fewer). 2 players: ally knights may be dropped, annihilating none.
- Phase 3: before the counties, the tower is cleared (knights to their owners' court, the
  neutral knight stays). After every battle France wins (upper or lower row), every player
  with no knight on that card takes 1 dishonor marker: from the leftmost track stack, then
  the supply box, then without limit (decision 14). Allies take none.
- Final scoring: minus 1 per marker; the most dishonor also loses the larger number on the
  rightmost uncovered track space, the next most the smaller (decision 15; 2 players: only
  the larger).
"""

from __future__ import annotations

from typing import Any

from engine.core.protocol import IllegalActionError
from engine.core.records import replace
from engine.lancaster.data import Data
from engine.lancaster.frames import Ctx, Handler, pop
from engine.lancaster.henry_v import RESENTMENT
from engine.lancaster.pieces import name, plural, to_court
from engine.lancaster.state import Conflict, Frame, State

NEUTRAL = -1  # the tower's knight of a non-player colour


def active(state: State) -> bool:
    return RESENTMENT in state.expansions


def set_up(state: State) -> State:
    """The tower and the dishonor track, in a game with this module."""
    return replace(state, **setup_values(state.data, state.players)) if active(state) else state


def value_text(data: Data, path: list[str]) -> str:
    """The text of a value of this module's data (``resentment.<key>``), for the list of
    provisional values."""
    value = {
        "markers": data.dishonor_markers,
        "spaces": data.dishonor_spaces,
        "per_space": dict(data.dishonor_per_space),
        "penalties": "; ".join(f"{a}/{b}" for a, b in data.dishonor_penalties),
        "tower_capacity": data.tower_capacity,
        "tower_neutral": dict(data.tower_neutral),
    }[path[0]]
    return str(value)


def setup_values(data: Any, players: int) -> dict[str, Any]:
    """The State fields of this module at the start of a game."""
    per_space = dict(data.dishonor_per_space)[players]
    on_track = min(per_space * data.dishonor_spaces, data.dishonor_markers)
    track = [per_space] * data.dishonor_spaces
    if on_track < per_space * data.dishonor_spaces:  # fewer markers than the track takes
        track = [min(per_space, max(0, on_track - per_space * i)) for i in range(len(track))]
    neutral = dict(data.tower_neutral).get(players, 0)
    return {
        "dishonor_track": tuple(track),
        "dishonor_box": data.dishonor_markers - on_track,
        "tower": ((NEUTRAL, neutral),) if neutral else (),
    }


def tower_strength(state: State) -> int:
    return sum(k for _, k in state.tower)


# -- the tower (a placement target: ``targets.TARGETS["tower"]``) ------------------------------


def tower_options(
    state: State, seat: int, colour: int, strength: int
) -> list[tuple[tuple[str, Any], int, int]]:
    if not active(state) or tower_strength(state) + strength > state.data.tower_capacity:
        return []
    return [(("tower", None), 0, 0)]


def tower_check(
    state: State, seat: int, colour: int, strength: int, value: Any, squires: int
) -> None:
    if not active(state):
        raise IllegalActionError("There is no tower: The King's Resentment is not in this game.")
    room = state.data.tower_capacity - tower_strength(state)
    if strength > room:
        raise IllegalActionError(
            f"The tower holds knights of total strength {state.data.tower_capacity}; it has "
            f"room for {room} more, not your knight {strength}."
        )


def tower_resolve(
    state: State, seat: int, colour: int, strength: int, value: Any, squires: int, ctx: Ctx
) -> State:
    state = replace(state, tower=(*state.tower, (colour, strength)))
    who = name(state, colour)
    if state.is_ally(colour):
        # 001, 2 players: ally knights may be dropped, but annihilate no dishonor
        ctx.say(f"{who} drops knight {strength} into the tower (an ally annihilates nothing).")
        return state
    have = state.colours[colour].dishonor
    gone = min(have, strength)  # 001: one marker per strength point, all if fewer
    state = state.with_colour(colour, dishonor=have - gone)
    state = replace(state, dishonor_box=state.dishonor_box + gone)
    ctx.say(
        f"{who} drops knight {strength} into the tower and returns "
        f"{plural(gone, 'dishonor marker')} to the supply box."
    )
    return state


class ClearTower(Handler):
    """``("tower_clear",)``: before the counties are scored, the tower's knights go back to
    their owners' court; the neutral knight stays (001, Phase 3)."""

    kind = "tower_clear"

    def phase(self, state: State, frame: Frame) -> str:
        return "counties"

    def step(self, state: State, frame: Frame, ctx: Ctx) -> tuple[State, bool]:
        back = [(c, k) for c, k in state.tower if c != NEUTRAL]
        for colour, strength in back:
            state = to_court(state, colour, strength)
        if back:
            listed = ", ".join(f"{name(state, c)} {k}" for c, k in back)
            ctx.say(f"The tower is cleared: knights back to court ({listed}).")
        state = replace(state, tower=tuple((c, k) for c, k in state.tower if c == NEUTRAL))
        return pop(state), False


# -- dishonor for lost battles (a battle hook: ``conflicts.AFTER_BATTLE``) ---------------------


def take_dishonor(state: State, seat: int) -> State:
    """One marker: from the leftmost track stack, else the supply box, else without limit
    (001: "record them on a piece of paper"; decision 14)."""
    track = list(state.dishonor_track)
    for i, n in enumerate(track):
        if n:
            track[i] = n - 1
            state = replace(state, dishonor_track=tuple(track))
            break
    else:
        if state.dishonor_box:
            state = replace(state, dishonor_box=state.dishonor_box - 1)
    return state.with_colour(seat, dishonor=state.colours[seat].dishonor + 1)


def after_battle(state: State, card: Conflict, england: bool, ctx: Ctx) -> State:
    """decision 14: every battle France wins is a lost conflict; every player with no knight
    of their own on the card takes 1 dishonor marker, in player order (allies take none)."""
    if england or not active(state):
        return state
    # an archer is not a knight (001: "the players who contributed no knights")
    knights = {sp.colour for sp in card.spaces if sp.knights}
    takers = [s for s in state.seat_order() if s not in knights]
    for seat in takers:
        state = take_dishonor(state, seat)
    if takers:
        ctx.say(
            f"  Lost conflict: {', '.join(name(state, s) for s in takers)} "
            f"{'takes' if len(takers) == 1 else 'take'} 1 dishonor marker "
            f"{'' if len(takers) == 1 else 'each '}(no knight of theirs on the card)."
        )
    return state


# -- final scoring (a scoring term: ``scoring.SCORINGS``) --------------------------------------


def rightmost_uncovered(state: State) -> tuple[int, int] | None:
    """The penalties (larger, smaller) of the rightmost track space whose stack is gone."""
    gone = [i for i, n in enumerate(state.dishonor_track) if n == 0]
    return state.data.dishonor_penalties[gone[-1]] if gone else None


def dishonor_scoring(state: State) -> dict[str, list[int]]:
    """decision 15: -1 per marker; the most and the next most dishonor lose the larger and
    the smaller penalty of the rightmost uncovered space. Ties: more voting markers counts as
    less dishonor; still tied, the tied players share the penalties of their places equally,
    rounded down. A player without dishonor takes no track penalty (decision, not in the
    texts). 2 players: only the larger penalty."""
    n = state.players
    count = [state.colours[s].dishonor for s in range(n)]
    penalty = [0] * n
    printed = rightmost_uncovered(state)
    if printed is not None:
        places = [printed[0]] if state.two_player else [printed[0], printed[1]]
        key = {s: (count[s], -state.colours[s].voting_markers) for s in range(n)}
        ranked = sorted((s for s in range(n) if count[s] > 0), key=lambda s: key[s], reverse=True)
        place = 0
        while ranked and place < len(places):
            group = [s for s in ranked if key[s] == key[ranked[0]]]
            ranked = ranked[len(group) :]
            shared = sum(places[place : place + len(group)])
            for s in group:
                penalty[s] = shared // len(group)
            place += len(group)
    return {
        "dishonor": [-(count[s] + penalty[s]) for s in range(n)],
        "dishonor_markers": count,
        "dishonor_track_penalty": penalty,
    }
