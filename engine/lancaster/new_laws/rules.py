"""What *The New Laws* do (rules 2.1.0; data in ``engine/lancaster/new_laws/__init__.py``): one
``LawRule`` per law in ``RULES``, which ``laws.LAWS`` includes, and the verbs of their choices
in ``VERBS`` (``laws.VERBS`` includes them too).

Actions of the choices (frame ``("law_choice", key, seat)``, in player order from the start
player):

- ``("send", cards)``: squires sent to conflicts, one per card number (sorted; ``()`` none);
- ``("buy_extension", space | None)``: one extension tile bought; after a purchase the player
  is asked again while a castle space is free, until ``None``;
- ``("recall", letters)``: the counties whose knight goes back to court unpaid (sorted;
  ``()`` pays for all);
- ``("turn_over", spaces)``: the extensions turned over unpaid (sorted; ``()`` pays for all);
- ``("exchange", ("squires", n) | ("gold", n) | None)``: get n squires (or n gold) for twice
  as much of the other;
- ``("batches", n)``: n batches of 1 gold + 1 squire + 1 retained voting marker;
- ``("upgrade", ref | None)``: the retained voting markers' upgrade (laws.py's verb).

"Retained" voting markers are those held after the third vote: with such a law current they
go back to the supply only after the laws (``parliament.KEEPING_LAWS``; decisions 16 and 18).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from itertools import combinations
from types import MappingProxyType
from typing import Any

from engine.core.protocol import Action
from engine.core.records import replace
from engine.lancaster.data import COUNTY_LETTERS, Law
from engine.lancaster.frames import Ctx, Handler, pop
from engine.lancaster.henry_v import privileges
from engine.lancaster.phases.law_kinds import (
    Amounts,
    LawRule,
    conflicts_involved,
    counties_held,
    deployed,
    law_title,
    most,
)
from engine.lancaster.pieces import (
    board_knights,
    county_label,
    free_extension_spaces,
    name,
    own_space,
    place_extension,
    plural,
    to_court,
    upgrade_choices,
)
from engine.lancaster.state import Conflict, Frame, State

# -- what the laws count -----------------------------------------------------------------------


def own_conflict_cards(state: State, seat: int) -> list[int]:
    """The conflict cards where ``seat`` has a knight of its own (an archer is no knight:
    engine README decision 26)."""
    out = []
    for _, _, card in state.conflicts():
        sp = own_space(card, seat)
        if sp is not None and sp.knights:
            out.append(card.card)
    return sorted(out)


def own_counties(state: State, seat: int) -> list[str]:
    return [
        COUNTY_LETTERS[i]
        for i, occ in enumerate(state.counties)
        if occ is not None and occ.colour == seat
    ]


def retained(state: State, seat: int) -> int:
    """Voting markers held since the third vote and not spent since (decision 18); markers
    gained from this round's laws are not among them."""
    held = state.markers_after_voting
    if not held:
        return 0
    return min(held[seat], state.colours[seat].voting_markers)


def _most_squires(state: State) -> list[int]:
    return most(state, lambda s: state.colours[s].squires)


def _richest(state: State) -> list[int]:
    return most(state, lambda s: state.colours[s].gold)


def _most_retained(state: State) -> list[int]:
    return most(state, lambda s: retained(state, s))


def conflict_knights(state: State, seat: int) -> int:
    return sum(1 for _, where in board_knights(state, seat) if where.startswith("conflict"))


def _most_conflict_knights(state: State) -> list[int]:
    """decision (ours): a player with no knight in France has deployed none, so is never
    "the player who has deployed the most knights to conflicts" (unlike the most gold or
    squires, where holding none ties: engine README decision 15)."""
    if not any(conflict_knights(state, s) for s in range(state.players)):
        return []
    return most(state, lambda s: conflict_knights(state, s))


def _subsets(items: list[Any], smallest: int, largest: int) -> list[tuple[Any, ...]]:
    return [
        combo
        for size in range(max(smallest, 0), min(largest, len(items)) + 1)
        for combo in combinations(sorted(items), size)
    ]


# -- the choices' options ---------------------------------------------------------------------


def _send_options(st: State, law: Law, s: int) -> list[Action]:
    cards = own_conflict_cards(st, s)
    each = law.param("squires")
    return [("send", c) for c in _subsets(cards, 0, st.colours[s].squires // each)]


def _buy_extension_options(st: State, law: Law, s: int) -> list[Action]:
    if st.colours[s].gold < law.param("gold"):
        return [("buy_extension", None)]
    return [("buy_extension", None), *(("buy_extension", n) for n in free_extension_spaces(st, s))]


def _recall_options(st: State, law: Law, s: int) -> list[Action]:
    letters = own_counties(st, s)
    can_pay = st.colours[s].gold // law.param("gold")
    return [("recall", c) for c in _subsets(letters, len(letters) - can_pay, len(letters))]


def _turn_over_options(st: State, law: Law, s: int) -> list[Action]:
    spaces = [n for n in st.colours[s].extensions if n not in st.colours[s].turned]
    can_pay = st.colours[s].squires // law.param("squires")
    return [("turn_over", c) for c in _subsets(spaces, len(spaces) - can_pay, len(spaces))]


def _exchange_options(st: State, law: Law, s: int) -> list[Action]:
    rate = law.param("rate")
    c = st.colours[s]
    return [
        ("exchange", None),
        *(("exchange", ("squires", n)) for n in range(1, c.gold // rate + 1)),
        *(("exchange", ("gold", n)) for n in range(1, c.squires // rate + 1)),
    ]


def _batches_options(st: State, law: Law, s: int) -> list[Action]:
    c = st.colours[s]
    return [("batches", n) for n in range(min(c.gold, c.squires, retained(st, s)) + 1)]


def _retained_upgrade_options(st: State, law: Law, s: int) -> list[Action]:
    return [("upgrade", None), *(("upgrade", r) for r in upgrade_choices(st, s))]


def _county_squires(st: State, s: int) -> int:
    return sum(occ.squires for occ in st.counties if occ is not None and occ.colour == s)


def _empty_counties(st: State, s: int) -> int:
    return sum(
        1
        for i, occ in enumerate(st.counties)
        if occ is not None and occ.colour == s and st.nobles[i] == 0
    )


def _both_strength_2(st: State, s: int) -> bool:
    twos = st.data.knights.count(2)
    return twos > 0 and deployed(st, s).count(2) >= twos


def _per(law: Law, n: int) -> int:
    return law.param("power") * (n // law.param("per"))


def _if(cond: bool, **amounts: int) -> Amounts:
    return dict(amounts) if cond else {}


#: The New Laws, by key (lancaster-data.md, "The New Laws"; rulebook "Summary of the new law
#: cards"). Gains need no choice; the others are asked in player order.
RULES: Mapping[str, LawRule] = MappingProxyType(
    {
        # -- group 0 --
        "conflicts_voting_markers": LawRule(
            gains=lambda st, law, s: {
                "voting_markers": law.param("voting_markers") * conflicts_involved(st, s)
            }
        ),
        "most_squires_gold_marker": LawRule(
            gains=lambda st, law, s: _if(
                s in _most_squires(st),
                gold=law.param("gold"),
                voting_markers=law.param("voting_markers"),
            ),
            named=("most squires", _most_squires),
        ),
        "most_gold_squire_marker_new": LawRule(
            gains=lambda st, law, s: _if(
                s in _richest(st),
                squires=law.param("squires"),
                voting_markers=law.param("voting_markers"),
            ),
            named=("most gold", _richest),
        ),
        # -- group 1 --
        "no_nobles_supplies": LawRule(
            gains=lambda st, law, s: _if(
                not st.colours[s].nobles,
                gold=law.param("gold"),
                squires=law.param("squires"),
                voting_markers=law.param("voting_markers"),
            )
        ),
        "squires_to_conflicts": LawRule(
            choosers=lambda st, law, s: int(bool(own_conflict_cards(st, s))),
            options=_send_options,
            hidden_range=True,
        ),
        "squires_for_strength_1": LawRule(
            gains=lambda st, law, s: {"squires": law.param("squires") * deployed(st, s).count(1)}
        ),
        "buy_extensions": LawRule(
            choosers=lambda st, law, s: int(bool(free_extension_spaces(st, s))),
            options=_buy_extension_options,
            hidden_range=True,
        ),
        # -- group 2 --
        "castle_knights_power": LawRule(
            gains=lambda st, law, s: {
                "power": law.param("power") * sum(1 for k in st.colours[s].castle if k is not None)
            }
        ),
        "most_retained_markers_upgrade": LawRule(
            choosers=lambda st, law, s: int(s in _most_retained(st)),
            options=_retained_upgrade_options,
            named=("most voting markers held since the third vote", _most_retained),
        ),
        "both_strength_2_power": LawRule(
            gains=lambda st, law, s: _if(_both_strength_2(st, s), power=law.param("power"))
        ),
        "county_upkeep": LawRule(
            choosers=lambda st, law, s: int(counties_held(st, s) > 0),
            options=_recall_options,
            hidden_range=True,
        ),
        # -- group 3 --
        "counties_power_5": LawRule(
            gains=lambda st, law, s: {"power": _per(law, counties_held(st, s))}
        ),
        "extension_upkeep": LawRule(
            choosers=lambda st, law, s: int(bool(st.colours[s].extensions)),
            options=_turn_over_options,
            hidden_range=True,
        ),
        "exchange_gold_squires": LawRule(
            choosers=lambda st, law, s: 1, options=_exchange_options, hidden_range=True
        ),
        "county_squires_power": LawRule(
            gains=lambda st, law, s: {"power": _per(law, _county_squires(st, s))}
        ),
        # -- group 4 --
        "empty_counties_power": LawRule(
            gains=lambda st, law, s: {"power": law.param("power") * _empty_counties(st, s)}
        ),
        "batches_for_power": LawRule(
            # voting markers are public: who holds retained markers is no secret
            choosers=lambda st, law, s: int(retained(st, s) > 0),
            options=_batches_options,
            hidden_range=True,
        ),
        "most_conflict_knights_power": LawRule(
            gains=lambda st, law, s: _if(s in _most_conflict_knights(st), power=law.param("power")),
            named=("most knights in conflicts", _most_conflict_knights),
        ),
    }
)

#: the laws whose voting markers are "retained": with one of them current, the markers held
#: after the third vote go back only after the laws (decision 18, as decision 16)
RETAINING = ("most_retained_markers_upgrade", "batches_for_power")


# -- what each choice does ---------------------------------------------------------------------


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _send(state: State, law: Law, seat: int, value: Any, ctx: Ctx) -> State:
    who = name(state, seat)
    cards = tuple(int(c) for c in value)
    if not cards:
        ctx.say(f"{law_title(law)}: {who} sends no squires.")
        return state
    each = law.param("squires")
    for number in cards:
        found = state.find_card(number)
        assert found is not None
        row, slot, card = found
        spaces = tuple(
            replace(sp, squires=sp.squires + each) if sp is own_space(card, seat) else sp
            for sp in card.spaces
        )
        state = state.with_card(row, slot, Conflict(card.card, spaces))
    c = state.colours[seat]
    state = state.with_colour(seat, squires=c.squires - each * len(cards))
    where = _and([str(n) for n in cards])
    ctx.say(
        f"{law_title(law)}: {who} sends {plural(each * len(cards), 'squire')} to "
        f"conflict{'s' if len(cards) > 1 else ''} {where} (+{each} strength each)."
    )
    return state


def _buy_extension(state: State, law: Law, seat: int, value: Any, ctx: Ctx) -> State:
    who = name(state, seat)
    if value is None:
        ctx.say(f"{law_title(law)}: {who} buys no more extension tiles.")
        return state
    price = law.param("gold")
    state = state.with_colour(seat, gold=state.colours[seat].gold - price)
    ctx.say(f"{law_title(law)}: {who} buys an extension tile for {price} gold.")
    state = place_extension(state, seat, int(value), ctx, f"{law_title(law)}: ")
    if free_extension_spaces(state, seat):
        # asked again (LawChoice pops the head: the copy behind it is next)
        head = state.agenda[0]
        state = replace(state, agenda=(head, head, *state.agenda[1:]))
    return state


def _recall(state: State, law: Law, seat: int, value: Any, ctx: Ctx) -> State:
    who = name(state, seat)
    recalled = tuple(str(x) for x in value)
    kept = [c for c in own_counties(state, seat) if c not in recalled]
    cost = law.param("gold") * len(kept)
    state = state.with_colour(seat, gold=state.colours[seat].gold - cost)
    if kept:
        where = _and([county_label(state, c) for c in kept])
        ctx.say(f"{law_title(law)}: {who} pays {cost} gold for the knights in {where}.")
    for letter in recalled:
        i = COUNTY_LETTERS.index(letter)
        occ = state.counties[i]
        assert occ is not None
        counties = list(state.counties)
        counties[i] = None
        state = replace(state, counties=tuple(counties))
        # as when a knight leaves a county: squires to the supply, a shield or Tudor knight back
        state = privileges.leave_county(state, occ, ctx, False)
        state = to_court(state, seat, occ.strength)
        sq = f"; its {plural(occ.squires, 'squire')} go to the supply" if occ.squires else ""
        ctx.say(
            f"{law_title(law)}: {who} does not pay for the knight {occ.strength} in "
            f"{county_label(state, letter)}: it goes back to court without scoring{sq}."
        )
    return state


def _turn_over(state: State, law: Law, seat: int, value: Any, ctx: Ctx) -> State:
    who = name(state, seat)
    turned = tuple(int(x) for x in value)
    c = state.colours[seat]
    paid = [n for n in c.extensions if n not in turned and n not in c.turned]
    cost = law.param("squires") * len(paid)
    state = state.with_colour(
        seat, squires=c.squires - cost, turned=tuple(sorted({*c.turned, *turned}))
    )
    if paid:
        ctx.say(
            f"{law_title(law)}: {who} returns {plural(cost, 'squire')} for the extension"
            f"{'s' if len(paid) > 1 else ''} on castle space{'s' if len(paid) > 1 else ''} "
            f"{_and([str(n) for n in paid])}."
        )
    if turned:
        spaces = _and([str(n) for n in turned])
        ctx.say(
            f"{law_title(law)}: {who} turns over the extension{'s' if len(turned) > 1 else ''} on "
            f"castle space{'s' if len(turned) > 1 else ''} {spaces}: "
            "no reward from it until the castles have been scored."
        )
    if not paid and not turned:
        ctx.say(f"{law_title(law)}: {who} has no extension to pay for.")
    return state


def _exchange(state: State, law: Law, seat: int, value: Any, ctx: Ctx) -> State:
    who = name(state, seat)
    if value is None:
        ctx.say(f"{law_title(law)}: {who} exchanges nothing.")
        return state
    get, n = str(value[0]), int(value[1])
    give = "gold" if get == "squires" else "squires"
    paid = law.param("rate") * n
    c = state.colours[seat]
    state = state.with_colour(seat, **{give: getattr(c, give) - paid, get: getattr(c, get) + n})
    ctx.say(f"{law_title(law)}: {who} exchanges {_amount(give, paid)} for {_amount(get, n)}.")
    return state


def _amount(what: str, n: int) -> str:
    return f"{n} gold" if what == "gold" else plural(n, "squire")


def _batches(state: State, law: Law, seat: int, value: Any, ctx: Ctx) -> State:
    who = name(state, seat)
    n = int(value)
    if not n:
        ctx.say(f"{law_title(law)}: {who} buys no batch.")
        return state
    c = state.colours[seat]
    pts = law.param("power") * n
    state = state.with_colour(
        seat,
        gold=c.gold - n,
        squires=c.squires - n,
        voting_markers=c.voting_markers - n,
        power=c.power + pts,
    )
    held = list(state.markers_after_voting)
    held[seat] -= n  # spent: not returned again after the laws
    state = replace(state, markers_after_voting=tuple(held))
    ctx.say(
        f"{law_title(law)}: {who} spends {n} gold, {plural(n, 'squire')} and "
        f"{plural(n, 'voting marker')} for {plural(pts, 'power point')}."
    )
    return state


#: What each kind of New Laws choice does, by its action's verb.
VERBS: Mapping[str, Callable[[State, Law, int, Any, Ctx], State]] = MappingProxyType(
    {
        "send": _send,
        "buy_extension": _buy_extension,
        "recall": _recall,
        "turn_over": _turn_over,
        "exchange": _exchange,
        "batches": _batches,
    }
)


def illegal_reason(state: State, law: Law, seat: int, action: Action) -> str | None:
    """Why a New Laws choice is not allowed, in words a player can act on; None: the
    general answer (what can be typed now)."""
    c = state.colours[seat]
    verb, value = action[0], action[-1]
    if verb == "send" and isinstance(value, tuple):
        mine = own_conflict_cards(state, seat)
        if any(n not in mine for n in value):
            where = _and([str(n) for n in mine]) if mine else "none"
            return (
                "You can send a squire only to a conflict where you have a knight of your own "
                f"(yours: {where})."
            )
        if len(set(value)) != len(value):
            return "At most one squire goes to each conflict."
        if len(value) * law.param("squires") > c.squires:
            return f"You have only {plural(c.squires, 'squire')}."
    if verb == "buy_extension" and isinstance(value, int):
        price = law.param("gold")
        if c.gold < price:
            return f"An extension tile costs {price} gold; you have {c.gold}."
        free = free_extension_spaces(state, seat)
        return f"Castle space {value} cannot take an extension now (free: {_list(free)})."
    if verb == "recall" and isinstance(value, tuple):
        letters = own_counties(state, seat)
        if any(x not in letters for x in value):
            return f"You have no knight there; your knights are in {_list(letters)}."
        kept = len(letters) - len(set(value))
        return (
            f"Keeping {plural(kept, 'knight')} costs {law.param('gold') * kept} gold and you "
            f"have {c.gold}: recall more of them."
        )
    if verb == "turn_over" and isinstance(value, tuple):
        if any(x not in c.extensions for x in value):
            return f"You have no extension there; yours cover {_list(list(c.extensions))}."
        kept = len(c.extensions) - len(set(value))
        return (
            f"Keeping {plural(kept, 'extension')} costs "
            f"{plural(law.param('squires') * kept, 'squire')} and you have {c.squires}: turn "
            "more of them over."
        )
    if verb == "exchange" and isinstance(value, tuple) and len(value) == 2:
        rate = law.param("rate")
        give = "gold" if value[0] == "squires" else "squires"
        have = _amount(give, getattr(c, give))
        each = "squire" if give == "gold" else "gold"
        return (
            f"Each {each} costs {rate} {'gold' if give == 'gold' else 'squires'}; you have {have}."
        )
    if verb == "batches" and isinstance(value, int):
        return (
            "Each batch costs 1 gold, 1 squire and 1 voting marker held since the third vote; "
            f"you have {c.gold} gold, {plural(c.squires, 'squire')} and "
            f"{plural(retained(state, seat), 'such marker')}."
        )
    return None


def _list(items: list[Any]) -> str:
    return _and([str(x) for x in items]) if items else "none"


# -- after the castles: turned-over extensions face up again -----------------------------------


def turned_over(state: State, colour: int, space: int, ctx: Ctx) -> bool:
    """Whether ``colour``'s castle ``space`` holds an extension turned over ("Upkeep of the
    castle"): it yields nothing until all castles are scored, which the log says."""
    if space not in state.colours[colour].turned:
        return False
    ctx.say(f"{name(state, colour)}'s extension on castle space {space} is turned over: no reward.")
    return True


class ExtensionsBack(Handler):
    """``("extensions_back",)``: The New Laws, "Upkeep of the castle": the extensions turned
    over are flipped back after scoring all castles (rulebook)."""

    kind = "extensions_back"

    def phase(self, state: State, frame: Frame) -> str:
        return "castles"

    def step(self, state: State, frame: Frame, ctx: Ctx) -> tuple[State, bool]:
        for colour, col in enumerate(state.colours):
            if col.turned:
                state = state.with_colour(colour, turned=())
                ctx.say(f"{name(state, colour)}'s turned-over extensions are face up again.")
        return pop(state), False


def squires_back(state: State, row: str, slot: int, card: Conflict, ctx: Ctx) -> State:
    """The squires a law sent to ``card`` go to the supply once it is scored, whoever won
    (rulebook: "After scoring, these squires return to the general supply – even if France is
    the winner")."""
    if not any(sp.squires for sp in card.spaces):
        return state
    for sp in card.spaces:
        if sp.squires:
            ctx.say(
                f"  {name(state, sp.colour)}'s {plural(sp.squires, 'squire')} sent here "
                "go to the supply."
            )
    spaces = tuple(replace(sp, squires=0) for sp in card.spaces)
    return state.with_card(row, slot, Conflict(card.card, spaces))
