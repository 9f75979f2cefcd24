"""The area in play and its lines, precomputed once per (player count, diagonals variant).

Squares of the area are numbered column-major: index = (column - first) * size + (row - first
row). Iterating the indexes in ascending order therefore visits squares in the order of
``action_sort_key`` on ``(column, row)``, so legal actions come out sorted without a sort.

The tables are pure functions of immutable arguments, cached with ``functools.cache``:
constants, not game state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from operator import itemgetter
from types import MappingProxyType
from typing import Any

from engine.core.notation import format_square

#: Board cell values besides a seat number (0..4).
EMPTY = -1
EXCALIBUR = 5

#: Lancelot: the board is 14×14, columns A–N, rows 1–14.
FULL_SIZE = 14

#: Lancelot: area and capture target per player count (rules/lancelot.md, the table).
#: players -> (first column/row index offset, size of the square area, default target)
AREAS: Mapping[int, tuple[int, int, int]] = MappingProxyType(
    {
        2: (3, 8, 7),  # D4–K11, 7 captures (source)
        3: (2, 10, 8),  # C3–L12, 8 (decision: rules/lancelot.md)
        4: (1, 12, 9),  # B2–M13, 9 (decision: rules/lancelot.md)
        5: (0, 14, 10),  # A1–N14, 10 (decision: rules/lancelot.md)
    }
)

#: Lancelot, variant 1: only diagonals of 4 or more squares within the area count.
MIN_DIAGONAL = 4

Getter = Any  # operator.itemgetter instance: board -> tuple of the line's cells


@dataclass(frozen=True)
class Geometry:
    """Everything about the area that does not change during a game."""

    players: int
    diagonals: bool
    offset: int  # column index (A=0) and row number - 1 of the area's first square
    size: int
    #: square index -> (column index, row number)
    coords: tuple[tuple[int, int], ...]
    #: square index -> its name, e.g. "E5"
    names: tuple[str, ...]
    #: name (upper case) -> square index
    index_of: Mapping[str, int]
    #: line index -> the squares on it, and its human name ("row 5", "column E", ...)
    lines: tuple[tuple[int, ...], ...]
    line_names: tuple[str, ...]
    #: line index -> a function returning the tuple of the line's cells of a board
    line_cells: tuple[Getter, ...]
    #: square index -> the indexes of the lines through it
    lines_of: tuple[tuple[int, ...], ...]
    #: square index -> the ready-made actions naming it
    place_actions: tuple[tuple[str, int, int], ...]
    excalibur_actions: tuple[tuple[str, int, int], ...]

    @property
    def squares(self) -> int:
        return self.size * self.size

    @property
    def first_name(self) -> str:
        return self.names[0]

    @property
    def last_name(self) -> str:
        return self.names[-1]

    @property
    def area_name(self) -> str:
        return f"{self.first_name}-{self.last_name}"

    def square(self, column: int, row: int) -> int | None:
        """The index of the square (column index, row number), None outside the area."""
        c = column - self.offset
        r = row - 1 - self.offset
        if 0 <= c < self.size and 0 <= r < self.size:
            return c * self.size + r
        return None


@cache
def geometry(players: int, diagonals: bool) -> Geometry:
    """The area of a game with ``players`` players, with or without diagonal lines."""
    offset, size, _target = AREAS[players]
    coords = tuple(
        (offset + c, offset + r + 1) for c in range(size) for r in range(size)
    )  # column-major, see the module docstring
    names = tuple(format_square(c, r) for c, r in coords)

    def idx(c: int, r: int) -> int:
        return c * size + r

    lines: list[tuple[int, ...]] = []
    line_names: list[str] = []
    # Rows before columns, so that messages read "row 4 and column K".
    for r in range(size):
        lines.append(tuple(idx(c, r) for c in range(size)))
        line_names.append(f"row {offset + r + 1}")
    for c in range(size):
        lines.append(tuple(idx(c, r) for r in range(size)))
        line_names.append(f"column {names[idx(c, 0)][0]}")
    if diagonals:
        # Rising diagonals (column - row constant), then falling ones (column + row constant).
        for d in range(-(size - 1), size):
            line = tuple(idx(c, c - d) for c in range(size) if 0 <= c - d < size)
            if len(line) >= MIN_DIAGONAL:
                lines.append(line)
                line_names.append(f"diagonal {names[line[0]]}-{names[line[-1]]}")
        for s in range(2 * size - 1):
            line = tuple(idx(c, s - c) for c in range(size) if 0 <= s - c < size)
            if len(line) >= MIN_DIAGONAL:
                lines.append(line)
                line_names.append(f"diagonal {names[line[0]]}-{names[line[-1]]}")

    lines_of: list[list[int]] = [[] for _ in coords]
    for number, line in enumerate(lines):
        for square in line:
            lines_of[square].append(number)

    return Geometry(
        players=players,
        diagonals=diagonals,
        offset=offset,
        size=size,
        coords=coords,
        names=names,
        index_of=MappingProxyType({name: i for i, name in enumerate(names)}),
        lines=tuple(lines),
        line_names=tuple(line_names),
        line_cells=tuple(itemgetter(*line) for line in lines),
        lines_of=tuple(tuple(x) for x in lines_of),
        place_actions=tuple(("place", c, r) for c, r in coords),
        excalibur_actions=tuple(("excalibur", c, r) for c, r in coords),
    )


@cache
def king_actions(players: int) -> tuple[tuple[tuple[Any, ...], ...], ...]:
    """``king_actions(...)[e][k]`` is the action "move Excalibur to e, place on k".

    Built once per area so that listing the (many) force-of-the-King actions only picks
    ready-made tuples.
    """
    geo = geometry(players, False)
    return tuple(tuple(("king", ec, er, kc, kr) for kc, kr in geo.coords) for ec, er in geo.coords)
