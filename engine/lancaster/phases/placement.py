"""Phase 1: placing knights, and the king's favor tiles won at conflicts.

Actions:
- ``("place", ally, strength, target, squires)``: a knight of that strength from the court of
  the seat's colour (or, ``ally`` true, its ally's) to ``("county", "D")``,
  ``("castle", 3)`` or ``("conflict", 7)``; squires only with a county.
- ``("favor", tile, detail)``: the king's favor tile taken, with its choice (a knight to
  upgrade, a nobleman letter) or None.

Henry V hooks in here: the tower (an extra target) joins ``TARGETS``; the lord (an extra
actor at court) adds its own options to a turn in ``options`` and ``can_place``.
"""

from __future__ import annotations

from dataclasses import replace

from engine.core.protocol import Action, IllegalActionError
from engine.lancaster.data import COUNTY_LETTERS
from engine.lancaster.frames import Ctx, Handler, replace_head
from engine.lancaster.pieces import (
    apply_reward,
    enter_conflict,
    enterable_cards,
    name,
    occupant_text,
    plural,
    remove,
    reward_details,
    to_court,
)
from engine.lancaster.state import Frame, Occupant, State

Target = tuple[tuple[str, object], int, int]  # (target, least squires, most squires)


def _counties(state: State, seat: int, colour: int, strength: int) -> list[Target]:
    out: list[Target] = []
    # decision 12: no squires for ally knights
    max_sq = 0 if state.is_ally(colour) else state.colours[colour].squires
    for i, county in enumerate(state.data.counties):
        if strength < county.minimum:
            continue  # Lancaster: the knight alone must meet the minimum (decision 3)
        occ = state.counties[i]
        if occ is None:
            out.append((("county", county.letter), 0, max_sq))
            continue
        if state.controller(occ.colour) == seat:
            continue  # you can never expel your own knight (or your ally's, decision 12)
        need = max(0, occ.total + 1 - strength)  # your total must exceed theirs (decision 3)
        out.append((("county", county.letter), need, max_sq))
    return out


def _castle(state: State, seat: int, colour: int, strength: int) -> list[Target]:
    col = state.colours[colour]
    return [
        (("castle", n), 0, 0)
        for n in range(1, 7)
        if n not in col.extensions and col.castle[n - 1] is None
    ]


def _conflicts(state: State, seat: int, colour: int, strength: int) -> list[Target]:
    return [(("conflict", n), 0, 0) for n in enterable_cards(state, colour)]


#: Where a knight may go, by kind of target. Henry V adds the tower here (and the lord, an
#: extra actor at court, adds its own options to a turn in ``options``).
TARGETS = (_counties, _castle, _conflicts)


def _targets(state: State, seat: int, colour: int, strength: int) -> list[Target]:
    """Every target a knight of ``strength`` may go to, with its squire bounds (only
    counties take squires; an empty range means the squires the player holds are too few)."""
    return [t for kind in TARGETS for t in kind(state, seat, colour, strength)]


def options(state: State, seat: int) -> list[Action]:
    out: list[Action] = []
    for colour in state.colours_of(seat):
        ally = state.is_ally(colour)
        for strength in sorted(set(state.colours[colour].court)):
            for target, low, high in _targets(state, seat, colour, strength):
                out.extend(("place", ally, strength, target, q) for q in range(low, high + 1))
    return out


def can_place(state: State, seat: int) -> bool:
    for colour in state.colours_of(seat):
        for strength in set(state.colours[colour].court):
            for _, low, high in _targets(state, seat, colour, strength):
                if low <= high:
                    return True
    return False


def passed_seats(frame: Frame) -> tuple[int, ...]:
    """Seats that passed for the rest of this placement phase (frame ``("place", seat,
    passed)``; a round starts with ``("place", start)``)."""
    return tuple(frame[2]) if len(frame) > 2 else ()


def _has_court_knights(state: State, seat: int) -> bool:
    return any(state.colours[c].court for c in state.colours_of(seat))


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
                return replace_head(state, ("place", seat, passed)), True
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

    def ask(self, state: State, frame: Frame, seat: int) -> bool:
        if state.two_player:
            return len(options(state, seat)) > 1  # squires are public with 2 players
        # Squires are hidden: with any county open to your own knights you could add
        # squires, so you are always asked there, whatever you hold.
        pairs = 0
        for colour in state.colours_of(seat):
            for strength in set(state.colours[colour].court):
                for target, _, _ in _targets(state, seat, colour, strength):
                    if target[0] == "county" and not state.is_ally(colour):
                        return True
                    pairs += 1
        return pairs > 1

    def check(self, state: State, frame: Frame, seat: int, action: Action) -> None:
        if len(action) != 5 or action[0] != "place":
            raise IllegalActionError("Now you place a knight, e.g. 'knight 2 to D'.")
        _, ally, strength, target, squires = action
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
        kind = target[0] if isinstance(target, tuple) and len(target) == 2 else None
        if kind == "county" and target[1] in COUNTY_LETTERS:
            self._check_county(state, seat, colour, strength, target[1], squires)
            return
        if squires:
            raise IllegalActionError("Squires go only with a knight placed in a county.")
        if kind == "castle" and target[1] in range(1, 7):
            col = state.colours[colour]
            if target[1] in col.extensions:
                raise IllegalActionError(
                    f"Castle space {target[1]} is covered by an extension tile; "
                    "no knight can be placed there."
                )
            if col.castle[target[1] - 1] is not None:
                raise IllegalActionError(f"Castle space {target[1]} already holds a knight.")
            return
        if kind == "conflict":
            if state.find_card(target[1]) is None:
                cards = ", ".join(str(c.card) for _, _, c in state.conflicts())
                raise IllegalActionError(
                    f"Conflict {target[1]} is not on the board (conflicts: {cards})."
                )
            if target[1] not in enterable_cards(state, colour):
                raise IllegalActionError(
                    f"Conflict {target[1]} has no empty space, and you have no knight there "
                    "to stack on (Lancaster: one space per player per conflict)."
                )
            return
        raise IllegalActionError("A knight goes to a county, a castle space or a conflict.")

    def _check_county(
        self, state: State, seat: int, colour: int, strength: int, letter: str, squires: int
    ) -> None:
        county = state.data.county(letter)
        if strength < county.minimum:
            raise IllegalActionError(
                f"{county.name} ({letter}) needs a knight of strength {county.minimum} or more; "
                "squires do not count toward the minimum."
            )
        if state.is_ally(colour) and squires:
            raise IllegalActionError("Ally knights are placed without squires.")
        have = state.colours[colour].squires
        if squires > have:
            raise IllegalActionError(f"You have only {plural(have, 'squire')}.")
        occ = state.counties[COUNTY_LETTERS.index(letter)]
        if occ is None:
            return
        if state.controller(occ.colour) == seat:
            raise IllegalActionError(
                f"{letter} holds your own knight (or your ally's): you can never expel it."
            )
        if strength + squires <= occ.total:
            raise IllegalActionError(
                f"To expel {occupant_text(state, occ)} from {letter} (total {occ.total}) your "
                f"knight and squires must exceed it; you offer {strength + squires}."
            )

    def resolve(self, state: State, frame: Frame, seat: int, action: Action, ctx: Ctx) -> State:
        _, ally, strength, target, squires = action
        colour = state.ally_of(seat) if ally else seat
        assert colour is not None
        col = state.colours[colour]
        state = state.with_colour(colour, court=remove(col.court, strength))
        who = name(state, colour)
        follow: list[Frame] = []
        passed = passed_seats(frame)
        if target[0] == "county":
            i = COUNTY_LETTERS.index(target[1])
            sq = f" with {plural(squires, 'squire')}" if squires else ""
            ctx.say(f"{who} places knight {strength} in {target[1]}{sq}.")
            occ = state.counties[i]
            if occ is not None:
                # Lancaster: the expelled knight goes back to its owner's court, its squires
                # to the supply (decision 3); it is placed again later this phase (decision 2).
                state = to_court(state, occ.colour, occ.strength)
                ctx.say(f"{occupant_text(state, occ)} is expelled back to court.")
                # decision 2: a player who passed places again once an expelled knight of
                # theirs is back at their court
                owner = state.controller(occ.colour)
                passed = tuple(p for p in passed if p != owner)
            counties = list(state.counties)
            counties[i] = Occupant(colour, strength, squires)
            state = state.with_colour(colour, squires=state.colours[colour].squires - squires)
            state = replace(state, counties=tuple(counties))
        elif target[0] == "castle":
            castle = list(col.castle)
            castle[target[1] - 1] = strength
            state = state.with_colour(colour, castle=tuple(castle))
            ctx.say(f"{who} places knight {strength} on castle space {target[1]}.")
        else:
            found = state.find_card(target[1])
            assert found is not None
            stacked = any(sp.colour == colour for sp in found[2].spaces)
            state = enter_conflict(state, colour, strength, target[1])
            how = "stacks" if stacked else "places"
            ctx.say(f"{who} {how} knight {strength} at conflict {target[1]}.")
            if state.favors:
                # Lancaster: the first 6 knights at conflicts each take a king's favor
                # (decision 4); a tile is taken while any is face up.
                follow.append(("favor", colour))
        return replace_head(state, *follow, ("place", (seat + 1) % state.players, passed))

    def auto(self, state: State, frame: Frame, seat: int) -> Action:
        from engine.lancaster.auto import place

        return place(state, seat)

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
            out.extend(("favor", tile, d) for d in reward_details(state, colour, reward))
        return out

    def resolve(self, state: State, frame: Frame, seat: int, action: Action, ctx: Ctx) -> State:
        colour = int(frame[1])
        _, tile, detail = action
        reward = state.data.favor(tile).reward
        state = replace(state, favors=tuple(t for t in state.favors if t != tile))
        ctx.say(f"{name(state, colour)} takes the king's favor {tile}: {reward.describe()}.")
        # Lancaster: an unusable favor is lost (decision 4; for allies, decision 12).
        state = apply_reward(state, colour, reward, detail, ctx, "the king's favor")
        return replace_head(state)

    def prompt(self, state: State, frame: Frame, seat: int) -> str:
        colour = int(frame[1])
        whose = "your ally's" if state.is_ally(colour) else "your"
        tiles = "; ".join(f"{t}: {state.data.favor(t).reward.describe()}" for t in state.favors)
        return f"Choose a king's favor tile for {whose} knight at the conflict ({tiles})."

    def waiting(self, state: State, frame: Frame) -> str:
        seat = state.controller(int(frame[1]))
        return f"Waiting for {state.colour_name(seat)} to choose a king's favor tile."
