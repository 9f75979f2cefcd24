"""Reading what a player typed: every word is accounted for, nothing is guessed.

A reply is split into words (lower case, punctuation dropped, ``+2`` read as ``plus 2``,
number words as digits). Each decision has a list of *phrases* (``knight 2``, ``to D``,
``with 1 squire``, ``vote yes``...); the words are read left to right, each by the longest
phrase that fits, or skipped when it is one of ``FILLER`` — a small list of words that never
change a move ("please", "I", "my", "the"...). A word that is neither makes the whole line
unreadable: ``nobel``, ``holiday`` or ``squires`` without a number are never half-read.

The phrases give *features* (strength, target, squires, verb...). A line that gives the same
feature twice with different values, or leaves out one the move needs (and that is not the
only possibility), is unreadable too. The caller turns features into one action, which the
rules then check (an illegal move gets the rule that forbids it, not a syntax error).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.core.notation import COMMON_FILLER

#: Words that never change a move, in any decision: the words common to every game
#: (``COMMON_FILLER``: politeness, greetings, the writer, "the") and Lancaster's own.
#: Negations ("not", "don't") and every word that could name a choice are deliberately
#: absent; so is "a", a county letter.
FILLER = COMMON_FILLER | frozenset(
    {
        *("and", "then", "choose", "chooses", "choosing", "pick", "picks", "picking", "take"),
        *("takes", "taking", "use", "uses", "using", "go", "going", "for", "of"),
    }
)

NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        (
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
        )
    )
}
COUNTY_NAMES = {"gloucester": "D", "dorset": "H", "surrey": "I"}
COUNTY_WORDS = frozenset("abcdefghi")
PREPOSITIONS = frozenset({"to", "in", "into", "on", "at", "onto"})
NO_WORDS = frozenset({"no", "none", "nothing", "skip", "decline", "pass", "done", "stop", "nay"})

_SPLIT = re.compile(r"[\s,;.:!?()\[\]{}\"“”‘/=*_<>-]+")


#: Extension point: the pieces a reply may name instead of a knight to upgrade (At the King's
#: Court: "bishop", ``pieces.UPGRADE_TAKERS``), filled by ``wiring.py``
INSTEAD_OF_UPGRADE: list[str] = []


def words(text: str) -> list[str]:
    """The words of ``text``: lower case, punctuation dropped, ``+`` as ``plus``, number
    words as digits, a trailing ``'s`` dropped ("ally's" is "ally")."""
    out: list[str] = []
    for raw in _SPLIT.split(text.replace("+", " plus ").replace("’", "'").lower()):
        w = raw.strip("'")
        if w.endswith("'s"):
            w = w[:-2]
        if not w:
            continue
        out.append(str(NUMBER_WORDS[w]) if w in NUMBER_WORDS else w)
    return out


def number(word: str) -> int | None:
    # isdecimal, not isdigit: "²" is a digit that int() refuses; every decimal digit it reads
    return int(word) if word.isdecimal() and len(word) <= 3 else None


def _said(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, tuple):
        return " ".join(map(str, value))
    return str(value)


class Unreadable(Exception):
    """The line cannot be read as one move; the message says why, for the player."""


@dataclass
class Reading:
    """The features a line gave, by name."""

    words: list[str]
    features: dict[str, Any] = field(default_factory=dict)

    def set(self, key: str, value: Any, *, once: bool = False) -> None:
        """Set a feature. Saying the same thing twice is fine ("favor 3, gold"), except for
        an amount (``once``): "1 squire and 1 squire" might mean 2, so it is not read."""
        if key in self.features and not key.startswith("_"):
            old = self.features[key]
            if old != value:
                raise Unreadable(
                    f"it says two different things for one choice ({_said(old)}, {_said(value)})"
                )
            if once:
                raise Unreadable("it gives the same amount twice: say it once")
        self.features[key] = value

    def get(self, key: str, default: Any = None) -> Any:
        return self.features.get(key, default)

    def has(self, key: str) -> bool:
        return key in self.features


#: A phrase: given the words and a position, the number of words it reads (0: no match),
#: having set its features on the reading.
Phrase = Callable[[Reading, int], int]


def read(text_words: list[str], phrases: Sequence[Phrase]) -> Reading:
    """Read every word with ``phrases`` (longest first) or ``FILLER``; else Unreadable."""
    r = Reading(text_words)
    i = 0
    while i < len(text_words):
        best = 0
        best_features: dict[str, Any] = {}
        error: Unreadable | None = None
        for phrase in phrases:
            trial = Reading(text_words, dict(r.features))
            try:
                n = phrase(trial, i)
            except Unreadable as e:
                error = error or e
                continue
            if n > best:  # the longest phrase wins; among equals, the first listed
                best, best_features = n, trial.features
        if best:
            r.features = best_features
            i += best
            continue
        if error is not None:
            raise error
        if text_words[i] in FILLER:
            i += 1
            continue
        raise Unreadable(f"the word {text_words[i]!r} is not understood here")
    if not any(not key.startswith("_") for key in r.features):
        raise Unreadable("it names no move")
    return r


# -- building blocks ---------------------------------------------------------------------------


def at(r: Reading, i: int, *options: str | frozenset[str]) -> bool:
    """Whether the words from ``i`` are ``options`` in turn (a set matches any of its words)."""
    if i + len(options) > len(r.words):
        return False
    for k, opt in enumerate(options):
        w = r.words[i + k]
        if isinstance(opt, str):
            if w != opt:
                return False
        elif w not in opt:
            return False
    return True


def word(*ws: str) -> frozenset[str]:
    return frozenset(ws)


def keyword(key: str, value: Any, *ws: str) -> Phrase:
    """Any one of ``ws`` sets ``key`` to ``value``."""
    accepted = frozenset(ws)

    def phrase(r: Reading, i: int) -> int:
        if r.words[i] in accepted:
            r.set(key, value)
            return 1
        return 0

    return phrase


def keyphrase(key: str, value: Any, *parts: str | frozenset[str]) -> Phrase:
    """The words ``parts`` in order set ``key`` to ``value``."""

    def phrase(r: Reading, i: int) -> int:
        if at(r, i, *parts):
            r.set(key, value)
            return len(parts)
        return 0

    return phrase


def numbered(key: str, *leads: str, optional_lead: frozenset[str] = frozenset()) -> Phrase:
    """``<lead> [<optional lead>] N`` sets ``key`` to N (e.g. ``castle space 3``)."""
    accepted = frozenset(leads)

    def phrase(r: Reading, i: int) -> int:
        if i >= len(r.words) or r.words[i] not in accepted:
            return 0
        j = i + 1
        if j < len(r.words) and r.words[j] in optional_lead:
            j += 1
        if j < len(r.words) and number(r.words[j]) is not None:
            r.set(key, number(r.words[j]))
            return j + 1 - i
        return 0

    return phrase


def bare_number(key: str, *, once: bool = False) -> Phrase:
    """A number alone; ``once`` for an amount (see ``Reading.set``)."""

    def phrase(r: Reading, i: int) -> int:
        n = number(r.words[i])
        if n is None:
            return 0
        r.set(key, n, once=once)
        return 1

    return phrase


def counted(
    key: str, singular: frozenset[str], plural: frozenset[str], prefix: str = "voting"
) -> Phrase:
    """An amount of something: ``2 squires``, ``with 2 squires``, ``plus 2``, ``a squire``,
    ``my marker``, ``no squires``, ``without squires``. A plural without a number ("with
    squires") is not read: how many is not said."""
    nouns = singular | plural

    def noun_at(w: list[str], j: int) -> int:
        """Words of the noun starting at ``j`` ("voting markers" is two), 0 if none."""
        if j < len(w) and w[j] == prefix and j + 1 < len(w) and w[j + 1] in nouns:
            return 2
        return 1 if j < len(w) and w[j] in nouns else 0

    def phrase(r: Reading, i: int) -> int:
        w = r.words
        j = i
        lead = w[j] in {"with", "plus", "add", "adding"}
        if lead:
            j += 1
        if j < len(w) and w[j] in {"my", "the"}:
            j += 1
        if j >= len(w):
            return 0
        n = number(w[j])
        if n is not None:
            size = noun_at(w, j + 1)
            if size:
                r.set(key, n, once=True)
                return j + 1 + size - i
            if lead and j == i + 1:
                r.set(key, n, once=True)  # "+2", "with 2": the noun is implied by the decision
                return 2
            return 0
        if w[j] in {"no", "without"}:
            size = noun_at(w, j + 1)
            if size:
                r.set(key, 0, once=True)
                return j + 1 + size - i
            return 0
        one = w[j] in {"a", "an"}
        k = j + 1 if one else j
        size = noun_at(w, k)
        if size and w[k + size - 1] in singular and (one or (w[j - 1] in {"my", "the"} and j > i)):
            r.set(key, 1, once=True)  # "a squire", "my marker", "with a voting marker"
            return k + size - i
        return 0

    return phrase


def county(key: str, *, any_letter: bool = False) -> Phrase:
    """A county: ``to D``, ``county d``, ``Gloucester``, ``in A``, ``b``. "a" and "i" are
    English words too: alone they name a county only after a number (``1 a``) or where
    nothing else can be meant (``any_letter``)."""

    def phrase(r: Reading, i: int) -> int:
        w = r.words
        j = i
        if w[j] in PREPOSITIONS:
            j += 1
            if j < len(w) and w[j] == "the":
                j += 1
        if j < len(w) and w[j] == "county":
            j += 1
        if j >= len(w):
            return 0
        if w[j] in COUNTY_NAMES:
            r.set(key, COUNTY_NAMES[w[j]])
            return j + 1 - i
        if w[j] in COUNTY_WORDS:
            context = j > i or any_letter or (i > 0 and number(w[i - 1]) is not None)
            if w[j] in {"a", "i"} and not context:
                return 0
            after = w[j + 1] if j + 1 < len(w) else ""
            if w[j] == "a" and j == i and after in {"squire", "squires", "knight"}:
                return 0  # "2 a squire", "1 a knight": the article
            r.set(key, w[j].upper())
            return j + 1 - i
        return 0

    return phrase


def knight_ref(prefix: str = "") -> list[Phrase]:
    """Phrases naming one knight by strength and place: ``knight 2 at court``, ``3 in D``,
    ``1 castle 4``, ``2 conflict 7`` (features ``strength`` and ``where``)."""

    def place(r: Reading, i: int) -> int:
        w = r.words
        j = i + 1 if w[i] in PREPOSITIONS else i
        if j >= len(w):
            return 0
        if w[j] == "court":
            r.set(prefix + "where", "court")
            return j + 1 - i
        for lead, kind in (("castle", "castle"), ("space", "castle"), ("conflict", "conflict")):
            if w[j] == lead and j + 1 < len(w) and number(w[j + 1]) is not None:
                r.set(prefix + "where", f"{kind} {number(w[j + 1])}")
                return j + 2 - i
        return 0

    def in_county(r: Reading, i: int) -> int:
        trial = Reading(r.words, {})
        n = county("c", any_letter=False)(trial, i)
        if n:
            r.set(prefix + "where", f"county {trial.features['c']}")
        return n

    return [
        numbered(prefix + "strength", "knight", "strength"),
        bare_number(prefix + "strength"),
        place,
        in_county,
        keyword("_", None, "knight"),
        # a piece taken instead of the upgrade: "bishop", "a bishop"
        *(
            phrase
            for piece in INSTEAD_OF_UPGRADE
            for phrase in (
                keyword(prefix + "where", piece, piece),
                keyphrase(prefix + "where", piece, word("a"), piece),
            )
        ),
        keyword("_", None, "instead"),
    ]


def match_ref(reading: Reading, refs: Sequence[Any], prefix: str = "") -> Any:
    """The one knight among ``refs`` (strength, where) that the reading names; None when it
    names none; Unreadable when it could be several."""
    strength = reading.get(prefix + "strength")
    where = reading.get(prefix + "where")
    if where in INSTEAD_OF_UPGRADE:
        if strength is not None:
            raise Unreadable(f"say either a knight or a {where}, not both")
        if where not in refs:
            raise Unreadable(f"no {where} can be taken now")
        return where
    if strength is None and where is None:
        return None
    found = [
        ref
        for ref in refs
        if isinstance(ref, tuple)
        and (strength is None or ref[0] == strength)
        and (where is None or ref[1] == where)
    ]
    if len(found) == 1:
        return found[0]
    if not found:
        raise Unreadable("it names no knight that can be chosen now")
    raise Unreadable("it could mean several knights: say the knight's strength and place")
