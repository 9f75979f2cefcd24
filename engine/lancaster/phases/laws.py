"""After parliament: the current laws apply, left to right (decision: rules/README.md,
Lancaster 5). Laws with choices are decided in player order from the start player.

Only players' own colours count for laws; allies never do (decision 12). "Deployed" means on
the board: a county, a castle space or a conflict.

Actions of the law choices (frame ``("law_choice", key, seat)``):
``("markers", n)`` buy n voting markers; ``("power", n)`` buy n power points;
``("trade", n)`` spend n squires and n gold for power points; ``("upgrade", ref | None)``;
``("swap", bool)``; ``("extension", space | None)``.

Henry V's *Laws of the King* add entries to ``LAWS`` (and their choices to ``CHOICES``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from engine.core.protocol import Action
from engine.lancaster.data import Law
from engine.lancaster.frames import Ctx, Handler, pop, replace_head
from engine.lancaster.pieces import (
    add,
    board_knights,
    describe_ref,
    free_extension_spaces,
    gain,
    name,
    new_knight,
    plural,
    resources_text,
    upgrade,
    upgrade_targets,
)
from engine.lancaster.state import Frame, State


def counties_held(state: State, colour: int) -> int:
    return sum(1 for occ in state.counties if occ is not None and occ.colour == colour)


def conflicts_involved(state: State, colour: int) -> int:
    return sum(
        1 for _, _, card in state.conflicts() if any(sp.colour == colour for sp in card.spaces)
    )


def deployed(state: State, colour: int) -> list[int]:
    return [s for s, _ in board_knights(state, colour)]


def _most(state: State, value: Callable[[int], int]) -> list[int]:
    best = max(value(s) for s in range(state.players))
    return [s for s in state.seat_order() if value(s) == best]


def _gain_each(
    state: State, ctx: Ctx, title: str, amounts: Callable[[int], dict[str, int]]
) -> State:
    said = False
    for seat in state.seat_order():
        got = amounts(seat)
        if any(got.values()):
            state = gain(state, seat, **got)
            ctx.say(f"{title}: {name(state, seat)} gains {resources_text(**got)}.")
            said = True
    if not said:
        ctx.say(f"{title}: nobody gains anything.")
    return state


# -- the laws, by kind -------------------------------------------------------------------------
# Each law is one entry in one of these tables; Henry V's Laws of the King add theirs here.
Amounts = dict[str, int]


def _all_ones_deployed(state: State, seat: int) -> bool:
    """Every strength-1 knight of the set is on the board (a set without any never is)."""
    ones = state.data.knights.count(1)
    return ones > 0 and deployed(state, seat).count(1) >= ones


def _richest(state: State) -> list[int]:
    return _most(state, lambda s: state.colours[s].gold)


#: laws that give resources or power points: what each player gains
GAINS: Mapping[str, Callable[[State, Law, int], Amounts]] = MappingProxyType(
    {
        "squires_for_strength_2": lambda st, law, s: {
            "squires": law.param("squires") * deployed(st, s).count(2)
        },
        "counties_power": lambda st, law, s: {
            "power": law.param("power") * (counties_held(st, s) // law.param("per"))
        },
        "counties_power_8": lambda st, law, s: {
            "power": law.param("power") * (counties_held(st, s) // law.param("per"))
        },
        "conflicts_resources": lambda st, law, s: dict.fromkeys(
            ("gold", "squires", "voting_markers"), conflicts_involved(st, s) // law.param("per")
        ),
        "conflicts_power": lambda st, law, s: {
            "power": law.param("power") * conflicts_involved(st, s)
        },
        "strength_1_power": lambda st, law, s: {
            "power": law.param("power") * _all_ones_deployed(st, s)
        },
        "conflicts_markers": lambda st, law, s: {
            "voting_markers": law.param("voting_markers") * conflicts_involved(st, s)
        },
        "extensions_power": lambda st, law, s: {
            "power": law.param("power") * (len(st.colours[s].extensions) // law.param("per"))
        },
        "most_gold_squire_marker": lambda st, law, s: (
            {"squires": 1, "voting_markers": 1} if s in _richest(st) else {}
        ),
    }
)

#: laws that recruit new knights: how many each player takes
NEW_KNIGHTS: Mapping[str, Callable[[State, Law, int], int]] = MappingProxyType(
    {
        "most_squires_new_knight": lambda st, law, s: int(
            s in _most(st, lambda t: st.colours[t].squires)
        ),
        "noblemen_knights": lambda st, law, s: len(st.colours[s].nobles) // law.param("per"),
    }
)

#: laws that leave a choice: how many choices each player makes (in player order)
CHOOSERS: Mapping[str, Callable[[State, Law, int], int]] = MappingProxyType(
    {
        "buy_voting_markers": lambda st, law, s: 1,
        "buy_power_points": lambda st, law, s: 1,
        "squire_and_gold_for_power": lambda st, law, s: 1,
        "most_gold_upgrades": lambda st, law, s: int(s in _richest(st)),
        "no_strength_2_upgrades": lambda st, law, s: int(2 not in deployed(st, s)),
        "conflicts_extensions": lambda st, law, s: conflicts_involved(st, s) // law.param("per"),
        "swap_3_for_4": lambda st, law, s: int(3 in deployed(st, s) and 4 in st.colours[s].reserve),
    }
)

#: laws that name the players they favour: said in the log (such laws reveal it at the table)
_NAMED = {"most_gold_upgrades": ("most gold", _richest)}


def apply_law(state: State, key: str, ctx: Ctx) -> State:
    """Apply one current law; the law's frame is replaced by the choices it leaves."""
    law = state.data.law(key)
    t = f'Law "{law.title}"'
    order = state.seat_order()
    if key in _NAMED:
        what, who = _NAMED[key]
        ctx.say(f"{t}: {what}: {', '.join(name(state, s) for s in who(state))}.")
    if key in CHOOSERS:
        frames = [
            ("law_choice", key, s) for s in order for _ in range(CHOOSERS[key](state, law, s))
        ]
        if not frames:
            ctx.say(f"{t}: nobody has a choice to make.")
        return replace_head(state, *frames)
    if key in GAINS:
        amounts = {s: GAINS[key](state, law, s) for s in order}  # all from the same position
        return pop(_gain_each(state, ctx, t, amounts.__getitem__))
    if key in NEW_KNIGHTS:
        counts = {s: NEW_KNIGHTS[key](state, law, s) for s in order}
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
    raise AssertionError(f"unknown law {key}")


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
        c = state.colours[seat]
        law = state.data.law(key)
        if key == "buy_voting_markers":
            return [("markers", n) for n in range(c.gold // law.param("gold") + 1)]
        if key == "buy_power_points":
            return [("power", n) for n in range(c.gold // law.param("gold") + 1)]
        if key == "squire_and_gold_for_power":
            return [("trade", n) for n in range(min(c.gold, c.squires) + 1)]
        if key == "most_gold_upgrades":
            refs = upgrade_targets(state, seat, deployed_only=True)
            return [("upgrade", None), *(("upgrade", r) for r in refs)]
        if key == "no_strength_2_upgrades":
            return [("upgrade", None), *(("upgrade", r) for r in upgrade_targets(state, seat))]
        if key == "conflicts_extensions":
            spaces = free_extension_spaces(state, seat)
            return [("extension", None), *(("extension", n) for n in spaces)]
        if key == "swap_3_for_4":
            ok = 3 in deployed(state, seat) and 4 in c.reserve
            return [("swap", False), ("swap", True)] if ok else [("swap", False)]
        raise AssertionError(key)

    def ask(self, state: State, frame: Frame, seat: int) -> bool:
        if str(frame[1]) in ("buy_voting_markers", "buy_power_points", "squire_and_gold_for_power"):
            # The range depends on hidden gold and squires: always ask (unless public).
            return True if not state.two_player else super().ask(state, frame, seat)
        return super().ask(state, frame, seat)

    def illegal_reason(self, state: State, frame: Frame, seat: int, action: Action) -> str:
        c = state.colours[seat]
        if action[0] in ("markers", "power") and isinstance(action[-1], int):
            price = state.data.law(str(frame[1])).param("gold")
            return f"You have only {c.gold} gold ({price} gold each)."
        if action[0] == "trade" and isinstance(action[-1], int):
            return f"Each trade costs 1 squire and 1 gold; you have {c.squires} and {c.gold}."
        return super().illegal_reason(state, frame, seat, action)

    def resolve(self, state: State, frame: Frame, seat: int, action: Action, ctx: Ctx) -> State:
        key = str(frame[1])
        law = state.data.law(key)
        t = f'Law "{law.title}"'
        who = name(state, seat)
        c = state.colours[seat]
        verb, value = action
        if verb == "markers":
            price = law.param("gold") * value
            state = state.with_colour(
                seat, gold=c.gold - price, voting_markers=c.voting_markers + value
            )
            ctx.say(f"{t}: {who} buys {plural(value, 'voting marker')} for {price} gold.")
        elif verb == "power":
            price = law.param("gold") * value
            state = state.with_colour(seat, gold=c.gold - price, power=c.power + value)
            ctx.say(f"{t}: {who} buys {plural(value, 'power point')} for {price} gold.")
        elif verb == "trade":
            pts = law.param("power") * value
            state = state.with_colour(
                seat, gold=c.gold - value, squires=c.squires - value, power=c.power + pts
            )
            ctx.say(
                f"{t}: {who} spends {plural(value, 'squire')} and {value} gold "
                f"for {plural(pts, 'power point')}."
            )
        elif verb == "upgrade":
            if value is None:
                ctx.say(f"{t}: {who} upgrades no knight.")
            else:
                ref = (int(value[0]), str(value[1]))
                state = upgrade(state, seat, ref)
                ctx.say(f"{t}: {who} upgrades the {describe_ref(ref)} to strength {ref[0] + 1}.")
        elif verb == "extension":
            if value is None:
                ctx.say(f"{t}: {who} takes no extension tile.")
            else:
                state = state.with_colour(seat, extensions=add(c.extensions, int(value)))
                ctx.say(f"{t}: {who} places an extension tile on castle space {value}.")
        elif verb == "swap":
            if value:
                where = next(w for s, w in board_knights(state, seat) if s == 3)
                state = upgrade(state, seat, (3, where))
                ctx.say(f"{t}: {who} swaps the knight 3 in {where} for the knight 4.")
            else:
                ctx.say(f"{t}: {who} does not swap.")
        return pop(state)

    def auto(self, state: State, frame: Frame, seat: int) -> Action:
        from engine.lancaster.auto import law_choice

        return law_choice(state, str(frame[1]), self.options(state, frame, seat))

    def prompt(self, state: State, frame: Frame, seat: int) -> str:
        law = state.data.law(str(frame[1]))
        return f'Law "{law.title}": {law.text} Your choice?'

    def waiting(self, state: State, frame: Frame) -> str:
        law = state.data.law(str(frame[1]))
        return f'Waiting for {state.colour_name(int(frame[2]))} to decide on law "{law.title}".'
