"""Lancelot's rules of play: advantage, the limit, captures, the force of the King, the end.

Advantage on a line, for seat p (rules/lancelot.md, "Advantage"): p's knights on it minus all
other pieces on it, Excalibur included. With ``occupied`` the pieces on the line, that is
``2 * own - occupied``. During a force-of-the-King turn Excalibur is on the acting seat's
side, so it moves from the second term into the first.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from engine.core.protocol import Action
from engine.lancelot.lines import EMPTY, EXCALIBUR, Geometry, king_actions
from engine.lancelot.state import END_BLOCKED, END_TARGET, LancelotState

#: Lancelot: "you cannot have an advantage of greater than two knights".
LIMIT = 2


def advantages(geo: Geometry, board: tuple[int, ...], seat: int) -> list[int]:
    """Seat's advantage on every line of the area, as the board stands."""
    result = []
    for cells in geo.line_cells:
        line = cells(board)
        result.append(2 * line.count(seat) - len(line) + line.count(EMPTY))
    return result


def _forbidden(geo: Geometry, adv: list[int], above: int) -> set[int]:
    """Squares on any line whose advantage is more than ``above``."""
    lines = geo.lines
    forbidden: set[int] = set()
    for number, a in enumerate(adv):
        if a > above:
            forbidden.update(lines[number])
    return forbidden


def placement_squares(state: LancelotState, seat: int) -> list[int]:
    """The free squares where ``seat`` may place a knight now (in ascending order).

    Lancelot, the limit: placing adds 1 to the seat's advantage on every line through the
    square, so every line through it must be at most +1 before placing.
    """
    if state.in_hand[seat] == 0:
        return []
    board = state.board
    forbidden = _forbidden(state.geo, advantages(state.geo, board, seat), LIMIT - 1)
    return [i for i, cell in enumerate(board) if cell == EMPTY and i not in forbidden]


def can_place(state: LancelotState, seat: int) -> bool:
    if state.in_hand[seat] == 0:
        return False
    board = state.board
    forbidden = _forbidden(state.geo, advantages(state.geo, board, seat), LIMIT - 1)
    return any(cell == EMPTY and i not in forbidden for i, cell in enumerate(board))


def king_moves(state: LancelotState, seat: int) -> list[Action]:
    """Every legal force-of-the-King action of ``seat`` (sorted), [] without a shield.

    Excalibur leaves its old square (one opponent fewer on those lines) and counts for the
    seat on its new square e, as does the knight on k. Lines through e or k must end at most
    +2 (the limit). Two distinct squares share at most one line; a shared line gains +2, any
    other line through e or k gains +1.
    """
    if not (state.excalibur and state.shields[seat]) or state.in_hand[seat] == 0:
        return []
    old = state.excalibur_at
    if old is None:
        return []
    geo = state.geo
    board = state.board
    adv = advantages(geo, board, seat)
    for number in geo.lines_of[old]:
        adv[number] += 1  # Excalibur no longer an opponent on its old lines
    lines_of = geo.lines_of
    lines = geo.lines
    blocked = _forbidden(geo, adv, LIMIT - 1)
    # decision (ours): the knight may go on Excalibur's old square ("move Excalibur ... and
    # then place a knight": the square is free by then); Excalibur must go to another square.
    knight_ok = [i for i, cell in enumerate(board) if cell == EMPTY and i not in blocked]
    if old not in blocked:
        knight_ok.append(old)
        knight_ok.sort()
    table = king_actions(state.players)
    result: list[Action] = []
    for e in knight_ok:
        if e == old:
            continue
        shared: set[int] = {e}
        for number in lines_of[e]:
            if adv[number] > LIMIT - 2:
                shared.update(lines[number])
        row = table[e]
        result.extend([row[k] for k in knight_ok if k not in shared])
    return result


@dataclass(frozen=True)
class Judgement:
    """The limit and captures on some lines of a board after a placement."""

    #: (line index, the acting seat's advantage on it) for every line over the limit
    over: tuple[tuple[int, int], ...]
    #: (line index, squares captured on it) for every line at exactly +2
    captures: tuple[tuple[int, tuple[int, ...]], ...]


def judge(
    geo: Geometry, board: tuple[int, ...], seat: int, through: Iterable[int], excalibur_own: bool
) -> Judgement:
    """Apply the limit and find the captures on every line through the squares ``through``
    of ``board`` (the board after the placement), all at once."""
    numbers = sorted({n for square in through for n in geo.lines_of[square]})
    over: list[tuple[int, int]] = []
    captures: list[tuple[int, tuple[int, ...]]] = []
    for number in numbers:
        line = geo.line_cells[number](board)
        own = line.count(seat)
        if excalibur_own:
            own += line.count(EXCALIBUR)
        adv = 2 * own - len(line) + line.count(EMPTY)
        if adv > LIMIT:
            over.append((number, adv))
        elif adv == LIMIT:
            # Lancelot, capture: all other players' knights on the line; Excalibur never.
            taken = tuple(
                sq for sq in geo.lines[number] if board[sq] not in (seat, EMPTY, EXCALIBUR)
            )
            if taken:
                captures.append((number, taken))
    return Judgement(tuple(over), tuple(captures))


def after_place(state: LancelotState, seat: int, square: int) -> tuple[tuple[int, ...], Judgement]:
    """The board after ``seat`` places on ``square`` (before captures) and its judgement."""
    board = list(state.board)
    board[square] = seat
    after = tuple(board)
    return after, judge(state.geo, after, seat, (square,), excalibur_own=False)


def after_king(
    state: LancelotState, seat: int, excalibur_to: int, square: int
) -> tuple[tuple[int, ...], Judgement]:
    """The board after the force of the King (before captures) and its judgement: the limit
    and captures on the lines through Excalibur's new square and the knight's square, with
    Excalibur on the seat's side. Lines through the old square only are not judged.

    decision (ours; rules/lancelot.md is silent): a line through both the old and the new
    square is a line through the new square, so it is judged; all judged lines are judged
    at once on the board after the move and the placement, and a knight on two capturing
    lines is captured (and counted) once.
    """
    board = list(state.board)
    old = state.excalibur_at
    if old is not None:
        board[old] = EMPTY
    board[excalibur_to] = EXCALIBUR
    board[square] = seat
    after = tuple(board)
    return after, judge(state.geo, after, seat, (excalibur_to, square), excalibur_own=True)


def resolve(
    state: LancelotState,
    seat: int,
    board: tuple[int, ...],
    judgement: Judgement,
    action: Action,
    shield_spent: bool,
) -> tuple[LancelotState, tuple[int, ...]]:
    """The state after a legal placement: captures removed and counted, the turn passed on
    or the game ended. Returns it and the captured squares (each once)."""
    taken = sorted({sq for _, squares in judgement.captures for sq in squares})
    cells = list(board)
    gained = list(state.captured[seat])
    for sq in taken:
        gained[cells[sq]] += 1
        cells[sq] = EMPTY
    captured = tuple(tuple(gained) if by == seat else row for by, row in enumerate(state.captured))
    in_hand = tuple(n - 1 if s == seat else n for s, n in enumerate(state.in_hand))
    shields = state.shields
    if shield_spent:
        shields = tuple(False if s == seat else has for s, has in enumerate(shields))
    new = replace(
        state,
        board=tuple(cells),
        in_hand=in_hand,
        captured=captured,
        shields=shields,
        last_seat=seat,
        last_action=action,
    )
    return next_turn(new, seat), tuple(taken)


def next_turn(state: LancelotState, seat: int) -> LancelotState:
    """Hand the turn on after ``seat`` acted, or end the game.

    Lancelot, end: reaching the target wins at once. decision (rules/lancelot.md, End): a
    seat that cannot place must pass, and when no one can place the most captures win,
    equal counts sharing the win. decision (ours): the game ends as soon as no seat can
    place, without asking every seat to pass first; a seat that cannot place while others
    can types ``pass`` (it is an action, so the deadline default covers absent players).
    """
    if state.captures(seat) >= state.target:
        return replace(state, finished=True, winners=(seat,), end=END_TARGET)
    n = state.players
    following = (seat + 1) % n
    for step in range(n):
        if can_place(state, (following + step) % n):
            return replace(state, current=following)
    best = max(state.captures(s) for s in range(n))
    winners = tuple(s for s in range(n) if state.captures(s) == best)
    return replace(state, finished=True, winners=winners, end=END_BLOCKED)
