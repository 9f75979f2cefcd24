"""The rules and notation pages: ``/rules/<game>`` renders the Markdown documents that ship
with pbem (``docs/<game>-rules.md`` and ``docs/<game>-notation.md``, whichever exist), the
page every turn mail and ``help`` reply links to.

A game whose rules have component data (Lancaster) ends with a section generated from the
latest release, "Values not from a published source" (anchor ``provisional``): every value
still provisional, in words (``pbem.play.component_values``), the place the game pages link to.

The Markdown is rendered by markdown-it-py in CommonMark mode with raw HTML turned off (a
``<script>`` in a document is shown as text) and its own link check (no ``javascript:``
links); only then is the result marked safe for the template.
"""

from __future__ import annotations

import functools

from flask import Blueprint, render_template
from markdown_it import MarkdownIt

from pbem.core.errors import ServiceError
from pbem.core.resources import DocumentNotFound, document
from pbem.play.component_values import sections as provisional_sections
from web.games import WEB_GAMES
from web.pages.common import service

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
    (``pbem.core.resources.document`` finds them in a checkout and in an installed wheel)."""
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
            f"The rules pages are {' and '.join(f'/rules/{name}' for name in WEB_GAMES)}."
        )
        return render_template("refused.html", message=message), 404
    sections = [_markdown().render(text) for _, text in docs]
    try:
        rules = service().rules_for(game)
    except ServiceError:
        rules = None  # a document without rules installed: the documents alone
    provisional = provisional_sections(rules) if rules is not None else []
    version = getattr(rules, "version", None)
    return render_template(
        "rules.html", game=game, sections=sections, provisional=provisional, version=version
    ), 200
