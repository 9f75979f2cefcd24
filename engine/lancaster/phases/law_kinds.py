"""What a law is made of (``LawRule``) and the counts laws read, shared by the base game's
laws (``laws.py``), Henry V's Laws of the King and The New Laws (``new_laws/rules.py``).

Only players' own colours count for laws; allies never do (decision 12). "Deployed" means on
the board: a county, a castle space or a conflict.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.core.protocol import Action
from engine.lancaster.data import Law
from engine.lancaster.frames import Ctx
from engine.lancaster.pieces import board_knights, gain, name, resources_text
from engine.lancaster.state import State

Amounts = dict[str, int]


def counties_held(state: State, colour: int) -> int:
    return sum(1 for occ in state.counties if occ is not None and occ.colour == colour)


def conflicts_involved(state: State, colour: int) -> int:
    return sum(
        1
        for _, _, card in state.conflicts()
        if any(sp.colour == colour and sp.knights for sp in card.spaces)
    )


def deployed(state: State, colour: int) -> list[int]:
    return [s for s, _ in board_knights(state, colour)]


def most(state: State, value: Callable[[int], int]) -> list[int]:
    best = max(value(s) for s in range(state.players))
    return [s for s in state.seat_order() if value(s) == best]


def gain_each(
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


@dataclass(frozen=True)
class LawRule:
    """What one law does: it gives resources (``gains``), recruits knights
    (``new_knights``), or leaves choices (``choosers``: how many per player, in player
    order; ``options``: the actions of one choice). ``named`` says whom the law names (in
    the log, as the law does at the table); ``hidden_range`` marks choices whose range
    depends on hidden gold or squires (always asked outside the 2-player game)."""

    gains: Callable[[State, Law, int], Amounts] | None = None
    new_knights: Callable[[State, Law, int], int] | None = None
    choosers: Callable[[State, Law, int], int] | None = None
    options: Callable[[State, Law, int], list[Action]] | None = None
    named: tuple[str, Callable[[State], list[int]]] | None = None
    hidden_range: bool = False
    #: a law with its own effect on the state (Laws of the King)
    apply: Callable[[State, Law, Ctx], State] | None = None


def law_title(law: Law) -> str:
    """How the log names a law: 'Law "Title"'."""
    return f'Law "{law.title}"'
