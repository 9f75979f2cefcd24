"""Phase 1: placing knights, and the king's favor tiles won at conflicts.

Actions:
- ``("place", ally, strength, target, squires)``: a knight of that strength from the court of
  the seat's colour (or, ``ally`` true, its ally's) to ``("county", "D")``,
  ``("castle", 3)`` or ``("conflict", 7)``; squires only with a county.
- ``("favor", tile, detail)``: the king's favor tile taken, with its choice (a knight to
  upgrade, a nobleman letter) or None.

Where a knight may go is the registry ``targets.TARGETS`` (the tower of The King's
Resentment is one of its entries); other actions of a placement turn are the registry
``PLACEMENTS`` (At the King's Court: ``lord`` and ``privilege``), both filled by ``wiring.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.core.protocol import Action, IllegalActionError
from engine.core.records import replace
from engine.lancaster import actions, auto
from engine.lancaster.frames import Ctx, Handler, replace_head
from engine.lancaster.pieces import apply_reward, name, remove, reward_details
from engine.lancaster.state import Frame, State
from engine.lancaster.targets import (
    TARGETS,
    Placed,
    Target,
    each_target,
    kind_targets,
    targets,
)


@dataclass(frozen=True)
class PlacementKind:
    """An action of a placement turn besides placing a knight of the court on a target."""

    verb: str
    #: (state, seat) -> its actions for the seat, each a tuple beginning with ``verb`` (the
    #: key it is registered under: ``is_option`` looks only at the kind an action names)
    options: Callable[[State, int], list[Action]]
    #: (state, seat) -> whether the seat can take it now (it is then always asked: the
    #: choice is besides the plain placement and may depend on hidden values); cheap
    available: Callable[[State, int], bool]
    #: (state, seat) -> whether the seat holds a piece to place besides its knights at court
    holds: Callable[[State, int], bool]
    #: (state, seat, action) -> None, or IllegalActionError
    check: Callable[[State, int, Action], None]
    #: (state, seat, action, ctx) -> Placed
    resolve: Callable[[State, int, Action, Ctx], Placed]


#: Extension point: the placement turn's other actions, by verb, in the order they are
#: offered before the knights' (At the King's Court: the lord, then knights with a privilege)
PLACEMENTS: dict[str, PlacementKind] = {}


def _targets(state: State, seat: int, colour: int, strength: int) -> list[Target]:
    return targets(state, seat, colour, strength)


def options(state: State, seat: int) -> list[Action]:
    out: list[Action] = [a for kind in PLACEMENTS.values() for a in kind.options(state, seat)]
    for colour in state.colours_of(seat):
        ally = state.is_ally(colour)
        for strength in sorted(set(state.colours[colour].court)):
            for target, low, high in _targets(state, seat, colour, strength):
                out.extend(
                    actions.Place("place", ally, strength, target, q) for q in range(low, high + 1)
                )
    return out


def is_option(state: State, seat: int, action: Action) -> bool:
    """``action in options(state, seat)``, building only the options that can equal it (``==``,
    as ``in`` compares): another action of the turn only among its own kind's (each begins with
    its verb), a placement only among the targets of the knight (ally flag, strength) and of
    the kind of place (``target[0]``) it names."""
    if not isinstance(action, tuple) or not action or type(action[0]) is not str:
        return False  # every option is a tuple that begins with its verb, a str
    placement = PLACEMENTS.get(action[0])
    if placement is not None:
        return action in placement.options(state, seat)
    if len(action) != 5 or action[0] != "place":
        return False
    target, squires = action[3], action[4]
    if not isinstance(target, tuple) or len(target) != 2 or type(target[0]) is not str:
        return False  # every target is (its kind's name, a value)
    kind = TARGETS.get(target[0])
    if kind is None:
        return False
    for colour in state.colours_of(seat):
        ally = state.is_ally(colour)
        for strength in sorted(set(state.colours[colour].court)):
            if action[1] != ally or action[2] != strength:
                continue
            for place, low, high in kind_targets(state, kind, seat, colour, strength):
                # the option ("place", ally, strength, place, q) for each q in the range
                if place == target and squires in range(low, high + 1):
                    return True
    return False


def can_place(state: State, seat: int) -> bool:
    if any(kind.available(state, seat) for kind in PLACEMENTS.values()):
        return True  # another action of the placement turn is open (PLACEMENTS)
    for colour in state.colours_of(seat):
        for strength in set(state.colours[colour].court):
            # a kind of place at a time: the first open target answers
            for _, low, high in each_target(state, seat, colour, strength):
                if low <= high:
                    return True
    return False


def passed_seats(frame: Frame) -> tuple[int, ...]:
    """Seats that passed for the rest of this placement phase (frame ``("place", seat,
    passed)``; a round starts with ``("place", start)``)."""
    return tuple(frame[2]) if len(frame) > 2 else ()


def _has_court_knights(state: State, seat: int) -> bool:
    knights = any(state.colours[c].court for c in state.colours_of(seat))
    return knights or any(kind.holds(state, seat) for kind in PLACEMENTS.values())


class Place(Handler):
    """``("place", seat, passed)``: whose turn it is, and who passed for the rest of the
    phase (decision: rules/README.md, Lancaster 2)."""

    kind = "place"

    def phase(self, state: State, frame: Frame) -> str:
        return "placement"

    def step(self, state: State, frame: Frame, ctx: Ctx) -> tuple[State, bool]:
        first = int(frame[1])
        passed = passed_seats(frame)
        for k in range(state.players):
            seat = (first + k) % state.players
            if not _has_court_knights(state, seat) or seat in passed:
                continue  # a player whose court is empty, or who passed, is skipped
            if can_place(state, seat):
                head = ("place", seat, passed)
                # (most turns the head names this seat already: the state stays as it is)
                return (state if frame == head else replace_head(state, head)), True
            # Lancaster: a player none of whose knights at court can be placed passes, for
            # the rest of this placement phase (decision 2).
            passed = tuple(sorted((*passed, seat)))
            ctx.say(
                f"{name(state, seat)} cannot place any knight from court and passes for the "
                "rest of this placement phase."
            )
        ctx.say("All knights that can be placed are placed: the placement phase ends.")
        return replace_head(state), False

    def options(self, state: State, frame: Frame, seat: int) -> list[Action]:
        return options(state, seat)

    def is_option(self, state: State, frame: Frame, seat: int, action: Action) -> bool:
        return is_option(state, seat, action)

    def ask(self, state: State, frame: Frame, seat: int) -> bool:
        if any(kind.available(state, seat) for kind in PLACEMENTS.values()):
            # such an action is a choice besides the plain placement (and may depend on
            # hidden values): always asked
            return True
        if state.two_player:
            return len(options(state, seat)) > 1  # squires are public with 2 players
        # Squires are hidden: with any county open to your own knights you could add
        # squires, so you are always asked there, whatever you hold.
        pairs = 0
        for colour in state.colours_of(seat):
            for strength in set(state.colours[colour].court):
                for target, _, _ in each_target(state, seat, colour, strength):
                    if target[0] == "county" and not state.is_ally(colour):
                        return True
                    pairs += 1
        return pairs > 1

    def check(self, state: State, frame: Frame, seat: int, action: Action) -> None:
        if action and isinstance(action[0], str) and action[0] in PLACEMENTS:
            PLACEMENTS[str(action[0])].check(state, seat, action)
            return
        if len(action) != 5 or action[0] != "place":
            raise IllegalActionError("Now you place a knight, e.g. 'knight 2 to D'.")
        _, ally, strength, target, squires = actions.Place.of(action)
        if not isinstance(ally, bool) or isinstance(strength, bool):
            raise IllegalActionError("Now you place a knight, e.g. 'knight 2 to D'.")
        if ally and not state.two_player:
            raise IllegalActionError("Allies exist only in the 2-player game.")
        colour = state.ally_of(seat) if ally else seat
        assert colour is not None
        who = "your ally's court" if ally else "your court"
        if strength not in state.colours[colour].court:
            have = ", ".join(map(str, state.colours[colour].court)) or "none"
            raise IllegalActionError(
                f"There is no knight of strength {strength} at {who} (there: {have})."
            )
        if isinstance(squires, bool) or not isinstance(squires, int) or squires < 0:
            raise IllegalActionError("The number of squires must be 0 or more.")
        kind = TARGETS.get(target[0]) if isinstance(target, tuple) and len(target) == 2 else None
        if kind is None:
            raise IllegalActionError("A knight goes to a county, a castle space or a conflict.")
        if squires and kind.kind != "county":
            raise IllegalActionError("Squires go only with a knight placed in a county.")
        kind.check(state, seat, colour, strength, target[1], squires)

    def resolve(self, state: State, frame: Frame, seat: int, action: Action, ctx: Ctx) -> State:
        if action[0] in PLACEMENTS:
            placed = PLACEMENTS[str(action[0])].resolve(state, seat, action, ctx)
        else:
            place = actions.Place.of(action)
            colour = state.ally_of(seat) if place.ally else seat
            assert colour is not None
            col = state.colours[colour]
            state = state.with_colour(colour, court=remove(col.court, place.strength))
            kind = TARGETS[place.target[0]]
            where = place.target[1]
            placed = kind.resolve(state, seat, colour, place.strength, where, place.squires, ctx)
        passed = passed_seats(frame)
        if placed.returned_to is not None:
            # decision 2: a player who passed places again once an expelled knight of theirs
            # is back at their court
            passed = tuple(p for p in passed if p != placed.returned_to)
        nxt = ("place", (seat + 1) % state.players, passed)
        return replace_head(placed.state, *placed.follow, nxt)

    def auto(self, state: State, frame: Frame, seat: int) -> Action:
        return auto.place(state, options(state, seat))

    def prompt(self, state: State, frame: Frame, seat: int) -> str:
        ally = " (or your ally's)" if state.two_player else ""
        return (
            f"Place a knight from your court{ally}: in a county (with squires if you like), "
            "on a free space of your castle, or at a conflict."
        )

    def waiting(self, state: State, frame: Frame) -> str:
        return f"Waiting for {state.colour_name(int(frame[1]))} to place a knight."


class Favor(Handler):
    """``("favor", colour)``: that colour's knight entered a conflict; choose a favor tile."""

    kind = "favor"

    def phase(self, state: State, frame: Frame) -> str:
        return "placement"

    def seats(self, state: State, frame: Frame) -> frozenset[int]:
        return frozenset({state.controller(int(frame[1]))})

    def options(self, state: State, frame: Frame, seat: int) -> list[Action]:
        colour = int(frame[1])
        out: list[Action] = []
        for tile in state.favors:
            reward = state.data.favor(tile).reward
            out.extend(
                actions.Favor("favor", tile, d) for d in reward_details(state, colour, reward)
            )
        return out

    def resolve(self, state: State, frame: Frame, seat: int, action: Action, ctx: Ctx) -> State:
        colour = int(frame[1])
        _, tile, detail = actions.Favor.of(action)
        reward = state.data.favor(tile).reward
        state = replace(state, favors=tuple(t for t in state.favors if t != tile))
        ctx.say(f"{name(state, colour)} takes the king's favor {tile}: {reward.describe()}.")
        # Lancaster: an unusable favor is lost (decision 4; for allies, decision 12).
        state = apply_reward(state, colour, reward, detail, ctx, "the king's favor")
        return replace_head(state)

    def auto(self, state: State, frame: Frame, seat: int) -> Action:
        return auto.knights_first(self.options(state, frame, seat))[0]

    def prompt(self, state: State, frame: Frame, seat: int) -> str:
        colour = int(frame[1])
        whose = "your ally's" if state.is_ally(colour) else "your"
        tiles = "; ".join(f"{t}: {state.data.favor(t).reward.describe()}" for t in state.favors)
        return f"Choose a king's favor tile for {whose} knight at the conflict ({tiles})."

    def waiting(self, state: State, frame: Frame) -> str:
        seat = state.controller(int(frame[1]))
        return f"Waiting for {state.colour_name(seat)} to choose a king's favor tile."
