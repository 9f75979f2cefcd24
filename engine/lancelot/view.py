"""What a seat sees of a Lancelot game, and its plain-text rendering for emails.

Nothing is hidden in Lancelot: every seat and spectator gets the same facts; only the
``prompt`` is addressed to the viewer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core.notation import COLUMN_LETTERS
from engine.lancelot.notation import format_action
from engine.lancelot.play import placement_squares
from engine.lancelot.state import (
    COLOURS,
    END_TARGET,
    SYMBOLS,
    LancelotState,
    colour,
    occupied_squares,
)


def _prompt(state: LancelotState, seat: int | None) -> str:
    geo = state.geo
    if state.finished:
        best = state.captures(state.winners[0]) if state.winners else 0
        names = " and ".join(colour(s) for s in state.winners)
        verb = "wins" if len(state.winners) == 1 else "share the win"
        if state.end == END_TARGET:
            return f"The game is over: {names} reached {state.target} captures and {verb}."
        return (
            f"The game is over: no one can place a knight any more; {names} {verb} "
            f"with {best} captures."
        )
    if seat != state.current:
        return f"{colour(state.current)} is to play."
    if state.awaiting_excalibur:
        return "Your turn: set Excalibur on any square, e.g. excalibur G9."
    squares = placement_squares(state, seat)
    if not squares:
        return "Your turn: you cannot place a knight, so type pass."
    text = f"Your turn: place a knight, e.g. {geo.names[squares[0]]}"
    if state.excalibur and state.shields[seat]:
        text += (
            ", or use the force of the King once: king, Excalibur's new square, then your"
            " knight's square (like king F7 E5)"
        )
    return text + "."


def view(state: LancelotState, seat: int | None) -> dict[str, Any]:
    geo = state.geo
    seats = range(state.players)
    result: dict[str, Any] = {
        "game": "lancelot",
        "seat": seat,
        # The seats in turn order, each named as every text names it (its colour) and
        # drawn on the text board with its letter.
        "players": [{"seat": s, "label": COLOURS[s], "symbol": SYMBOLS[s]} for s in seats],
        "area": {
            "from": geo.first_name,
            "to": geo.last_name,
            "columns": [COLUMN_LETTERS[geo.offset + c] for c in range(geo.size)],
            "rows": [geo.offset + 1 + r for r in range(geo.size)],
        },
        "target": state.target,
        "variants": {"diagonals": state.diagonals, "excalibur": state.excalibur},
        "board": occupied_squares(state),
        "captures": [state.captures(s) for s in seats],
        "lost": [state.lost(s) for s in seats],
        "in_hand": list(state.in_hand),
        "to_act": [] if state.finished else [state.current],
        "finished": state.finished,
        "winners": list(state.winners),
        "end": state.end,
        "last_action": None
        if state.last_action is None
        else {"seat": state.last_seat, "text": format_action(state.last_action)},
        "prompt": _prompt(state, seat),
    }
    if state.excalibur:
        result["shields"] = list(state.shields)
        at = state.excalibur_at
        result["excalibur"] = None if at is None else geo.names[at]
    return result


def render_text(view: Mapping[str, Any]) -> str:
    """The board with coordinates, then captures and knights in hand, for a monospace email.
    Seats are drawn with their colour's letter and named by their colour."""
    columns: list[str] = list(view["area"]["columns"])
    rows: list[int] = list(view["area"]["rows"])
    board: Mapping[str, Any] = view["board"]
    seats: list[Mapping[str, Any]] = list(view["players"])
    labels = [str(p["label"]) for p in seats]
    symbols = [str(p["symbol"]) for p in seats]
    variants = [name for name, on in view["variants"].items() if on]
    lines = [
        f"Lancelot, {len(seats)} players, area {view['area']['from']}-{view['area']['to']}, "
        f"first to {view['target']} captures wins"
        + (f" (variants: {', '.join(variants)})." if variants else "."),
        "",
    ]
    header = "     " + " ".join(columns)
    lines.append(header)
    for row in reversed(rows):
        cells = []
        for column in columns:
            cell = board.get(f"{column}{row}")
            if cell is None:
                cells.append(".")
            elif isinstance(cell, int):
                cells.append(symbols[cell])
            else:
                cells.append(str(cell))  # "X": Excalibur
        lines.append(f"  {row:>2} " + " ".join(cells) + f"  {row}")
    lines.append(header)
    lines.append("")
    legend = ", ".join(f"{symbol} = {label}" for symbol, label in zip(symbols, labels, strict=True))
    legend += ", . = free square"
    if view["variants"].get("excalibur"):
        legend += ", X = Excalibur"
    lines.append(legend)
    lines.append("")
    shields = view.get("shields")
    width = max(len("knights"), *(len(label) for label in labels))
    title = f"{'knights':<{width}}  captures  lost  in hand" + (
        "  shield" if shields is not None else ""
    )
    lines.append(title)
    for s, label in enumerate(labels):
        line = (
            f"{label:<{width}}  {view['captures'][s]:>8}  {view['lost'][s]:>4}  "
            f"{view['in_hand'][s]:>7}"
        )
        if shields is not None:
            line += "  " + ("unused" if shields[s] else "spent")
        lines.append(line)
    lines.append("")
    # The same facts in words, for a mail program that shows this text in a proportional
    # font (the grid and the table above line up only in a monospace one).
    lines.append("In words:")
    squares = _squares_of(view)
    for s, label in enumerate(labels):
        line = (
            f"  {label}: {view['captures'][s]} captured, {view['lost'][s]} lost, "
            f"{view['in_hand'][s]} in hand"
        )
        if shields is not None:
            line += f", shield {'unused' if shields[s] else 'spent'}"
        lines.append(line + f"; knights on {', '.join(squares[s]) or 'no square'}.")
    if view["variants"].get("excalibur"):
        lines.append(f"  Excalibur: {view.get('excalibur') or 'not set yet'}.")
    lines.append("")
    seat = view.get("seat")
    if isinstance(seat, int):
        lines.append(f"You play {labels[seat]} ({symbols[seat]}).")
    last = view.get("last_action")
    if last:
        lines.append(f"Last move: {labels[last['seat']]} played {last['text']}.")
    lines.append(str(view["prompt"]))
    return "\n".join(lines) + "\n"


def _squares_of(view: Mapping[str, Any]) -> list[list[str]]:
    """Each seat's knights on the board, by square, column by column."""
    squares: list[list[str]] = [[] for _ in view["players"]]
    for column in view["area"]["columns"]:
        for row in view["area"]["rows"]:
            owner = view["board"].get(f"{column}{row}")
            if isinstance(owner, int):
                squares[owner].append(f"{column}{row}")
    return squares
