"""The rules and notation pages: ``/rules/<game>`` renders the Markdown documents that ship
with pbem (``docs/<game>-rules.md`` and ``docs/<game>-notation.md``, whichever exist), the
page every turn mail and ``help`` reply links to.

The Markdown is rendered by markdown-it-py in CommonMark mode with raw HTML turned off (a
``<script>`` in a document is shown as text) and its own link check (no ``javascript:``
links); only then is the result marked safe for the template.
"""

from __future__ import annotations

import functools

from flask import Blueprint, render_template
from markdown_it import MarkdownIt

from pbem.resources import DocumentNotFound, document

rules_pages = Blueprint("rules", __name__)

#: The longest game name looked up (the API's limit on a game's name).
MAX_GAME_NAME = 40
#: The documents of a game's page, in the order they are shown.
KINDS = ("rules", "notation")


@functools.cache
def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


def game_documents(game: str) -> list[tuple[str, str]]:
    """(name, Markdown) of each shipped document of ``game``; the one lookup of this page
    (``pbem.resources.document`` finds them in a checkout and in an installed wheel)."""
    found = []
    for kind in KINDS:
        try:
            found.append((f"{game}-{kind}", document(f"{game}-{kind}")))
        except DocumentNotFound:
            continue
    return found


@rules_pages.get("/rules/<game>")
def rules_page(game: str) -> tuple[str, int]:
    # A game's name is a short word: a longer one is no file name the system can open.
    plausible = game.isascii() and game.isalnum() and len(game) <= MAX_GAME_NAME
    docs = game_documents(game) if plausible else []
    if not docs:
        message = (
            f"There is no rules page for a game called {game[:40]!r}. "
            "The rules pages are /rules/lancaster and /rules/lancelot."
        )
        return render_template("refused.html", message=message), 404
    sections = [_markdown().render(text) for _, text in docs]
    return render_template("rules.html", game=game, sections=sections), 200
