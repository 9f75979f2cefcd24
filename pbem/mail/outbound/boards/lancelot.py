"""Lancelot's board in an HTML mail: the grid with its coordinates, each knight in its
player's colour with its letter, Excalibur, the last move's squares marked; then each
player's knights listed by square (the same facts as the grid, for readers who cannot see
it: a screen reader, a client that drops table borders) and the captures, losses, knights in
hand and shields. Read from the view only (``engine/lancelot/view.py``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pbem.core.naming import Names
from pbem.mail.outbound.boards.palette import render

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


def board_html(view: Mapping[str, Any], names: Names) -> str:
    players = list(view["players"])
    columns = list(view["area"]["columns"])
    rows = list(view["area"]["rows"])
    board: Mapping[str, Any] = view["board"]
    marked = last_move_squares(view)
    grid = []
    for row in reversed(rows):
        cells = []
        for column in columns:
            square = f"{column}{row}"
            owner = board.get(square)
            cells.append(
                {
                    "square": square,
                    "owner": owner if isinstance(owner, int) else None,
                    "sword": owner is not None and not isinstance(owner, int),
                    "marked": square in marked,
                }
            )
        grid.append((row, cells))
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
        grid=grid,
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
        size=len(columns),
    )


def _colour_of(player: Mapping[str, Any]) -> str:
    """The colour name in a label named for people ("Ann (Red)") or alone ("Red")."""
    label = str(player["label"])
    found = re.search(r"\(([A-Za-z]+)\)\s*$", label)
    return found.group(1) if found else label
