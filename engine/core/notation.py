"""Shared helpers for reading and writing player notation.

Players type moves in email replies, so reading is forgiving: case-insensitive, extra spaces,
commas and full stops ignored.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable

_SEPARATORS = re.compile(r"[\s,;.:!]+")


def normalise(text: str) -> str:
    """Lower-case, punctuation-as-space and single-spaced form of ``text``."""
    return " ".join(_SEPARATORS.split(text.strip().lower())).strip()


def words(text: str) -> list[str]:
    """The words of ``text`` after ``normalise``."""
    norm = normalise(text)
    return norm.split(" ") if norm else []


COLUMN_LETTERS = string.ascii_uppercase

_SQUARE = re.compile(r"^([a-z])\s*(\d{1,2})$")


def parse_square(token: str) -> tuple[int, int] | None:
    """``"E5"`` -> (column index 4, row 5); None if it is not shaped like a square."""
    m = _SQUARE.match(token.strip().lower())
    if not m:
        return None
    return COLUMN_LETTERS.index(m.group(1).upper()), int(m.group(2))


def format_square(column: int, row: int) -> str:
    """(4, 5) -> ``"E5"``."""
    return f"{COLUMN_LETTERS[column]}{row}"


def examples(texts: Iterable[str], limit: int = 8) -> tuple[str, ...]:
    """At most ``limit`` distinct example texts, in order, for "you can type" messages."""
    seen: list[str] = []
    for t in texts:
        if t not in seen:
            seen.append(t)
        if len(seen) >= limit:
            break
    return tuple(seen)


def quote(text: str, limit: int = 60) -> str:
    """A player's text, shortened, for an error message."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
