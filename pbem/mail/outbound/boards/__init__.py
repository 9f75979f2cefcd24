"""The boards the HTML part of a mail draws, one renderer per game, keyed by the rules' name.

Each renderer reads the seat's view only (``pbem.play.views.board_view``: the very view the
text board is written from), never the state, and returns an HTML fragment of tables and
inline styles: no SVG, no images, no ``<style>`` block (Gmail and Outlook strip them), no
script. A game without a renderer here is drawn as its text board in a monospace block.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pbem.core.naming import Names
from pbem.mail.outbound.boards import lancaster, lancelot
from pbem.mail.outbound.boards.palette import render

#: (the seat's view, players named; the names) -> the board as an HTML fragment
BoardRenderer = Callable[[Mapping[str, Any], Names], str]

#: Each game's mail board, by the rules' name.
MAIL_BOARDS: dict[str, BoardRenderer] = {
    "lancelot": lancelot.board_html,
    "lancaster": lancaster.board_html,
}


def board_html(game: str, view: Mapping[str, Any], names: Names, text_board: str) -> str:
    """The game's board drawn for an HTML mail; its text board, kept as it is in a monospace
    block, for a game with no renderer of its own."""
    renderer = MAIL_BOARDS.get(game)
    if renderer is None:
        return render("text_board.html", text=text_board)
    return renderer(view, names)
