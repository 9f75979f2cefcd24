"""Where a knight may be placed in phase 1: one registry of *target kinds*.

A target is ``(kind, value)``: ``("county", "D")``, ``("castle", 3)``, ``("conflict", 7)``,
and those an expansion registers (``register_target``, from ``wiring.py``). Each kind says
where a knight of a given strength may go (with the squires it may take), why a placement is
illegal, what placing does, and how the notation writes it; adding a place is one entry and
its functions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from engine.core.protocol import IllegalActionError
from engine.core.records import replace
from engine.lancaster.data import COUNTY_LETTERS
from engine.lancaster.frames import Ctx, FavorFrame
from engine.lancaster.pieces import (
    county_label,
    enter_conflict,
    enterable_cards,
    name,
    occupant_text,
    own_space,
    plural,
    to_court,
)
from engine.lancaster.state import Frame, Occupant, State

#: (target, least squires, most squires): only counties take squires
Target = tuple[tuple[str, Any], int, int]


@dataclass(frozen=True)
class Placed:
    """What placing a knight did: the new state, the frames that follow it this turn (a
    king's favor), and the seat whose expelled knight came back to court (decision 2)."""

    state: State
    follow: tuple[Frame, ...] = ()
    returned_to: int | None = None


@dataclass(frozen=True)
class TargetKind:
    kind: str
    #: (state, seat, colour, strength) -> the targets of this kind that knight may go to, each
    #: ``(kind, value)`` (``placement.is_option`` looks only at the kind a placement names)
    options: Callable[[State, int, int, int], list[Target]]
    #: (state, seat, colour, strength, value, squires) -> None, or IllegalActionError
    check: Callable[[State, int, int, int, Any, int], None]
    #: (state, seat, colour, strength, value, squires, ctx) -> Placed (the knight has left
    #: the court already)
    resolve: Callable[[State, int, int, int, Any, int, Ctx], Placed]
    #: value -> the words after "to" in the notation ("D", "castle 3", "tower")
    words: Callable[[Any], str]


# -- counties ----------------------------------------------------------------------------------

#: Extension point: why a county's knight cannot be expelled, ``(state, occupant, letter) ->
#: reason or None`` (At the King's Court: the shield); filled by ``wiring.py``, like the next
PROTECTED: list[Callable[[State, Occupant, str], str | None]] = []
#: Extension point: what goes back with an expelled knight, ``(state, occupant, ctx) ->
#: state`` (At the King's Court: its Tudor knight, to the regal board)
EXPELLED: list[Callable[[State, Occupant, Ctx], State]] = []


def county_options(
    state: State, seat: int, colour: int, strength: int, escort: int = 0
) -> list[Target]:
    """Counties a knight may enter; ``escort``: the strength of a piece placed with it that
    counts toward the minimum (At the King's Court: a Tudor knight, 2; 001)."""
    out: list[Target] = []
    might = strength + escort
    # decision 12: no squires for ally knights
    max_sq = 0 if state.is_ally(colour) else state.colours[colour].squires
    occupants = state.counties
    for i, county in enumerate(state.data.counties):
        if might < county.minimum:
            continue  # Lancaster: the knight alone must meet the minimum (decision 3)
        occ = occupants[i]
        if occ is None:
            out.append((("county", county.letter), 0, max_sq))
            continue
        if state.controller(occ.colour) == seat:
            continue  # you can never expel your own knight (or your ally's, decision 12)
        if any(protected(state, occ, county.letter) for protected in PROTECTED):
            continue
        need = max(0, occ.total + 1 - might)  # your total must exceed theirs (decision 3)
        out.append((("county", county.letter), need, max_sq))
    return out


def _county_check(
    state: State, seat: int, colour: int, strength: int, letter: Any, squires: int
) -> None:
    if letter not in COUNTY_LETTERS or not isinstance(letter, str) or len(letter) != 1:
        raise IllegalActionError("Counties are the letters A to I.")
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
    for protected in PROTECTED:
        reason = protected(state, occ, letter)
        if reason:
            raise IllegalActionError(reason)
    if strength + squires <= occ.total:
        raise IllegalActionError(
            f"To expel {occupant_text(state, occ)} from {county_label(state, letter)} "
            f"(total {occ.total}) your "
            f"knight and squires must exceed it; you offer {strength + squires}."
        )


def _county_resolve(
    state: State, seat: int, colour: int, strength: int, letter: Any, squires: int, ctx: Ctx
) -> Placed:
    i = COUNTY_LETTERS.index(letter)
    sq = f" with {plural(squires, 'squire')}" if squires else ""
    ctx.say(f"{name(state, colour)} places knight {strength} in {county_label(state, letter)}{sq}.")
    occ = state.counties[i]
    returned: int | None = None
    if occ is not None:
        # Lancaster: the expelled knight goes back to its owner's court, its squires to the
        # supply (decision 3); it is placed again later this phase (decision 2).
        state = to_court(state, occ.colour, occ.strength)
        ctx.say(f"{occupant_text(state, occ)} is expelled back to court.")
        returned = state.controller(occ.colour)
        for expelled in EXPELLED:
            state = expelled(state, occ, ctx)
    counties = list(state.counties)
    counties[i] = Occupant(colour, strength, squires)
    if squires:
        state = state.with_colour(colour, squires=state.colours[colour].squires - squires)
    return Placed(replace(state, counties=tuple(counties)), returned_to=returned)


# -- castle spaces -----------------------------------------------------------------------------


def _castle_options(state: State, seat: int, colour: int, strength: int) -> list[Target]:
    col = state.colours[colour]
    return [
        (("castle", sp.number), 0, 0)
        for sp in state.data.castle_of(state.is_ally(colour))
        if sp.number not in col.extensions and col.castle[sp.number - 1] is None
    ]


def _castle_check(
    state: State, seat: int, colour: int, strength: int, n: Any, squires: int
) -> None:
    if isinstance(n, bool) or n not in range(1, 7):
        raise IllegalActionError("Castle spaces are numbered 1 to 6.")
    spaces = len(state.data.castle_of(state.is_ally(colour)))
    if n > spaces:
        # decision: rules/README.md, Lancaster 12 (as printed): the ally's small castle
        raise IllegalActionError(
            f"The ally's castle has {spaces} spaces: 1 (a new knight) and 2 (an upgrade)."
        )
    col = state.colours[colour]
    if n in col.extensions:
        raise IllegalActionError(
            f"Castle space {n} is covered by an extension tile; no knight can be placed there."
        )
    if col.castle[n - 1] is not None:
        raise IllegalActionError(f"Castle space {n} already holds a knight.")


def _castle_resolve(
    state: State, seat: int, colour: int, strength: int, n: Any, squires: int, ctx: Ctx
) -> Placed:
    castle = list(state.colours[colour].castle)
    castle[n - 1] = strength
    ctx.say(f"{name(state, colour)} places knight {strength} on castle space {n}.")
    return Placed(state.with_colour(colour, castle=tuple(castle)))


# -- conflicts ---------------------------------------------------------------------------------


def _conflict_options(state: State, seat: int, colour: int, strength: int) -> list[Target]:
    return [(("conflict", n), 0, 0) for n in enterable_cards(state, colour)]


def _conflict_check(
    state: State, seat: int, colour: int, strength: int, n: Any, squires: int
) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or state.find_card(n) is None:
        cards = ", ".join(str(c.card) for _, _, c in state.conflicts())
        raise IllegalActionError(f"Conflict {n} is not on the board (conflicts: {cards}).")
    if n not in enterable_cards(state, colour):
        raise IllegalActionError(
            f"Conflict {n} has no empty space, and you have no knight there "
            "to stack on (Lancaster: one space per player per conflict)."
        )


def _conflict_resolve(
    state: State, seat: int, colour: int, strength: int, n: Any, squires: int, ctx: Ctx
) -> Placed:
    found = state.find_card(n)
    assert found is not None
    stacked = own_space(found[2], colour) is not None
    state = enter_conflict(state, colour, strength, n)
    how = "stacks" if stacked else "places"
    ctx.say(f"{name(state, colour)} {how} knight {strength} at conflict {n}.")
    # Lancaster: the first 6 knights at conflicts each take a king's favor (decision 4); a
    # tile is taken while any is face up.
    return Placed(state, follow=(FavorFrame("favor", colour),) if state.favors else ())


#: Extension point: every kind of place a knight may go in phase 1, base game first, then the
#: modules' (The King's Resentment's tower, ``register_target`` in ``wiring.py``).
TARGETS: dict[str, TargetKind] = {
    t.kind: t
    for t in (
        TargetKind("county", county_options, _county_check, _county_resolve, str),
        TargetKind("castle", _castle_options, _castle_check, _castle_resolve, "castle {}".format),
        TargetKind(
            "conflict", _conflict_options, _conflict_check, _conflict_resolve, "conflict {}".format
        ),
    )
}


def register_target(kind: TargetKind) -> None:
    """An expansion's place for knights, offered after those already registered."""
    TARGETS[kind.kind] = kind


def targets(state: State, seat: int, colour: int, strength: int) -> list[Target]:
    """Every target a knight of ``strength`` may go to, with its squire bounds (an empty range
    means the squires the player holds are too few)."""
    return [t for kind in TARGETS.values() for t in kind.options(state, seat, colour, strength)]


def each_target(state: State, seat: int, colour: int, strength: int) -> Iterator[Target]:
    """``targets`` one kind of place at a time, for a caller that may stop at the first it
    looks for (the kinds after it are not computed)."""
    for kind in TARGETS.values():
        yield from kind_targets(state, kind, seat, colour, strength)


def kind_targets(
    state: State, kind: TargetKind, seat: int, colour: int, strength: int
) -> tuple[Target, ...]:
    """``kind.options``, computed once per state (``State.memo``): a placement turn asks them
    when it is reached (can the seat place, is it asked) and again of the action played (is
    it legal)."""
    key = ("targets", kind.kind, seat, colour, strength)
    memo = state.memo()
    found: tuple[Target, ...] | None = memo.get(key)
    if found is None:
        found = memo[key] = tuple(kind.options(state, seat, colour, strength))
    return found
