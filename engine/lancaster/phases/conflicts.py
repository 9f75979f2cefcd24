"""Phase 3 (end): the conflicts with France, lower row first, then upper, each row left to
right (decisions: rules/README.md, Lancaster 1 and 8).

Action of a ransom (frame ``("ransom", slot, seat)``): ``("ransom", strengths)`` — the
knights (by strength) bought back at 1 gold per strength point; ``()`` ransoms none.

After each battle is scored, the hooks of ``AFTER_BATTLE`` run (dishonor for a lost battle).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import product

from engine.core.protocol import Action
from engine.core.records import replace
from engine.lancaster import actions
from engine.lancaster.frames import CapturedFrame, Ctx, Handler, RansomFrame, pop, replace_head
from engine.lancaster.pieces import (
    gain,
    name,
    own_space,
    plural,
    remove,
    to_court,
    to_reserve,
)
from engine.lancaster.state import Conflict, Frame, Space, State

RANK_WORDS = ("1st", "2nd", "3rd")

#: Extension point: what happens after a battle is scored, before its knights move: (state,
#: card, England won, ctx) -> state. The King's Resentment hands out dishonor here (decision
#: 14). Filled by ``wiring.py``, like the two below.
AFTER_BATTLE: list[Callable[[State, Conflict, bool, Ctx], State]] = []
#: Extension point: then, (state, row, slot, card, ctx) -> state (The New Laws: squires sent
#: by a law go to the supply once the card is scored, whoever won)
AFTER_SCORED: list[Callable[[State, str, int, Conflict, Ctx], State]] = []
#: Extension point: a card leaves the board with its knights, (state, card, ctx) -> state (At
#: the King's Court: its privileges go back)
CARD_LEAVES: list[Callable[[State, Conflict, Ctx], State]] = []


def _card_leaves(state: State, card: Conflict, ctx: Ctx) -> State:
    for hook in CARD_LEAVES:
        state = hook(state, card, ctx)
    return state


def ranking(card: Conflict) -> list[int]:
    """Indexes of the card's spaces by rank: most strength first; a tie goes to the lower
    space, entered later (decision 8)."""
    return sorted(range(len(card.spaces)), key=lambda i: (-card.spaces[i].strength, -i))


def _score(state: State, card: Conflict, england: bool, ctx: Ctx) -> State:
    points = state.data.card(card.card).points
    # England wins: ranks take the 1st/2nd/3rd values; France wins: rank 1 takes the 2nd
    # value and rank 2 the 3rd (decision 8).
    values = points if england else points[1:]
    for rank, i in enumerate(ranking(card)):
        if rank >= len(values):
            break
        space = card.spaces[i]
        pts = values[rank]
        if state.is_ally(space.colour):
            # decision (not in the texts): an ally holds its rank, its points are lost.
            ctx.say(f"  {RANK_WORDS[rank]}: {name(state, space.colour)} (allies score nothing).")
            continue
        state = gain(state, space.colour, power=pts)
        ctx.say(f"  {RANK_WORDS[rank]}: {name(state, space.colour)}, {plural(pts, 'power point')}.")
    return state


class ResolveConflict(Handler):
    """``("conflict", row, slot)``: the battle of one card."""

    kind = "conflict"

    def phase(self, state: State, frame: Frame) -> str:
        return "conflicts"

    def step(self, state: State, frame: Frame, ctx: Ctx) -> tuple[State, bool]:
        row, slot = str(frame[1]), int(frame[2])
        card = (state.upper if row == "upper" else state.lower)[slot]
        if card is None:
            return pop(state), False
        france = state.data.card(card.card).france
        strength = sum(sp.strength for sp in card.spaces)
        england = strength >= france  # Lancaster: a draw goes to England
        winner = "England" if england else "France"
        ctx.say(
            f"Conflict {card.card} ({row} row): England {strength} against France {france}: "
            f"{winner} wins."
        )
        state = _score(state, card, england, ctx)
        for hook in AFTER_BATTLE:
            state = hook(state, card, england, ctx)
        for after in AFTER_SCORED:
            state = after(state, row, slot, card, ctx)
        card = (state.upper if row == "upper" else state.lower)[slot] or card
        if england:
            for sp in card.spaces:
                state = to_court(state, sp.colour, *sp.knights)
            state = _card_leaves(state, card, ctx)
            if card.spaces:
                ctx.say("  The knights return to court; the card is discarded.")
            return pop(state.with_card(row, slot, None)), False
        if row == "upper":
            # France wins the first battle: the card and its knights slide to the lower row.
            assert state.lower[slot] is None
            state = state.with_card("upper", slot, None).with_card("lower", slot, card)
            ctx.say("  The card and its knights move to the lower row.")
            return pop(state), False
        # France wins the second battle: captured knights may be ransomed, in player order.
        frames: list[Frame] = [
            RansomFrame("ransom", slot, seat)
            for seat in state.seat_order()
            if own_space(card, seat) is not None
        ]
        if card.spaces:
            ctx.say("  The knights are captured.")
        return replace_head(state, *frames, CapturedFrame("captured", slot)), False


def _own_space(card: Conflict, colour: int) -> Space | None:
    return own_space(card, colour)


def ransom_options(knights: tuple[int, ...], gold: int, price: int = 1) -> list[tuple[int, ...]]:
    """Every sub-multiset of ``knights`` whose strengths, at ``price`` gold per strength
    point, cost at most ``gold``."""
    counts: dict[int, int] = {}
    for k in knights:
        counts[k] = counts.get(k, 0) + 1
    keys = sorted(counts)
    out = []
    for picks in product(*(range(counts[k] + 1) for k in keys)):
        chosen = tuple(k for k, n in zip(keys, picks, strict=True) for _ in range(n))
        if sum(chosen) * price <= gold:
            out.append(chosen)
    return out


class Ransom(Handler):
    """``("ransom", slot, seat)``: the seat's knights on the lost lower card (decision 8)."""

    kind = "ransom"

    def phase(self, state: State, frame: Frame) -> str:
        return "conflicts"

    def seats(self, state: State, frame: Frame) -> frozenset[int]:
        return frozenset({int(frame[2])})

    def options(self, state: State, frame: Frame, seat: int) -> list[Action]:
        card = state.lower[int(frame[1])]
        assert card is not None
        space = _own_space(card, seat)
        knights = space.knights if space else ()
        gold, price = state.colours[seat].gold, state.data.ransom_per_strength
        return [actions.Ransom("ransom", k) for k in ransom_options(knights, gold, price)]

    def ask(self, state: State, frame: Frame, seat: int) -> bool:
        # What you can afford is hidden: you are asked even if you cannot pay.
        return True if not state.two_player else super().ask(state, frame, seat)

    def resolve(self, state: State, frame: Frame, seat: int, action: Action, ctx: Ctx) -> State:
        slot = int(frame[1])
        chosen = tuple(actions.Ransom.of(action).knights)
        who = name(state, seat)
        if not chosen:
            ctx.say(f"{who} ransoms no knight.")
            return pop(state)
        card = state.lower[slot]
        assert card is not None
        cost = sum(chosen) * state.data.ransom_per_strength  # Lancaster: 1 gold per strength
        spaces = []
        for sp in card.spaces:
            if sp.holds_knights_of(seat):
                left = sp.knights
                for k in chosen:
                    left = remove(left, k)
                sp = replace(sp, knights=left)
            spaces.append(sp)
        state = state.with_card("lower", slot, Conflict(card.card, tuple(spaces)))
        state = state.with_colour(seat, gold=state.colours[seat].gold - cost)
        state = to_court(state, seat, *chosen)
        ctx.say(
            f"{who} ransoms knight{'s' if len(chosen) > 1 else ''} "
            f"{', '.join(map(str, chosen))} for {cost} gold; back to court."
        )
        return pop(state)

    def auto(self, state: State, frame: Frame, seat: int) -> Action:
        return actions.Ransom("ransom", ())  # auto.py: never spend

    def prompt(self, state: State, frame: Frame, seat: int) -> str:
        card = state.lower[int(frame[1])]
        assert card is not None
        space = _own_space(card, seat)
        knights = ", ".join(map(str, space.knights)) if space else "none"
        return (
            f"France won conflict {card.card} twice: your knights there ({knights}) are "
            f"captured. Ransom any of them for {state.data.ransom_per_strength} gold per "
            "strength point; the others go to your reserve."
        )

    def waiting(self, state: State, frame: Frame) -> str:
        return f"Waiting for {state.colour_name(int(frame[2]))} to ransom knights."


class Captured(Handler):
    """``("captured", slot)``: knights not ransomed go to the reserve; the card is discarded.
    Ally knights cannot be ransomed (decision 12)."""

    kind = "captured"

    def phase(self, state: State, frame: Frame) -> str:
        return "conflicts"

    def step(self, state: State, frame: Frame, ctx: Ctx) -> tuple[State, bool]:
        slot = int(frame[1])
        card = state.lower[slot]
        assert card is not None
        for sp in card.spaces:
            if sp.knights:
                state = to_reserve(state, sp.colour, *sp.knights)
                ctx.say(
                    f"{name(state, sp.colour)}'s knight{'s' if len(sp.knights) > 1 else ''} "
                    f"{', '.join(map(str, sp.knights))} go{'' if len(sp.knights) > 1 else 'es'} "
                    "to the reserve."
                )
        state = _card_leaves(state, card, ctx)
        ctx.say(f"Conflict {card.card} is discarded.")
        return pop(state.with_card("lower", slot, None)), False
