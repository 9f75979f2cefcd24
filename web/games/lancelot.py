"""Lancelot on the web pages: its fields of the /new form (the variants,
``games/_lancelot_new.html``) and its board (``games/_lancelot.html``), drawn as the seat page
draws it: an SVG grid with coordinates, the knights by colour, Excalibur, and the squares the
seat may play laid over it as form buttons (so a click plays without JavaScript).

Everything comes from the rules' view and the seat's choices (``Rules.choices``): each option
names its square (``place``), so the page reads no notation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.core.protocol import Choices
from web.games.base import WebGame

if TYPE_CHECKING:
    from pbem.core.naming import Names

#: Knight colours by seat when the view names none. The digit of the mail's text board is
#: drawn on each knight too, so colour is never the only clue. What each colour looks like is
#: the stylesheet's (pbem.css: one value per player colour, shared with every game's board).
COLOURS = ("Red", "Blue", "Yellow", "Green", "Purple")
CELL = 40  # SVG units per square
#: The word of the force of the King: its button on the board plays it with the two squares
#: of its lists.
KING = "king"


def seat_colours(view: Mapping[str, Any]) -> list[str]:
    """Each seat's colour: the label the view gives it, else the default order."""
    players = view["players"]
    if isinstance(players, list):
        return [str(p.get("label") or COLOURS[i]) for i, p in enumerate(players)]
    return list(COLOURS[: int(players)])


def colour_class(colour: str) -> str:
    """The stylesheet's class of a player colour (``c-red``), which colours a swatch and a
    knight alike; ``c-other`` for a colour it has none for."""
    return f"c-{colour.lower()}" if colour in COLOURS else "c-other"


@dataclass
class Square:
    name: str
    x: float  # SVG units (centre)
    y: float
    # The button laid over the square sits in a CSS grid of the board's cells, coordinates
    # included (pbem.css: .squares), 1-based as CSS counts: placed by class, since the pages'
    # Content-Security-Policy allows no inline style.
    column: int
    row: int


@dataclass
class Knight:
    square: Square
    seat: int
    colour_class: str  # the stylesheet's class of its player's colour (``colour_class``)
    label: str
    symbol: str  # the letter of the mail's text board, drawn on the knight


@dataclass
class LancelotBoard:
    columns: list[str]
    rows: list[int]  # top to bottom
    size: int  # SVG width and height
    cells: list[Square]
    knights: list[Knight]
    excalibur: Square | None
    last: str | None
    colour_classes: list[str]  # each seat's colour as the stylesheet's class, for the swatches
    #: the square the last move put a knight on (a placement, or the force of the King's
    #: second square), marked on the board; None for a pass or setting Excalibur
    last_square: str | None = None
    #: the last move set or moved Excalibur (its square is marked as a knight's would be)
    last_excalibur: bool = False
    #: (square, the action it plays, what a screen reader says)
    playable: list[tuple[Square, str, str]] = field(default_factory=list)
    #: actions that are not one square (pass)
    other: list[tuple[str, str]] = field(default_factory=list)
    #: the force of the King: thousands of pairs, so the page asks for the two squares
    king_excalibur: list[str] = field(default_factory=list)
    king_knight: list[str] = field(default_factory=list)

    @property
    def cells_across(self) -> int:
        """The grid's cells across: the area's squares and a border of coordinates."""
        return len(self.columns) + 2


def board(view: Mapping[str, Any], choices: Choices, names: Sequence[str]) -> LancelotBoard:
    """``names``: each seat as people read it ("Ann (Red)")."""
    columns: list[str] = list(view["area"]["columns"])
    rows: list[int] = list(reversed(view["area"]["rows"]))  # the highest row on top
    n = len(columns)
    total = (n + 2) * CELL
    squares: dict[str, Square] = {}
    for r, row in enumerate(rows):
        for c, column in enumerate(columns):
            name = f"{column}{row}"
            squares[name] = Square(name, (c + 1.5) * CELL, (r + 1.5) * CELL, c + 2, r + 2)
    colours = seat_colours(view)
    symbols = _symbols(view)
    knights = []
    excalibur = None
    for name, holder in view["board"].items():
        if holder == "X":
            excalibur = squares.get(name)
        elif name in squares:
            seat = int(holder)
            knights.append(
                Knight(
                    squares[name],
                    seat,
                    colour_class(colours[seat]),
                    f"{names[seat]}'s knight on {name}",
                    symbols[seat],
                )
            )
    last = view.get("last_action")
    last_square, last_excalibur = _last_marks(last["text"] if last else None, squares)
    result = LancelotBoard(
        columns,
        rows,
        total,
        list(squares.values()),
        knights,
        excalibur,
        last["text"] if last else None,
        [colour_class(c) for c in colours],
        last_square,
        last_excalibur,
    )
    king_excalibur: set[str] = set()
    king_knight: set[str] = set()
    for group in choices.groups:
        # an option on one square is played by clicking it; the force of the King is two
        # steps (Excalibur's new square, then the knight's), asked in two lists
        for option in group.options:
            square = squares.get(option.place or "")
            if square is not None:
                result.playable.append((square, option.text, option.label))
            else:
                result.other.append((option.text, option.label))
        for step in group.groups:
            if step.place in squares:
                king_excalibur.add(step.place)
            king_knight.update(o.place for o in step.all_options() if o.place in squares)
    order = {name: i for i, name in enumerate(squares)}
    result.king_excalibur = sorted(king_excalibur, key=order.__getitem__)
    result.king_knight = sorted(king_knight, key=order.__getitem__)
    return result


def _symbols(view: Mapping[str, Any]) -> list[str]:
    players = view["players"]
    if isinstance(players, list):
        return [str(p.get("symbol") or i) for i, p in enumerate(players)]
    return [str(i) for i in range(int(players))]


class Lancelot(WebGame):
    name = "lancelot"
    label = "Lancelot"
    rules_note = "(2–5 players)"
    board_template = "games/_lancelot.html"
    form_template = "games/_lancelot_new.html"
    config_field = "variants"

    def form_move(self, text: str, form: Mapping[str, str]) -> str:
        if text == KING:
            # The force of the King: thousands of pairs, so the board asks for Excalibur's new
            # square and the knight's in two lists (``king_excalibur``, ``king_knight``).
            return f"{KING} {form.get('king_excalibur', '')} {form.get('king_knight', '')}"
        return text

    def read_form(self, form: Mapping[str, str]) -> dict[str, Any]:
        return {"diagonals": bool(form.get("diagonals")), "excalibur": bool(form.get("excalibur"))}

    def config(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """Lancelot's variants."""
        return {"variants": {"diagonals": values["diagonals"], "excalibur": values["excalibur"]}}

    def board(
        self, view: Mapping[str, Any], choices: Choices, names: Names, people: Sequence[str]
    ) -> dict[str, Any]:
        return {"lancelot": board(view, choices, people)}


GAME = Lancelot()


def _last_marks(text: str | None, squares: Mapping[str, Square]) -> tuple[str | None, bool]:
    """What the board marks of the last move (its canonical text, the view's): the square of
    the knight it placed — the last square named, ``E5`` or the force of the King's
    ``king F7 E5`` (rules/lancelot.md, Notation: Excalibur's square first, then the knight's)
    — and whether it moved Excalibur (``excalibur G9``, or the force of the King)."""
    words = (text or "").split()
    if not words:
        return None, False
    moved_sword = words[0] in ("king", "excalibur")
    knight = words[-1] if words[0] != "excalibur" and words[-1] in squares else None
    return knight, moved_sword
