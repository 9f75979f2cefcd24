"""Knights, resources and rewards: the small moves every phase is made of.

A knight reference (for upgrades) is ``(strength, where)`` with ``where`` one of ``"court"``,
``"county D"``, ``"castle 3"`` or ``"conflict 7"``: knights of equal strength at one place are
interchangeable, so this names every distinct choice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.core.records import replace
from engine.lancaster.data import COUNTY_LETTERS, Reward
from engine.lancaster.frames import Ctx
from engine.lancaster.state import Conflict, Occupant, Space, State

KnightRef = tuple[int, str]

#: Extension point: what may be taken instead of upgrading a knight, ``(state, colour) ->
#: options`` (At the King's Court: ``"bishop"``, 001: "Whenever a player may upgrade one of
#: his knights, he may take a bishop instead"); filled by ``wiring.py``
UPGRADE_EXTRAS: list[Callable[[State, int], list[Any]]] = []
#: Extension point: what taking such an extra does, option -> ``(state, colour, ctx) -> state``
UPGRADE_TAKERS: dict[str, Callable[[State, int, Ctx], State]] = {}


def add(strengths: tuple[int, ...], *more: int) -> tuple[int, ...]:
    return tuple(sorted(strengths + more))


def remove(strengths: tuple[int, ...], strength: int) -> tuple[int, ...]:
    i = strengths.index(strength)
    return strengths[:i] + strengths[i + 1 :]


def name(state: State, colour: int) -> str:
    """A colour's name for the log; an ally says whose it is."""
    if state.is_ally(colour):
        owner = state.colour_name(state.controller(colour))
        return f"{state.colour_name(colour)} ({owner}'s ally)"
    return state.colour_name(colour)


def county_label(state: State, letter: str) -> str:
    """A county as the log names it: its printed name and letter, "York (C)"; under rules
    1.0.0 the letter alone, as its games' logs (and golden transcripts) always said."""
    if not state.data.county_names_in_log:
        return letter
    return f"{state.data.county(letter).name} ({letter})"


def plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one}" if n == 1 else f"{n} {many or one + 's'}"


# -- where knights are -------------------------------------------------------------------------


def board_knights(state: State, colour: int) -> list[KnightRef]:
    """Every knight of ``colour`` on the board (counties, castle, conflicts): "deployed"."""
    out: list[KnightRef] = []
    for i, occ in enumerate(state.counties):
        if occ is not None and occ.colour == colour:
            out.append((occ.strength, f"county {COUNTY_LETTERS[i]}"))
    for i, s in enumerate(state.colours[colour].castle):
        if s is not None:
            out.append((s, f"castle {i + 1}"))
    for _, _, card in state.conflicts():
        for space in card.spaces:
            if space.colour == colour:
                out.extend((k, f"conflict {card.card}") for k in space.knights)
    return out


def upgrade_targets(state: State, colour: int, deployed_only: bool = False) -> list[KnightRef]:
    """Knights that can be upgraded: not in the reserve, and the reserve holds one exactly
    one strength higher (decision: rules/README.md, Lancaster 9)."""
    reserve = state.colours[colour].reserve
    candidates = board_knights(state, colour)
    if not deployed_only:
        candidates += [(s, "court") for s in state.colours[colour].court]
    return sorted({ref for ref in candidates if ref[0] + 1 in reserve})


def upgrade_choices(state: State, colour: int, deployed_only: bool = False) -> list[Any]:
    """The knights that can be upgraded, and "bishop" when a bishop may be taken instead
    (At the King's Court, 001: "Whenever a player may upgrade one of his knights, he may
    take a bishop instead")."""
    out: list[Any] = list(upgrade_targets(state, colour, deployed_only))
    for extras in UPGRADE_EXTRAS:
        out.extend(extras(state, colour))
    return out


def upgrade_extra(value: Any) -> bool:
    """Whether ``value`` names a piece taken instead of an upgrade (``UPGRADE_TAKERS``), which
    actions and the notation write by its name."""
    return isinstance(value, str) and value in UPGRADE_TAKERS


def describe_ref(ref: KnightRef) -> str:
    strength, where = ref
    prep = "at" if where == "court" or where.startswith("conflict") else "in"
    return f"knight {strength} {prep} {where}"


def upgrade(state: State, colour: int, ref: KnightRef) -> State:
    """Swap the knight at ``ref`` for the reserve knight one strength higher."""
    strength, where = ref
    col = state.colours[colour]
    reserve = add(remove(col.reserve, strength + 1), strength)
    state = state.with_colour(colour, reserve=reserve)
    if where == "court":
        return state.with_colour(colour, court=add(remove(col.court, strength), strength + 1))
    kind, _, key = where.partition(" ")
    if kind == "county":
        i = COUNTY_LETTERS.index(key)
        occ = state.counties[i]
        assert occ is not None and occ.colour == colour and occ.strength == strength
        counties = list(state.counties)
        counties[i] = replace(occ, strength=strength + 1)
        return replace(state, counties=tuple(counties))
    if kind == "castle":
        castle = list(col.castle)
        assert castle[int(key) - 1] == strength
        castle[int(key) - 1] = strength + 1
        return state.with_colour(colour, castle=tuple(castle))
    found = state.find_card(int(key))
    assert found is not None
    row, slot, card = found
    spaces = tuple(
        replace(sp, knights=add(remove(sp.knights, strength), strength + 1))
        if sp.colour == colour and strength in sp.knights
        else sp
        for sp in card.spaces
    )
    return state.with_card(row, slot, Conflict(card.card, spaces))


def new_knight(state: State, colour: int) -> tuple[State, bool]:
    """A strength-1 knight from the reserve to court; False if there is none (decision 9)."""
    col = state.colours[colour]
    if 1 not in col.reserve:
        return state, False
    return state.with_colour(colour, reserve=remove(col.reserve, 1), court=add(col.court, 1)), True


def to_court(state: State, colour: int, *strengths: int) -> State:
    return state.with_colour(colour, court=add(state.colours[colour].court, *strengths))


def to_reserve(state: State, colour: int, *strengths: int) -> State:
    return state.with_colour(colour, reserve=add(state.colours[colour].reserve, *strengths))


def gain(
    state: State,
    colour: int,
    *,
    gold: int = 0,
    squires: int = 0,
    voting_markers: int = 0,
    power: int = 0,
) -> State:
    """Add resources to a player's colour; allies get none (decision 12)."""
    if state.is_ally(colour) or not (gold or squires or voting_markers or power):
        return state
    c = state.colours[colour]
    return state.with_colour(
        colour,
        gold=c.gold + gold,
        squires=c.squires + squires,
        voting_markers=c.voting_markers + voting_markers,
        power=c.power + power,
    )


def resources_text(gold: int = 0, squires: int = 0, voting_markers: int = 0, power: int = 0) -> str:
    parts = []
    if gold:
        parts.append(f"{gold} gold")
    if squires:
        parts.append(plural(squires, "squire"))
    if voting_markers:
        parts.append(plural(voting_markers, "voting marker"))
    if power:
        parts.append(plural(power, "power point"))
    return " and ".join(parts)


def free_extension_spaces(state: State, colour: int) -> list[int]:
    """Castle spaces an extension tile may cover: not covered; under rules 1.0.0 also no
    knight on them (engine README decision 2); as printed, a space with a knight too, which
    sends the knight back to court (decision: rules/README.md, Lancaster 17)."""
    if state.is_ally(colour):
        return []  # the ally's castle cannot be extended (decision 12)
    col = state.colours[colour]
    over_knights = state.data.extension_covers_knight
    return [
        n
        for n in range(1, 7)
        if n not in col.extensions and (over_knights or col.castle[n - 1] is None)
    ]


def place_extension(state: State, colour: int, n: int, ctx: Ctx, source: str = "") -> State:
    """An extension tile on castle space ``n``; a knight standing there goes back to its
    court at once, without scoring (Lancaster: rulebook, "Extension tiles": "If a knight is
    present on the covered space, the player moves him to their court immediately without
    scoring"; decision: rules/README.md, Lancaster 17)."""
    col = state.colours[colour]
    state = state.with_colour(colour, extensions=add(col.extensions, n))
    ctx.say(f"{source}{name(state, colour)} places an extension tile on castle space {n}.")
    knight = col.castle[n - 1]
    if knight is not None:
        castle = list(col.castle)
        castle[n - 1] = None
        state = to_court(state.with_colour(colour, castle=tuple(castle)), colour, knight)
        ctx.say(
            f"{name(state, colour)}'s knight {knight} on castle space {n} goes back to court "
            "without scoring: the extension tile covers its space."
        )
    return state


def own_space(card: Conflict, colour: int) -> Space | None:
    """The colour's knight space on a card (an archer's space is not one: 001)."""
    return next((sp for sp in card.spaces if sp.holds_knights_of(colour)), None)


def enterable_cards(state: State, colour: int) -> list[int]:
    """Conflict cards a knight of ``colour`` may join: stacking on its own space, or the
    topmost empty space (decision: rules/README.md, Lancaster 4)."""
    out = []
    for _, _, card in state.conflicts():
        if len(card.spaces) < 3 or own_space(card, colour) is not None:
            out.append(card.card)
    return sorted(out)


def enter_conflict(state: State, colour: int, strength: int, number: int) -> State:
    found = state.find_card(number)
    assert found is not None
    row, slot, card = found
    spaces = list(card.spaces)
    for i, sp in enumerate(spaces):
        if sp.holds_knights_of(colour):
            spaces[i] = replace(sp, knights=add(sp.knights, strength))  # stacking on your own
            break
    else:
        assert len(spaces) < 3
        spaces.append(Space(colour, (strength,)))  # the topmost empty space
    return state.with_card(row, slot, Conflict(card.card, tuple(spaces)))


def nobleman_letters(state: State, colour: int) -> list[str]:
    """Letters a colour may take from the county stacks: a tile left and not already held.
    An ally takes a tile only to remove it from the game (decision 12)."""
    held = state.colours[colour].nobles
    return [
        letter
        for i, letter in enumerate(COUNTY_LETTERS)
        if state.nobles[i] > 0 and (state.is_ally(colour) or letter not in held)
    ]


def _nobleman(state: State, letter: str) -> str:
    """A nobleman tile as the log names it: "B" (rules 1.0.0), "of Stafford (B)" (printed)."""
    label = county_label(state, letter)
    return letter if label == letter else f"of {label}"


def take_nobleman(state: State, colour: int, letter: str, ctx: Ctx) -> State:
    i = COUNTY_LETTERS.index(letter)
    nobles = list(state.nobles)
    nobles[i] -= 1
    state = replace(state, nobles=tuple(nobles))
    if state.is_ally(colour):
        ctx.say(
            f"{name(state, colour)} removes a nobleman {_nobleman(state, letter)} from the game."
        )
        return state
    ctx.say(f"{name(state, colour)} takes the nobleman {_nobleman(state, letter)}.")
    return state.with_colour(colour, nobles=tuple(sorted((*state.colours[colour].nobles, letter))))


# -- rewards -----------------------------------------------------------------------------------


def reward_details(state: State, colour: int, reward: Reward) -> list[Any]:
    """The choices a reward leaves to its receiver; ``[None]`` when there is nothing to
    choose (or the choosing part cannot be used and is lost)."""
    choice = reward.choice()
    ally = state.is_ally(colour)
    options: list[Any] = []
    if choice == "upgrade":
        options = upgrade_choices(state, colour)
    elif choice == "extension":
        options = list(free_extension_spaces(state, colour))
    elif choice == "nobleman":
        options = list(nobleman_letters(state, colour))
    elif choice == "conflict_move" and (not ally or state.data.ally_passage_to_france):
        # an ally's passage to France: lost under rules 1.0.0 (engine README decision 7); as
        # printed it works (decision 12; rulebook: an ally may use "Passage to France")
        options = list(enterable_cards(state, colour))
    elif choice == "start_player" and not ally:
        options = list(range(state.players))
    return options or [None]


def apply_reward(
    state: State, colour: int, reward: Reward, detail: Any, ctx: Ctx, source: str
) -> State:
    """Give ``reward`` to ``colour``. ``conflict_move`` is left to the caller (it moves the
    county's own knight). Parts an ally cannot use are lost (decision 12)."""
    who = name(state, colour)
    if reward.nobleman:
        if detail is None:
            ctx.say(f"{who} can take no nobleman from {source}; it is lost.")
        else:
            state = take_nobleman(state, colour, str(detail), ctx)
    if reward.upgrade:
        if detail is None:
            ctx.say(f"{who} has no knight to upgrade ({source}); the upgrade is lost.")
        elif isinstance(detail, str) and detail in UPGRADE_TAKERS:
            state = UPGRADE_TAKERS[detail](state, colour, ctx)
        else:
            ref = (int(detail[0]), str(detail[1]))
            state = upgrade(state, colour, ref)
            ctx.say(f"{who} upgrades the {describe_ref(ref)} to strength {ref[0] + 1}.")
    for _ in range(reward.new_knight):
        state, ok = new_knight(state, colour)
        if ok:
            ctx.say(f"{who} takes a new knight (strength 1) to court.")
        else:
            ctx.say(f"{who} has no strength-1 knight in the reserve; the new knight is lost.")
    if reward.extension:
        if detail is None:
            ctx.say(f"{who} has no castle space to extend; the extension is lost.")
        else:
            state = place_extension(state, colour, int(detail), ctx)
    res = resources_text(reward.gold, reward.squires, reward.voting_markers, reward.power)
    if res:
        if state.is_ally(colour):
            ctx.say(f"{who} cannot use {res}; it is lost.")
        else:
            state = gain(
                state,
                colour,
                gold=reward.gold,
                squires=reward.squires,
                voting_markers=reward.voting_markers,
                power=reward.power,
            )
            ctx.say(f"{who} takes {res} ({source}).")
    if reward.start_player:
        if detail is None:
            ctx.say(f"{who} cannot choose the start player; the start player stays.")
        else:
            state = replace(state, next_start_player=int(detail))
            ctx.say(f"{who} names {state.colour_name(int(detail))} the next start player.")
    return state


def describe_detail(state: State, reward: Reward, detail: Any) -> str:
    """The words of a reward's detail, as the notation writes it (empty for none)."""
    if detail is None:
        return ""
    choice = reward.choice()
    if choice == "upgrade" and upgrade_extra(detail):
        return str(detail)
    if choice == "upgrade":
        return "upgrade " + describe_ref((int(detail[0]), str(detail[1])))
    if choice == "extension":
        return f"extension {detail}"
    if choice == "nobleman":
        return f"nobleman {detail}"
    if choice == "conflict_move":
        return f"to conflict {detail}"
    if choice == "start_player":
        return f"start player {state.colour_name(int(detail))}"
    return ""


def occupant_text(state: State, occ: Occupant) -> str:
    sq = f" with {plural(occ.squires, 'squire')}" if occ.squires else ""
    return f"{name(state, occ.colour)}'s knight {occ.strength}{sq}"


def favor_names(state: State) -> dict[int, str]:
    """Each favor tile's name in the notation; "tile N" where two tiles would share one."""
    names = {f.number: _reward_name(f.reward) for f in state.data.favors}
    counts: dict[str, int] = {}
    for n in names.values():
        counts[n] = counts.get(n, 0) + 1
    return {t: (n if counts[n] == 1 and n else f"tile {t}") for t, n in names.items()}


def _reward_name(reward: Reward) -> str:
    if reward.new_knight:
        return "new knight"
    if reward.upgrade:
        return "upgrade"
    if reward.nobleman:
        return "nobleman"
    kinds = [
        k
        for k, v in (
            ("gold", reward.gold),
            ("squires", reward.squires),
            ("voting markers", reward.voting_markers),
            ("power points", reward.power),
        )
        if v
    ]
    return kinds[0] if len(kinds) == 1 else ""
