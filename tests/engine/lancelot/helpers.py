"""Build Lancelot positions by playing moves, the way players would type them."""

from __future__ import annotations

from collections.abc import Callable

from engine.core.protocol import Transition
from engine.lancelot import LANCELOT
from engine.lancelot.lines import EMPTY, EXCALIBUR
from engine.lancelot.state import LancelotState

R = LANCELOT


def new_game(
    players: int = 2,
    *,
    target: int | None = None,
    diagonals: bool = False,
    excalibur: bool = False,
) -> LancelotState:
    config: dict[str, object] = {
        "players": players,
        "variants": {"diagonals": diagonals, "excalibur": excalibur},
    }
    if target is not None:
        config["target"] = target
    return R.initial_state(config, seed=1)


def step(state: LancelotState, text: str) -> Transition:
    """The seat to act types ``text``."""
    seat = state.current
    return R.apply(state, seat, R.parse_action(state, seat, text))


def play(state: LancelotState, *moves: str) -> LancelotState:
    """Each move is typed by the seat whose turn it is, in turn order."""
    for text in moves:
        state = step(state, text).state
    return state


def at(state: LancelotState, name: str) -> int | str | None:
    """Who holds the square: a seat, "X" for Excalibur, None if free."""
    cell = state.board[state.geo.index_of[name]]
    if cell == EMPTY:
        return None
    return "X" if cell == EXCALIBUR else cell


def advantage(state: LancelotState, seat: int, squares: list[str]) -> int:
    """Seat's advantage on the line made of ``squares``, counted the plain way: its knights
    minus every other piece (Excalibur included)."""
    own = others = 0
    for name in squares:
        holder = at(state, name)
        if holder == seat:
            own += 1
        elif holder is not None:
            others += 1
    return own - others


def row(state: LancelotState, number: int) -> list[str]:
    geo = state.geo
    return [name for name in geo.names if int(name[1:]) == number]


def column(state: LancelotState, letter: str) -> list[str]:
    geo = state.geo
    return [name for name in geo.names if name[0] == letter]


def random_game(
    config: dict[str, object], seed: int, king_one_in: int = 4
) -> list[tuple[LancelotState, int, tuple[object, ...], Transition]]:
    """A seeded random game through the public rules: every step as (state before, seat,
    action, transition). While a seat holds its shield it uses the force of the King with
    probability 1/``king_one_in`` (uniform over all actions it would use it at once)."""
    from engine.core import rng

    state = R.initial_state(config, seed)
    r = rng.seed_state(seed)
    steps = []
    while R.to_act(state):
        (seat,) = R.to_act(state)
        legal = R.legal_actions(state, seat)
        kings = [a for a in legal if a[0] == "king"] if state.shields[seat] else []
        others = legal[len(kings) :]
        pick, r = rng.below(r, king_one_in)
        options = kings if kings and (pick == 0 or not others) else others
        index, r = rng.below(r, len(options))
        action = options[index]
        t = R.apply(state, seat, action)
        steps.append((state, seat, action, t))
        state = t.state
    return steps


Step = tuple[LancelotState, int, tuple[object, ...], Transition]


def first_step(config: dict[str, object], wanted: Callable[[Step], bool]) -> Step:
    for seed in range(400):
        for s in random_game(config, seed):
            if wanted(s):
                return s
    raise AssertionError(f"no seed in 0..399 reaches the position wanted with {config}")


def final_state(
    config: dict[str, object], wanted: Callable[[LancelotState], bool]
) -> LancelotState:
    for seed in range(400):
        steps = random_game(config, seed)
        final: LancelotState = steps[-1][3].state
        if wanted(final):
            return final
    raise AssertionError(f"no seed in 0..399 ends the way wanted with {config}")


# A target nobody reaches: the board fills up and seats run out of open squares.
LONG_GAME = {"players": 2, "target": 30, "variants": {"diagonals": True}}
