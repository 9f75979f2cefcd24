"""After parliament: the current laws apply, left to right (decision: rules/README.md,
Lancaster 5). Laws with choices are decided in player order from the start player.

Only players' own colours count for laws; allies never do (decision 12). "Deployed" means on
the board: a county, a castle space or a conflict.

Actions of the law choices (frame ``("law_choice", key, seat)``):
``("markers", n)`` buy n voting markers; ``("power", n)`` buy n power points;
``("trade", n)`` spend n squires and n gold for power points; ``("upgrade", ref | None)``;
``("swap", bool)``; ``("extension", space | None)``.

Every law is one entry of ``LAWS`` (a ``LawRule``); the choices' verbs are in ``VERBS``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from engine.core.protocol import Action
from engine.lancaster import auto
from engine.lancaster.data import Law
from engine.lancaster.frames import Ctx, Handler, LawChoiceFrame, pop, replace_head
from engine.lancaster.phases.law_kinds import (
    Amounts,
    LawRule,
    conflicts_involved,
    counties_held,
    deployed,
    law_title,
)
from engine.lancaster.phases.law_kinds import gain_each as _gain_each
from engine.lancaster.phases.law_kinds import most as _most
from engine.lancaster.pieces import (
    UPGRADE_TAKERS,
    board_knights,
    describe_ref,
    free_extension_spaces,
    name,
    new_knight,
    place_extension,
    plural,
    upgrade,
    upgrade_choices,
)
from engine.lancaster.state import Frame, State


# -- the laws, by kind -------------------------------------------------------------------------
# Each law is one entry in one of these tables; Henry V's Laws of the King
# (henry_v/laws_of_the_king.py) and The New Laws add theirs through ``register``.
def _all_ones_deployed(state: State, seat: int) -> bool:
    """Every strength-1 knight of the set is on the board (a set without any never is)."""
    ones = state.data.knights.count(1)
    return ones > 0 and deployed(state, seat).count(1) >= ones


def _richest(state: State) -> list[int]:
    return _most(state, lambda s: state.colours[s].gold)


def price_of(law: Law) -> tuple[str, int]:
    """What a buying law is paid with and the price of one: gold, or squires (rules 2.0.0's
    group-4 law "1 squire for 1 power point"; rulebook, "Summary of Laws")."""
    key = "gold" if any(k == "gold" for k, _ in law.params) else "squires"
    return key, law.param(key)


def _buy_options(verb: str) -> Callable[[State, Law, int], list[Action]]:
    def options(st: State, law: Law, s: int) -> list[Action]:
        key, price = price_of(law)
        return [(verb, n) for n in range(getattr(st.colours[s], key) // price + 1)]

    return options


def _swap_options(st: State, law: Law, s: int) -> list[Action]:
    ok = 3 in deployed(st, s) and 4 in st.colours[s].reserve
    return [("swap", False), ("swap", True)] if ok else [("swap", False)]


def _counties_power(st: State, law: Law, s: int) -> Amounts:
    return {"power": law.param("power") * (counties_held(st, s) // law.param("per"))}


#: Extension point: every law, by key: the base game's (lancaster-data.md, "Laws"), then
#: those registered by ``wiring.py`` (``register``: Laws of the King's, The New Laws'). A new
#: law is one entry (and its ``data.Law``); a new kind of choice adds its verb to ``VERBS``.
_LAWS: dict[str, LawRule] = dict(
    {
        "squires_for_strength_2": LawRule(
            gains=lambda st, law, s: {"squires": law.param("squires") * deployed(st, s).count(2)}
        ),
        "counties_power": LawRule(gains=_counties_power),
        "counties_power_8": LawRule(gains=_counties_power),
        "conflicts_resources": LawRule(
            gains=lambda st, law, s: dict.fromkeys(
                ("gold", "squires", "voting_markers"),
                conflicts_involved(st, s) // law.param("per"),
            )
        ),
        "conflicts_power": LawRule(
            gains=lambda st, law, s: {"power": law.param("power") * conflicts_involved(st, s)}
        ),
        "strength_1_power": LawRule(
            gains=lambda st, law, s: {"power": law.param("power") * _all_ones_deployed(st, s)}
        ),
        "conflicts_markers": LawRule(
            gains=lambda st, law, s: {
                "voting_markers": law.param("voting_markers") * conflicts_involved(st, s)
            }
        ),
        "extensions_power": LawRule(
            gains=lambda st, law, s: {
                "power": law.param("power") * (len(st.colours[s].extensions) // law.param("per"))
            }
        ),
        "most_gold_squire_marker": LawRule(
            gains=lambda st, law, s: (
                {"squires": 1, "voting_markers": 1} if s in _richest(st) else {}
            )
        ),
        "most_squires_new_knight": LawRule(
            new_knights=lambda st, law, s: int(s in _most(st, lambda t: st.colours[t].squires))
        ),
        "noblemen_knights": LawRule(
            new_knights=lambda st, law, s: len(st.colours[s].nobles) // law.param("per")
        ),
        "buy_voting_markers": LawRule(
            choosers=lambda st, law, s: 1, options=_buy_options("markers"), hidden_range=True
        ),
        "buy_power_points": LawRule(
            choosers=lambda st, law, s: 1, options=_buy_options("power"), hidden_range=True
        ),
        # -- rules 2.0.0's two group-4 laws (rulebook, "Summary of Laws", group "4") --
        "squires_for_power": LawRule(
            choosers=lambda st, law, s: 1, options=_buy_options("power"), hidden_range=True
        ),
        "all_strengths_power": LawRule(
            gains=lambda st, law, s: {
                "power": law.param("power") * ({1, 2, 3, 4} <= set(deployed(st, s)))
            }
        ),
        "squire_and_gold_for_power": LawRule(
            choosers=lambda st, law, s: 1,
            options=lambda st, law, s: [
                ("trade", n) for n in range(min(st.colours[s].gold, st.colours[s].squires) + 1)
            ],
            hidden_range=True,
        ),
        "most_gold_upgrades": LawRule(
            choosers=lambda st, law, s: int(s in _richest(st)),
            options=lambda st, law, s: [
                ("upgrade", None),
                *(("upgrade", r) for r in upgrade_choices(st, s, deployed_only=True)),
            ],
            named=("most gold", _richest),
        ),
        "no_strength_2_upgrades": LawRule(
            choosers=lambda st, law, s: int(2 not in deployed(st, s)),
            options=lambda st, law, s: [
                ("upgrade", None),
                *(("upgrade", r) for r in upgrade_choices(st, s)),
            ],
        ),
        "conflicts_extensions": LawRule(
            choosers=lambda st, law, s: conflicts_involved(st, s) // law.param("per"),
            options=lambda st, law, s: [
                ("extension", None),
                *(("extension", n) for n in free_extension_spaces(st, s)),
            ],
        ),
        "swap_3_for_4": LawRule(
            choosers=lambda st, law, s: int(3 in deployed(st, s) and 4 in st.colours[s].reserve),
            options=_swap_options,
        ),
    }
)
LAWS: Mapping[str, LawRule] = MappingProxyType(_LAWS)


def apply_law(state: State, key: str, ctx: Ctx) -> State:
    """Apply one current law; the law's frame is replaced by the choices it leaves."""
    law = state.data.law(key)
    t = f'Law "{law.title}"'
    order = state.seat_order()
    rule = LAWS[key]
    if rule.apply is not None:
        return pop(rule.apply(state, law, ctx))
    if rule.named is not None:
        what, who = rule.named
        ctx.say(f"{t}: {what}: {', '.join(name(state, s) for s in who(state))}.")
    if rule.choosers is not None:
        choosers = rule.choosers
        frames = [
            LawChoiceFrame("law_choice", key, s)
            for s in order
            for _ in range(choosers(state, law, s))
        ]
        if not frames:
            ctx.say(f"{t}: nobody has a choice to make.")
        return replace_head(state, *frames)
    if rule.gains is not None:
        gains = rule.gains
        amounts = {s: gains(state, law, s) for s in order}  # all from the same position
        return pop(_gain_each(state, ctx, t, amounts.__getitem__))
    if rule.new_knights is not None:
        recruits = rule.new_knights
        counts = {s: recruits(state, law, s) for s in order}
        for seat in order:
            for _ in range(counts[seat]):
                state, ok = new_knight(state, seat)
                what = (
                    "takes a new knight (strength 1) to court"
                    if ok
                    else "has no strength-1 knight in the reserve; the new knight is lost"
                )
                ctx.say(f"{t}: {name(state, seat)} {what}.")
        if not any(counts.values()):
            ctx.say(f"{t}: nobody recruits a knight.")
        return pop(state)
    raise AssertionError(f"law {key} does nothing")


class ApplyLaw(Handler):
    """``("law", position)``: the current law at that position (0 = left) applies."""

    kind = "law"

    def phase(self, state: State, frame: Frame) -> str:
        return "laws"

    def step(self, state: State, frame: Frame, ctx: Ctx) -> tuple[State, bool]:
        return apply_law(state, state.laws[int(frame[1])], ctx), False


class LawChoice(Handler):
    """``("law_choice", key, seat)``: a player's choice granted by a law."""

    kind = "law_choice"

    def phase(self, state: State, frame: Frame) -> str:
        return "laws"

    def seats(self, state: State, frame: Frame) -> frozenset[int]:
        return frozenset({int(frame[2])})

    def options(self, state: State, frame: Frame, seat: int) -> list[Action]:
        key = str(frame[1])
        options = LAWS[key].options
        assert options is not None, key
        return options(state, state.data.law(key), seat)

    def ask(self, state: State, frame: Frame, seat: int) -> bool:
        if LAWS[str(frame[1])].hidden_range and not state.two_player:
            return True  # the range depends on hidden gold and squires: always ask
        return super().ask(state, frame, seat)

    def illegal_reason(self, state: State, frame: Frame, seat: int, action: Action) -> str:
        c = state.colours[seat]
        if action[0] in ("markers", "power") and isinstance(action[-1], int):
            key, price = price_of(state.data.law(str(frame[1])))
            if key == "squires":
                return f"You have only {plural(c.squires, 'squire')} ({price} for each point)."
            return f"You have only {c.gold} gold ({price} gold each)."
        if action[0] == "trade" and isinstance(action[-1], int):
            return f"Each trade costs 1 squire and 1 gold; you have {c.squires} and {c.gold}."
        if action[0] in _REASONS:
            reason = _REASONS[action[0]](state, state.data.law(str(frame[1])), seat, action)
            if reason:
                return reason
        return super().illegal_reason(state, frame, seat, action)

    def resolve(self, state: State, frame: Frame, seat: int, action: Action, ctx: Ctx) -> State:
        law = state.data.law(str(frame[1]))
        verb, value = action
        return pop(VERBS[verb](state, law, seat, value, ctx))

    def auto(self, state: State, frame: Frame, seat: int) -> Action:
        return auto.law_choice(state, str(frame[1]), self.options(state, frame, seat))

    def prompt(self, state: State, frame: Frame, seat: int) -> str:
        law = state.data.law(str(frame[1]))
        return f'Law "{law.title}": {law.text} Your choice?'

    def waiting(self, state: State, frame: Frame) -> str:
        law = state.data.law(str(frame[1]))
        return f'Waiting for {state.colour_name(int(frame[2]))} to decide on law "{law.title}".'


# -- what each kind of choice does ------------------------------------------------------------


def _buy_markers(state: State, law: Law, seat: int, value: Any, ctx: Ctx) -> State:
    c = state.colours[seat]
    price = law.param("gold") * value
    state = state.with_colour(seat, gold=c.gold - price, voting_markers=c.voting_markers + value)
    who = name(state, seat)
    ctx.say(f"{law_title(law)}: {who} buys {plural(value, 'voting marker')} for {price} gold.")
    return state


def _buy_power(state: State, law: Law, seat: int, value: Any, ctx: Ctx) -> State:
    c = state.colours[seat]
    key, each = price_of(law)
    price = each * value
    who = name(state, seat)
    if key == "squires":
        state = state.with_colour(seat, squires=c.squires - price, power=c.power + value)
        paid = plural(price, "squire")
    else:
        state = state.with_colour(seat, gold=c.gold - price, power=c.power + value)
        paid = f"{price} gold"
    ctx.say(f"{law_title(law)}: {who} buys {plural(value, 'power point')} for {paid}.")
    return state


def _trade(state: State, law: Law, seat: int, value: Any, ctx: Ctx) -> State:
    c = state.colours[seat]
    pts = law.param("power") * value
    state = state.with_colour(
        seat, gold=c.gold - value, squires=c.squires - value, power=c.power + pts
    )
    ctx.say(
        f"{law_title(law)}: {name(state, seat)} spends {plural(value, 'squire')} and {value} gold "
        f"for {plural(pts, 'power point')}."
    )
    return state


def _upgrade(state: State, law: Law, seat: int, value: Any, ctx: Ctx) -> State:
    who = name(state, seat)
    if value is None:
        ctx.say(f"{law_title(law)}: {who} upgrades no knight.")
        return state
    if isinstance(value, str) and value in UPGRADE_TAKERS:
        return UPGRADE_TAKERS[value](state, seat, ctx)  # a piece taken instead of an upgrade
    ref = (int(value[0]), str(value[1]))
    state = upgrade(state, seat, ref)
    ctx.say(f"{law_title(law)}: {who} upgrades the {describe_ref(ref)} to strength {ref[0] + 1}.")
    return state


def _extension(state: State, law: Law, seat: int, value: Any, ctx: Ctx) -> State:
    who = name(state, seat)
    if value is None:
        ctx.say(f"{law_title(law)}: {who} takes no extension tile.")
        return state
    return place_extension(state, seat, int(value), ctx, f"{law_title(law)}: ")


def _swap(state: State, law: Law, seat: int, value: Any, ctx: Ctx) -> State:
    who = name(state, seat)
    if not value:
        ctx.say(f"{law_title(law)}: {who} does not swap.")
        return state
    where = next(w for s, w in board_knights(state, seat) if s == 3)
    state = upgrade(state, seat, (3, where))
    ctx.say(f"{law_title(law)}: {who} swaps the knight 3 in {where} for the knight 4.")
    return state


#: Extension point: what each kind of law choice does, by its action's verb (Laws of the
#: King: seals; The New Laws: send, buy_extension, recall, turn_over, exchange, batches;
#: registered by ``wiring.py``).
_VERBS: dict[str, Callable[[State, Law, int, Any, Ctx], State]] = dict(
    {
        "markers": _buy_markers,
        "power": _buy_power,
        "trade": _trade,
        "upgrade": _upgrade,
        "extension": _extension,
        "swap": _swap,
    }
)
VERBS: Mapping[str, Callable[[State, Law, int, Any, Ctx], State]] = MappingProxyType(_VERBS)
#: why a registered verb's choice is refused, in words a player can act on (None: the general
#: answer)
_REASONS: dict[str, Callable[[State, Law, int, Action], str | None]] = {}


def register(
    rules: Mapping[str, LawRule],
    verbs: Mapping[str, Callable[[State, Law, int, Any, Ctx], State]],
    reason: Callable[[State, Law, int, Action], str | None] | None = None,
) -> None:
    """An expansion's laws, the verbs of their choices and why those choices are refused."""
    _LAWS.update(rules)
    _VERBS.update(verbs)
    if reason is not None:
        _REASONS.update(dict.fromkeys(verbs, reason))
