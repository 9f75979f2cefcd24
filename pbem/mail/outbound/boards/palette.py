"""What every HTML mail is drawn with: the Jinja environment (autoescaped) of the HTML
templates, and the colours, each given as a foreground *and* a background.

Dark mode: Gmail and Outlook invert the colours of an HTML mail they show in dark mode, Apple
Mail leaves them; a cell with only one of the two set may end up dark on dark. So every
coloured cell sets both, and the player colours carry a letter in a colour chosen against
their own background (the same hues as the site's ``web/static/pbem.css``, which pbem may
not import)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

TEMPLATES = Path(__file__).parent.parent / "templates" / "html"

INK = "#1d1d1f"
MUTED = "#5a5a60"
PAPER = "#ffffff"
LINE = "#c9c9cf"
#: a square or cell of the board with nothing on it
EMPTY = ("#6b6b70", "#f3efe4")
#: Excalibur (Lancelot), drawn as its own piece
SWORD = ("#1d1d1f", "#f2c94c")
#: what changed with the last move
MARK = "#e8590c"
#: the links a reply can be made with
LINK = "#1f5fa8"

#: (foreground, background) of each player colour, by its name.
COLOURS: dict[str, tuple[str, str]] = {
    "red": ("#ffffff", "#c0392b"),
    "blue": ("#ffffff", "#1f5fa8"),
    "yellow": ("#1d1d1f", "#f0c419"),
    "green": ("#ffffff", "#2e7d32"),
    "purple": ("#ffffff", "#6a3d9a"),
    "white": ("#1d1d1f", "#f4f4f4"),
    "black": ("#ffffff", "#333333"),
}
OTHER = ("#ffffff", "#555555")


def colour_style(name: str | None) -> str:
    """The inline style of a cell or chip in a player's colour (both colours set)."""
    fg, bg = COLOURS.get((name or "").lower(), OTHER)
    return f"color:{fg};background-color:{bg};"


@functools.cache
def environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(("html",), default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        # the templates ship with the code: never stat them again
        auto_reload=False,
    )
    env.globals.update(
        colour_style=colour_style,
        INK=INK, MUTED=MUTED, PAPER=PAPER, LINE=LINE, EMPTY=EMPTY, SWORD=SWORD, MARK=MARK,
        LINK=LINK,
    )  # fmt: skip
    return env


def render(template: str, /, **values: Any) -> str:
    """An HTML template filled in, every value escaped."""
    return environment().get_template(template).render(**values)
