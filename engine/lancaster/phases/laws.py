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

from collections.abc import Callable

from engine.core.protocol import Action
from engine.lancaster.data import COUNTY_LETTERS
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


def _choices(state: State, key: str, seats: list[int], times: int = 1) -> State:
    frames = [("law_choice", key, s) for s in seats for _ in range(times)]
    return replace_head(state, *frames)


def apply_law(state: State, key: str, ctx: Ctx) -> State:
    """Apply one current law; returns the state with the law's frame replaced by any
    choices it leaves to players."""
    law = state.data.law(key)
    t = f'Law "{law.title}"'
    order = list(state.seat_order())
    if key in ("buy_voting_markers", "buy_power_points", "squire_and_gold_for_power"):
        return _choices(state, key, order)
    if key == "squires_for_strength_2":
        n = law.param("squires")
        return pop(
            _gain_each(state, ctx, t, lambda s: {"squires": n * deployed(state, s).count(2)})
        )
    if key == "most_gold_upgrades":
        richest = _most(state, lambda s: state.colours[s].gold)
        ctx.say(f"{t}: most gold: {', '.join(name(state, s) for s in richest)}.")
        return _choices(state, key, richest)
    if key == "most_squires_new_knight":
        most = _most(state, lambda s: state.colours[s].squires)
        ctx.say(f"{t}: most squires: {', '.join(name(state, s) for s in most)}.")
        for seat in most:
            state, ok = new_knight(state, seat)
            what = (
                "takes a new knight (strength 1) to court"
                if ok
                else "has no strength-1 knight in the reserve; the new knight is lost"
            )
            ctx.say(f"{t}: {name(state, seat)} {what}.")
        return pop(state)
    if key == "no_strength_2_upgrades":
        return _choices(state, key, [s for s in order if 2 not in deployed(state, s)])
    if key in ("counties_power", "counties_power_8"):
        p, per = law.param("power"), law.param("per")
        return pop(
            _gain_each(state, ctx, t, lambda s: {"power": p * (counties_held(state, s) // per)})
        )
    if key == "conflicts_extensions":
        per = law.param("per")
        for seat in reversed(order):  # frames go in player order
            n = conflicts_involved(state, seat) // per
            if n:
                state = _push_after_head(state, *[("law_choice", key, seat)] * n)
        return pop(state)
    if key == "swap_3_for_4":
        seats = [s for s in order if 3 in deployed(state, s) and 4 in state.colours[s].reserve]
        return _choices(state, key, seats)
    if key == "conflicts_resources":
        per = law.param("per")

        def each(s: int) -> dict[str, int]:
            n = conflicts_involved(state, s) // per
            return {"gold": n, "squires": n, "voting_markers": n}

        return pop(_gain_each(state, ctx, t, each))
    if key == "conflicts_power":
        p = law.param("power")
        return pop(_gain_each(state, ctx, t, lambda s: {"power": p * conflicts_involved(state, s)}))
    if key == "strength_1_power":
        p = law.param("power")
        ones = state.data.knights.count(1)
        return pop(
            _gain_each(
                state, ctx, t, lambda s: {"power": p * (deployed(state, s).count(1) >= ones)}
            )
        )
    if key == "conflicts_markers":
        m = law.param("voting_markers")
        return pop(
            _gain_each(
                state, ctx, t, lambda s: {"voting_markers": m * conflicts_involved(state, s)}
            )
        )
    if key == "extensions_power":
        p, per = law.param("power"), law.param("per")
        return pop(
            _gain_each(
                state, ctx, t, lambda s: {"power": p * (len(state.colours[s].extensions) // per)}
            )
        )
    if key == "noblemen_knights":
        per = law.param("per")
        said = False
        for seat in order:
            for _ in range(len(state.colours[seat].nobles) // per):
                state, ok = new_knight(state, seat)
                what = (
                    "takes a new knight (strength 1) to court"
                    if ok
                    else "has no strength-1 knight in the reserve; the new knight is lost"
                )
                ctx.say(f"{t}: {name(state, seat)} {what}.")
                said = True
        if not said:
            ctx.say(f"{t}: nobody holds enough noblemen.")
        return pop(state)
    if key == "most_gold_squire_marker":
        richest = _most(state, lambda s: state.colours[s].gold)
        return pop(
            _gain_each(
                state,
                ctx,
                t + " (most gold)",
                lambda s: {"squires": 1, "voting_markers": 1} if s in richest else {},
            )
        )
    raise AssertionError(f"unknown law {key}")


def _push_after_head(state: State, *frames: Frame) -> State:
    from dataclasses import replace

    return replace(state, agenda=(state.agenda[0], *frames, *state.agenda[1:]))


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


def county_letters_of(state: State, colour: int) -> list[str]:
    return [
        COUNTY_LETTERS[i]
        for i, occ in enumerate(state.counties)
        if occ is not None and occ.colour == colour
    ]
