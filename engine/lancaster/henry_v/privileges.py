"""At the King's Court: the privileges an office grants (rules text 001), usable only in the
next round, with one of the holder's own knights, and returned unused at its end.

- Shield (Lord High Chancellor): placed in a county with a knight, which cannot be expelled;
  back to the regal board once the county is evaluated.
- Archer (Lord High Constable): with a knight entering a conflict on its topmost empty space,
  the archer on the free space just below (none when the knight takes the lowest space);
  strength 2, its own rank, its points to its player; moves down with the card when France
  wins the first battle, back to the regal board otherwise.
- Tudor knight (Lord Great Chamberlain): strength 2, with a knight in a county (counting
  toward the minimum), at a conflict (in the knight's space), or supporting the lord; it
  accompanies the knight until that knight goes back to court (it joins it from Dorset), then
  returns to the regal board. Granted in round 5, it counts in the final knighthood.

In round 5 the Chancellor receives no shield and the Constable no archer (001).

Actions: ``("privilege", name, ally, strength, target, squires)`` — ``knight 2 to B with
shield``, ``knight 1 to conflict 7 with archer``, ``knight 2 to B with 1 squire and tudor``.
"""

from __future__ import annotations

from engine.core.protocol import Action, IllegalActionError
from engine.core.records import replace
from engine.lancaster.frames import Ctx
from engine.lancaster.pieces import name, occupant_text, own_space, remove
from engine.lancaster.state import Conflict, Occupant, Space, State
from engine.lancaster.targets import TARGETS, Placed, county_options

PRIVILEGES = ("shield", "archer", "tudor")
TITLES = {"shield": "the shield", "archer": "the archer", "tudor": "the Tudor knight"}


def _supply(state: State, privilege: str, change: int) -> State:
    supply = list(state.privilege_supply)
    supply[PRIVILEGES.index(privilege)] += change
    return replace(state, privilege_supply=(supply[0], supply[1], supply[2]))


# -- placing a knight with a privilege --------------------------------------------------------


def _archer_cards(state: State, colour: int) -> list[int]:
    """Cards where the knight takes the topmost empty space with a free space below it."""
    return sorted(
        card.card
        for _, _, card in state.conflicts()
        if len(card.spaces) <= 1 and own_space(card, colour) is None
    )


def privilege_options(state: State, seat: int) -> list[Action]:
    out: list[Action] = []
    for colour in state.colours_of(seat):
        col = state.colours[colour]
        ally = state.is_ally(colour)
        for privilege in sorted(set(col.privileges)):
            for strength in sorted(set(col.court)):
                if privilege == "shield":
                    targets = county_options(state, seat, colour, strength)
                elif privilege == "tudor":
                    targets = county_options(state, seat, colour, strength, escort=2)
                    targets += TARGETS["conflict"].options(state, seat, colour, strength)
                else:
                    targets = [(("conflict", n), 0, 0) for n in _archer_cards(state, colour)]
                for target, low, high in targets:
                    out.extend(
                        ("privilege", privilege, ally, strength, target, q)
                        for q in range(low, high + 1)
                    )
    return out


def privilege_check(state: State, seat: int, action: Action) -> None:
    if len(action) != 6 or action[1] not in PRIVILEGES or not isinstance(action[2], bool):
        raise IllegalActionError(
            "A privilege goes with a knight, e.g. 'knight 2 to B with shield'."
        )
    if not state.expansions & {"kings_court"}:
        raise IllegalActionError(
            "There are no privileges: At the King's Court is not in this game."
        )
    privilege, ally = str(action[1]), bool(action[2])
    colour = state.ally_of(seat) if ally else seat
    if colour is None:
        raise IllegalActionError("Allies exist only in the 2-player game.")
    if privilege not in state.colours[colour].privileges:
        raise IllegalActionError(
            f"You hold no {privilege} this round: privileges come with an office, usable in "
            "the next round."
        )
    if action in privilege_options(state, seat):
        return
    target = action[4]
    kind = target[0] if isinstance(target, tuple) and target else None
    if privilege == "shield" and kind != "county":
        raise IllegalActionError("The shield goes with a knight into a county.")
    if privilege == "archer" and kind != "conflict":
        raise IllegalActionError("The archer goes with a knight to a conflict.")
    if privilege == "archer":
        raise IllegalActionError(
            "The archer needs the free space just below its knight: the knight must take the "
            "topmost empty space of a card with at least two empty spaces, not stack."
        )
    if kind not in ("county", "conflict"):
        raise IllegalActionError("The Tudor knight goes with a knight to a county or a conflict.")
    # the ordinary placement rules say what else is wrong
    TARGETS[kind].check(state, seat, colour, int(action[3]), target[1], int(action[5]))
    raise IllegalActionError("That is not one of your choices now.")


def privilege_resolve(state: State, seat: int, action: Action, ctx: Ctx) -> Placed:
    _, privilege, ally, strength, target, squires = action
    colour = state.ally_of(seat) if ally else seat
    assert colour is not None
    col = state.colours[colour]
    state = state.with_colour(
        colour, court=remove(col.court, strength), privileges=remove_one(col.privileges, privilege)
    )
    kind = TARGETS[target[0]]
    placed = kind.resolve(state, seat, colour, strength, target[1], squires, ctx)
    state = placed.state
    ctx.say(f"  {name(state, colour)}'s knight {strength} goes with {TITLES[privilege]}.")
    if target[0] == "county":
        i = "ABCDEFGHI".index(str(target[1]))
        occ = state.counties[i]
        assert occ is not None
        occ = replace(occ, shield=True) if privilege == "shield" else replace(occ, tudor=True)
        counties = list(state.counties)
        counties[i] = occ
        return replace(placed, state=replace(state, counties=tuple(counties)))
    found = state.find_card(int(target[1]))
    assert found is not None
    row, slot, card = found
    spaces = list(card.spaces)
    if privilege == "archer":
        spaces.append(Space(colour, (), archer=True))  # the free space just below its knight
    else:
        i = next(i for i, sp in enumerate(spaces) if sp.colour == colour and not sp.archer)
        spaces[i] = replace(spaces[i], tudor=spaces[i].tudor + 1)
    state = state.with_card(row, slot, Conflict(card.card, tuple(spaces)))
    return replace(placed, state=state)


def remove_one(items: tuple[str, ...], item: str) -> tuple[str, ...]:
    i = items.index(item)
    return items[:i] + items[i + 1 :]


# -- coming back to the regal board ------------------------------------------------------------


def supply_tudor(state: State, ctx: Ctx) -> State:
    """A Tudor knight goes back to its supply space (001: when its knight goes to court)."""
    shields, archers, tudors = state.privilege_supply
    ctx.say("  The Tudor knight goes back to the regal board.")
    return replace(state, privilege_supply=(shields, archers, tudors + 1))


def shielded(state: State, occ: Occupant, letter: str) -> str | None:
    """001: a knight with the shield cannot be expelled."""
    if not occ.shield:
        return None
    return f"{occupant_text(state, occ)} holds {letter} with the shield: it cannot be expelled."


def expelled(state: State, occ: Occupant, ctx: Ctx) -> State:
    """001: an expelled knight's Tudor knight goes back with its knight's return."""
    return supply_tudor(state, ctx) if occ.tudor else state


def leave_county(state: State, occ: Occupant, ctx: Ctx, moved: bool) -> State:
    """The county's knight leaves (to court, or from Dorset to a conflict): the shield goes
    back; the Tudor knight too, unless it goes with its knight to the conflict."""
    if occ.shield:
        state = _supply(state, "shield", 1)
        ctx.say("  The shield goes back to the regal board.")
    if occ.tudor and not moved:
        state = _supply(state, "tudor", 1)
        ctx.say("  The Tudor knight goes back to the regal board.")
    return state


def join_conflict(state: State, colour: int, number: int, ctx: Ctx) -> State:
    """The Tudor knight of a knight moved from Dorset joins it at the conflict (001)."""
    found = state.find_card(number)
    assert found is not None
    row, slot, card = found
    spaces = tuple(
        replace(sp, tudor=sp.tudor + 1) if sp.colour == colour and not sp.archer else sp
        for sp in card.spaces
    )
    ctx.say("  The Tudor knight goes with it.")
    return state.with_card(row, slot, Conflict(card.card, spaces))


def return_card_privileges(state: State, card: Conflict, ctx: Ctx) -> State:
    """A card leaves the board (England won, or France twice): its Tudor knights and archers
    go back to the regal board."""
    tudors = sum(sp.tudor for sp in card.spaces)
    archers = sum(1 for sp in card.spaces if sp.archer)
    if tudors:
        state = _supply(state, "tudor", tudors)
        ctx.say("  The Tudor knight goes back to the regal board.")
    if archers:
        state = _supply(state, "archer", archers)
        ctx.say("  The archer goes back to the regal board.")
    return state


def grant(state: State, colour: int, privilege: str | None, ctx: Ctx) -> State:
    """An office's privilege, for the next round (001: none in round 5 but the Tudor knight)."""
    if privilege is None:
        return state
    if not state.privilege_supply[PRIVILEGES.index(privilege)]:
        ctx.say(f"  No {privilege} is left on the regal board.")
        return state
    state = _supply(state, privilege, -1)
    col = state.colours[colour]
    ctx.say(f"  {name(state, colour)} receives {TITLES[privilege]} for the next round.")
    return state.with_colour(colour, granted=tuple(sorted((*col.granted, privilege))))


def next_round(state: State, ctx: Ctx) -> State:
    """End of a round: unused privileges go back; this round's grants become usable."""
    for colour, col in enumerate(state.colours):
        for privilege in col.privileges:
            state = _supply(state, privilege, 1)
            ctx.say(f"{name(state, colour)} returns {TITLES[privilege]} unused.")
        state = state.with_colour(colour, privileges=col.granted, granted=())
    return state


def final_tudor(state: State, colour: int) -> int:
    """001: the Tudor knight granted in round 5 adds its strength to the final knighthood."""
    return 2 if "tudor" in state.colours[colour].granted else 0
