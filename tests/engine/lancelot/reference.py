"""A deliberately simple second reading of Lancelot's rules, for checking the engine.

It shares nothing with the engine's line tables or counting: squares are (column, row) pairs,
lines are walked square by square, and the rules of rules/lancelot.md are applied literally.
Slow and obvious on purpose.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

from engine.lancelot.state import LancelotState

X = "X"  # Excalibur
Square = tuple[int, int]
Board = dict[Square, Any]  # square -> seat or "X"; free squares are absent

AREA = {2: (3, 8), 3: (2, 10), 4: (1, 12), 5: (0, 14)}  # players -> (offset, size)


@cache
def area(players: int) -> tuple[Square, ...]:
    """Column-major, the order of the engine's board tuple."""
    offset, size = AREA[players]
    return tuple((offset + c, offset + 1 + r) for c in range(size) for r in range(size))


def board_of(state: LancelotState) -> Board:
    result: Board = {}
    for square, (c, r) in zip(range(len(state.board)), area(state.players), strict=True):
        cell = state.board[square]
        if cell == 5:
            result[(c, r)] = X
        elif cell >= 0:
            result[(c, r)] = cell
    return result


@cache
def lines_through(players: int, diagonals: bool, square: Square) -> tuple[tuple[Square, ...], ...]:
    """The row and column through ``square`` and, in the variant, its diagonals of 4+."""
    squares = area(players)
    c, r = square
    result = [
        tuple(sorted(s for s in squares if s[1] == r)),
        tuple(sorted(s for s in squares if s[0] == c)),
    ]
    if diagonals:
        rising = tuple(sorted(s for s in squares if s[0] - s[1] == c - r))
        falling = tuple(sorted(s for s in squares if s[0] + s[1] == c + r))
        result += [d for d in (rising, falling) if len(d) >= 4]
    return tuple(result)


@cache
def all_lines(players: int, diagonals: bool) -> tuple[tuple[Square, ...], ...]:
    seen: dict[tuple[Square, ...], None] = {}
    for square in area(players):
        for line in lines_through(players, diagonals, square):
            seen[line] = None
    return tuple(seen)


def advantage(
    board: Board, line: tuple[Square, ...], seat: int, excalibur_mine: bool = False
) -> int:
    """Seat's knights on the line minus every other piece on it (Excalibur is another
    player's knight unless it is on the seat's side this turn)."""
    own = others = 0
    for square in line:
        holder = board.get(square)
        if holder is None:
            continue
        if holder == seat or (holder == X and excalibur_mine):
            own += 1
        else:
            others += 1
    return own - others


def judge(
    state: LancelotState, board: Board, seat: int, through: list[Square], excalibur_mine: bool
) -> tuple[bool, set[Square]]:
    """(within the limit on every line through ``through``, knights captured)."""
    ok = True
    taken: set[Square] = set()
    for square in through:
        for line in lines_through(state.players, state.diagonals, square):
            adv = advantage(board, line, seat, excalibur_mine)
            if adv > 2:
                ok = False
            elif adv == 2:
                taken |= {s for s in line if board.get(s) not in (None, seat, X)}
    return ok, taken


def excalibur_square(board: Board) -> Square | None:
    return next((s for s, holder in board.items() if holder == X), None)


def outcome_of(state: LancelotState, seat: int, action: tuple[Any, ...]) -> Board | None:
    """The board after ``action`` by ``seat`` if the action is legal, else None (pass and
    the opening are not judged here)."""
    board = board_of(state)
    kind = action[0]
    if state.in_hand[seat] == 0:
        return None
    if kind == "place":
        square = (action[1], action[2])
        if square not in area(state.players) or square in board:
            return None
        board[square] = seat
        ok, taken = judge(state, board, seat, [square], excalibur_mine=False)
    elif kind == "king":
        old = excalibur_square(board)
        to, square = (action[1], action[2]), (action[3], action[4])
        if not state.excalibur or not state.shields[seat] or old is None or to == square:
            return None
        if to in board or (square in board and square != old):
            return None
        del board[old]
        board[to] = X
        board[square] = seat
        ok, taken = judge(state, board, seat, [to, square], excalibur_mine=True)
    else:
        raise ValueError(action)
    if not ok:
        return None
    for s in taken:
        del board[s]
    return board


def candidate_actions(state: LancelotState) -> Iterator[tuple[Any, ...]]:
    squares = area(state.players)
    for c, r in squares:
        yield ("place", c, r)
    if state.excalibur and state.shields[state.current]:
        for ec, er in squares:
            for kc, kr in squares:
                yield ("king", ec, er, kc, kr)


def legal_actions(state: LancelotState, seat: int) -> set[tuple[Any, ...]]:
    """Every legal action, found by trying every candidate."""
    if state.finished or seat != state.current:
        return set()
    if state.excalibur and excalibur_square(board_of(state)) is None:
        return {("excalibur", c, r) for c, r in area(state.players)}
    legal = {a for a in candidate_actions(state) if outcome_of(state, seat, a) is not None}
    return legal or {("pass",)}


def can_place(state: LancelotState, seat: int) -> bool:
    board = board_of(state)
    return state.in_hand[seat] > 0 and any(
        outcome_of(state, seat, ("place", c, r)) is not None
        for c, r in area(state.players)
        if (c, r) not in board
    )
