"""Laws of the King (Henry V, 001): its 8 laws, each a ``LawRule`` in ``RULES``, and the verb of
their choice (``seals``) in ``VERBS``; ``wiring.py`` registers them into ``laws.LAWS`` and
``laws.VERBS``. Their ``data.Law``s (``module="laws_of_the_king"``) replace the base groups 2
and 3 (``replaced_group``, through ``setup.REPLACED_GROUPS``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engine.core.protocol import Action
from engine.core.records import replace
from engine.lancaster.data import Law
from engine.lancaster.frames import Ctx
from engine.lancaster.henry_v import CONFIG_KEY, LAWS_OF_THE_KING
from engine.lancaster.henry_v.resentment import take_dishonor
from engine.lancaster.phases.law_kinds import LawRule, counties_held, law_title
from engine.lancaster.phases.law_kinds import most as _most
from engine.lancaster.pieces import name, plural
from engine.lancaster.state import State

#: the name of this module's law set (``setup.LAW_SETS``), where it replaces groups 2 and 3
SET = "king"
GROUPS = (2, 3)


def replaced_group(config: Mapping[str, Any], group: int) -> str | None:
    """This module's set for law groups 2 and 3 when it is played (001, "1st option")."""
    on = bool(dict(config.get(CONFIG_KEY) or {}).get(LAWS_OF_THE_KING))
    return SET if on and group in GROUPS else None


def dispose_no_seal(state: State, options: list[Action]) -> Action:
    """The deadline default of "Seals for squires and gold": dispose of no seal."""
    return ("seals", 0)


def _richest(state: State) -> list[int]:
    return _most(state, lambda s: state.colours[s].gold)


def _fewest_dishonor(state: State) -> list[int]:
    least = min(state.colours[s].dishonor for s in range(state.players))
    return [s for s in state.seat_order() if state.colours[s].dishonor == least]


def _dispose_most(state: State, law: Law, ctx: Ctx) -> State:
    """The most squires dispose of 2 squires, the most gold of 3 gold (ties: all; 001)."""
    t = f'Law "{law.title}"'
    before = state  # both "most" are read from the same position
    most_squires = _most(before, lambda s: before.colours[s].squires)
    for what, count, most in (
        ("squires", law.param("squires"), most_squires),
        ("gold", law.param("gold"), _richest(before)),
    ):
        for seat in most:
            have = int(getattr(state.colours[seat], what))
            lost = min(have, count)
            state = state.with_colour(seat, **{what: have - lost})
            ctx.say(f"{t}: {name(state, seat)} has the most {what} and disposes of {lost}.")
    return state


def _pardon_without_bishops(state: State, law: Law, ctx: Ctx) -> State:
    """Players without bishops return dishonor markers to the supply box. decision (not in the
    texts): the "may" is always taken, since fewer dishonor markers are never worse."""
    t = f'Law "{law.title}"'
    said = False
    for seat in state.seat_order():
        c = state.colours[seat]
        n = min(c.dishonor, law.param("dishonor"))
        if c.bishops == 0 and n:
            state = state.with_colour(seat, dishonor=c.dishonor - n)
            state = replace(state, dishonor_box=state.dishonor_box + n)
            ctx.say(f"{t}: {name(state, seat)} returns {plural(n, 'dishonor marker')}.")
            said = True
    if not said:
        ctx.say(f"{t}: nobody returns a dishonor marker.")
    return state


def _seal_for_most_markers(state: State, law: Law, ctx: Ctx) -> State:
    """The most voting markers after the third voting (decision 16) receive a seal."""
    held = state.markers_after_voting or tuple(
        state.colours[s].voting_markers for s in range(state.players)
    )
    best = max(held)
    t = f'Law "{law.title}"'
    for seat in state.seat_order():
        if held[seat] != best:
            continue
        n = min(law.param("seals"), state.seal_supply)
        state = replace(state, seal_supply=state.seal_supply - n)
        state = state.with_colour(seat, seals=state.colours[seat].seals + n)
        ctx.say(
            f"{t}: {name(state, seat)} has the most voting markers ({best}) and receives "
            f"{plural(n, 'regal seal')}."
        )
    return state


def _dishonor_for_counties(state: State, law: Law, ctx: Ctx) -> State:
    t = f'Law "{law.title}"'
    counts = {s: counties_held(state, s) // law.param("per") for s in state.seat_order()}
    for seat, n in counts.items():
        for _ in range(n):
            state = take_dishonor(state, seat)
        if n:
            ctx.say(f"{t}: {name(state, seat)} receives {plural(n, 'dishonor marker')}.")
    if not any(counts.values()):
        ctx.say(f"{t}: nobody receives a dishonor marker.")
    return state


def _dispose_seals(state: State, law: Law, seat: int, value: Any, ctx: Ctx) -> State:
    c = state.colours[seat]
    who = name(state, seat)
    if not value:
        ctx.say(f"{law_title(law)}: {who} disposes of no seal.")
        return state
    squires, gold = law.param("squires") * value, law.param("gold") * value
    state = state.with_colour(
        seat, seals=c.seals - value, squires=c.squires + squires, gold=c.gold + gold
    )
    state = replace(state, seal_supply=state.seal_supply + value)
    ctx.say(
        f"{law_title(law)}: {who} disposes of {plural(value, 'regal seal')} for "
        f"{plural(squires, 'squire')} and {gold} gold."
    )
    return state


#: the 8 laws of Laws of the King, by key
RULES: Mapping[str, LawRule] = {
    "dispose_most_squires_gold": LawRule(apply=_dispose_most),
    "no_bishops_return_dishonor": LawRule(apply=_pardon_without_bishops),
    "fewest_dishonor_power": LawRule(
        gains=lambda st, law, s: {"power": law.param("power")} if s in _fewest_dishonor(st) else {}
    ),
    "seals_for_squires_gold": LawRule(
        # every player is asked: how many seals one holds is hidden (decision 11)
        choosers=lambda st, law, s: 1,
        options=lambda st, law, s: [("seals", n) for n in range(st.colours[s].seals + 1)],
        hidden_range=True,
    ),
    "most_markers_seal": LawRule(apply=_seal_for_most_markers),
    "most_squires_gold_power": LawRule(
        gains=lambda st, law, s: {
            "power": law.param("power")
            * ((s in _most(st, lambda t: st.colours[t].squires)) + (s in _richest(st)))
        }
    ),
    "dishonor_for_counties": LawRule(apply=_dishonor_for_counties),
    "tower_knights_power": LawRule(
        gains=lambda st, law, s: {
            "power": law.param("power") * sum(1 for c, _ in st.tower if c == s)
        }
    ),
}

#: what their choice does: dispose of regal seals for squires and gold
VERBS: Mapping[str, Callable[[State, Law, int, Any, Ctx], State]] = {"seals": _dispose_seals}
