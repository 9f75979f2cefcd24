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


#: Words that never change a move in any game: politeness, greetings, the writer's own
#: pronouns and contractions, and "the". Each game adds the words of its own notation.
#: decision (ours, issue 8): deliberately absent are negations ("not", "don't"), hedges
#: ("maybe", "think", "if", "or"), question words ("can", "should", "shall"), counts, "it"
#: ("I vote for it" names nothing) and "a"/"an" (a county letter in Lancaster).
COMMON_FILLER = frozenset(
    {
        # politeness
        "please", "pls", "plz", "thanks", "thank", "you", "thx", "cheers", "ok", "okay",
        # greetings
        "hi", "hello", "hey",
        # the writer
        "i", "i'd", "i'm", "i'll", "i've", "me", "my", "we", "we'd", "we'll", "we're", "let",
        "let's", "lets", "will", "would", "like", "want",
        # articles
        "the",
    }
)  # fmt: skip

#: The greeting words of ``COMMON_FILLER``: a colour right after one greets a player
#: ("Hi Blue") rather than naming a choice.
GREETING_WORDS = frozenset({"hi", "hello", "hey"})

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
