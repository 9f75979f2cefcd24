"""The deadline default (``auto_action``): deterministic, always legal, never clever.

- Before the first turn with Excalibur: set it on the square nearest the centre.
- Otherwise: place a knight where it captures the most knights; among equals, the square
  nearest the centre of the area (Manhattan distance), then the first in notation order.
  It never spends the white shield: a once-per-game privilege is the player's own choice.
- If no square is open: pass.
"""

from __future__ import annotations

from engine.core.protocol import Action
from engine.lancelot.lines import EMPTY, EXCALIBUR, Geometry
from engine.lancelot.play import LIMIT, advantages, placement_squares
from engine.lancelot.state import LancelotState


def centre_distance(geo: Geometry, square: int) -> int:
    """Twice the Manhattan distance from the area's centre (kept whole)."""
    c, r = divmod(square, geo.size)
    return abs(2 * c - (geo.size - 1)) + abs(2 * r - (geo.size - 1))


def captures_by_placing(state: LancelotState, seat: int, squares: list[int]) -> dict[int, int]:
    """For each square: how many knights placing there would capture (limit not checked)."""
    geo = state.geo
    board = state.board
    adv = advantages(geo, board, seat)
    # Knights of other seats on each line that would reach exactly +2 after one more knight.
    prey: dict[int, int] = {}
    for number, a in enumerate(adv):
        if a == LIMIT - 1:
            line = geo.line_cells[number](board)
            prey[number] = len(line) - line.count(EMPTY) - line.count(seat) - line.count(EXCALIBUR)
    return {sq: sum(prey.get(n, 0) for n in geo.lines_of[sq]) for sq in squares}


def auto_action(state: LancelotState, seat: int) -> Action:
    geo = state.geo
    if state.awaiting_excalibur:
        best = min(range(geo.squares), key=lambda sq: (centre_distance(geo, sq), sq))
        return geo.excalibur_actions[best]
    squares = placement_squares(state, seat)
    if not squares:
        return ("pass",)
    gains = captures_by_placing(state, seat, squares)
    best = min(squares, key=lambda sq: (-gains[sq], centre_distance(geo, sq), sq))
    return geo.place_actions[best]
