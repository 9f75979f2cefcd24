"""Lancelot's board in an HTML mail: the grid with its coordinates, each knight in its
player's colour with its letter, Excalibur, the last move's squares marked; then each
player's knights listed by square (the same facts as the grid, for readers who cannot see
it: a screen reader, a client that drops table borders) and the captures, losses, knights in
hand and shields. Read from the view only (``engine/lancelot/view.py``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from markupsafe import Markup, escape

from pbem.core.naming import Names
from pbem.mail.outbound.boards.palette import (
    EMPTY,
    LINE,
    MARK,
    MUTED,
    PAPER,
    SWORD,
    colour_style,
    render,
)

_SQUARE = re.compile(r"\b([A-Z]\d{1,2})\b")


def last_move_squares(view: Mapping[str, Any]) -> frozenset[str]:
    """The squares the last move names ("E5", "king F7 E5": Excalibur's and the knight's)."""
    last = view.get("last_action")
    if not last:
        return frozenset()
    return frozenset(_SQUARE.findall(str(last["text"]).upper()))


def knights_by_player(view: Mapping[str, Any]) -> list[list[str]]:
    """Each seat's knights on the board, by square name in the board's order."""
    board: Mapping[str, Any] = view["board"]
    columns = list(view["area"]["columns"])
    rows = list(view["area"]["rows"])
    squares: list[list[str]] = [[] for _ in view["players"]]
    for column in columns:
        for row in rows:
            owner = board.get(f"{column}{row}")
            if isinstance(owner, int):
                squares[owner].append(f"{column}{row}")
    return squares


def _grid_rows(view: Mapping[str, Any], cell: int) -> list[Markup]:
    """The grid's rows as HTML, drawn here rather than in the template: a 14 × 14 board has
    196 cells, and a template loop over them cost ten times what the rest of the mail did.
    Each distinct cell (owner, marked) is styled once."""
    players = list(view["players"])
    columns = list(view["area"]["columns"])
    board: Mapping[str, Any] = view["board"]
    marked = last_move_squares(view)
    base = f"height:{cell}px;padding:0;text-align:center;"
    coord = (
        f'<th scope="row" style="width:{cell}px;text-align:center;padding:0;color:{MUTED};'
        f'background-color:{PAPER};font-weight:bold;">{{}}</th>'
    )
    styles: dict[tuple[object, bool], str] = {}

    def style(owner: object, mark: bool) -> str:
        found = styles.get((owner, mark))
        if found is None:
            ring = f"border:2px solid {MARK};" if mark else f"border:1px solid {LINE};"
            if isinstance(owner, int):
                paint = colour_style(_colour_of(players[owner])) + "font-weight:bold;"
            elif owner is not None:
                paint = f"color:{SWORD[0]};background-color:{SWORD[1]};font-weight:bold;"
            else:
                paint = f"color:{EMPTY[0]};background-color:{EMPTY[1]};"
            found = styles[(owner, mark)] = base + ring + paint
        return found

    rows = []
    for row in reversed(list(view["area"]["rows"])):
        cells = [coord.format(row)]
        for column in columns:
            square = f"{column}{row}"
            owner = board.get(square)
            mark = square in marked
            last = ' data-last="1"' if mark else ""
            if isinstance(owner, int):
                symbol = str(escape(players[owner]["symbol"]))
                piece, shown = f' data-piece="{symbol}"', symbol
            elif owner is not None:
                piece, shown = ' data-piece="X"', "X"
            else:
                piece, shown = "", "&middot;"
            cells.append(
                f'<td data-square="{square}"{piece}{last} style="{style(owner, mark)}">{shown}</td>'
            )
        cells.append(coord.format(row))
        rows.append(Markup("<tr>" + "".join(cells) + "</tr>"))
    return rows


def board_html(view: Mapping[str, Any], names: Names) -> str:
    players = list(view["players"])
    columns = list(view["area"]["columns"])
    size = len(columns)
    cell = 26 if size <= 8 else (22 if size <= 10 else (20 if size <= 12 else 18))
    shields = view.get("shields")
    seat = view.get("seat")
    last = view.get("last_action")
    return render(
        "lancelot.html",
        heading=(
            f"Lancelot, {len(players)} players, area {view['area']['from']}-"
            f"{view['area']['to']}, first to {view['target']} captures wins"
        ),
        variants=[name for name, on in view["variants"].items() if on],
        columns=columns,
        grid=_grid_rows(view, cell),
        cell=cell,
        players=[
            {
                "label": str(p["label"]),
                "symbol": str(p["symbol"]),
                "colour": _colour_of(p),
                "captures": view["captures"][i],
                "lost": view["lost"][i],
                "in_hand": view["in_hand"][i],
                "shield": None if shields is None else ("unused" if shields[i] else "spent"),
                "squares": squares,
            }
            for i, (p, squares) in enumerate(zip(players, knights_by_player(view), strict=True))
        ],
        excalibur=view.get("excalibur"),
        has_excalibur=bool(view["variants"].get("excalibur")),
        you=players[seat] if isinstance(seat, int) else None,
        last=None
        if not last
        else {"label": str(players[last["seat"]]["label"]), "text": str(last["text"])},
        prompt=names.text(str(view["prompt"])),
    )


def _colour_of(player: Mapping[str, Any]) -> str:
    """The colour name in a label named for people ("Ann (Red)") or alone ("Red")."""
    label = str(player["label"])
    found = re.search(r"\(([A-Za-z]+)\)\s*$", label)
    return found.group(1) if found else label
