"""Henry V's phrases for a placement turn: the lord (``lord to chancellor with knight 2 and
a bishop``, ``lord to treasury gold``) and a privilege with a knight (``with the archer``,
``tudor with knight 2 to B``). Read like every reply (``reading.py``): every word accounted
for, nothing guessed. Their canonical texts, and Laws of the King's ``dispose 2 seals``, are
written here too (``notation.FORMATTERS``)."""

from __future__ import annotations

from engine.core.protocol import Action
from engine.lancaster.parsing import PLACING_VERBS
from engine.lancaster.pieces import plural
from engine.lancaster.reading import (
    PREPOSITIONS,
    Phrase,
    Reading,
    Unreadable,
    counted,
    keyphrase,
    keyword,
    number,
    read,
    word,
)
from engine.lancaster.state import State


def privilege(r: Reading, i: int) -> int:
    """At the King's Court: ``with shield``, ``with the archer``, ``tudor knight``, and the
    ``with`` of ``tudor with knight 2 to B``."""
    w = r.words
    j = i
    if w[j] == "with":
        j += 1
        if j < len(w) and w[j] in ("knight", "my"):
            return 1  # "tudor with knight 2": the knight's own phrase follows
    if j < len(w) and w[j] in ("the", "a", "my"):
        j += 1
    if j >= len(w) or w[j] not in ("shield", "archer", "tudor"):
        return 0
    r.set("privilege", w[j])
    j += 1
    if (
        w[j - 1] == "tudor"
        and j < len(w)
        and w[j] == "knight"
        and (j + 1 >= len(w) or number(w[j + 1]) is None)
    ):
        j += 1  # "the Tudor knight" (not "tudor knight 2", the knight it goes with)
    return j - i


def _knights_named(r: Reading, i: int) -> int:
    """``knight 2`` or ``knights 1 2`` (``and`` between): knights supporting a lord."""
    w = r.words
    if w[i] not in ("knight", "knights"):
        return 0
    j = i + 1
    found: list[int] = []
    if w[i] == "knight":
        n = number(w[j]) if j < len(w) else None
        if n is None:
            return 0
        r.features["knights"] = (*r.features.get("knights", ()), n)
        return 2
    while j < len(w):
        n = number(w[j])
        if n is not None and j + 1 < len(w) and w[j + 1] in ("bishop", "bishops"):
            break  # "knights 1 and 2, 2 bishops": the amount of bishops
        if n is not None:
            found.append(n)
            j += 1
        elif (
            w[j] == "and"
            and found
            and j + 1 < len(w)
            and number(w[j + 1]) is not None
            and (j + 2 >= len(w) or w[j + 2] not in ("bishop", "bishops"))
        ):
            j += 1
        else:
            break
    if not found:
        return 0
    r.features["knights"] = (*r.features.get("knights", ()), *found)
    return j - i


_TREASURY_WORDS: list[tuple[tuple[str, ...], str]] = [
    (("voting", "markers"), "voting_markers"),
    (("voting", "marker"), "voting_markers"),
    (("markers",), "voting_markers"),
    (("squires",), "squires"),
    (("gold",), "gold"),
]


def parse_lord(state: State, seat: int, w: list[str]) -> Action:
    """At the King's Court: ``lord to chancellor with knight 2 and a bishop``, ``lord to
    treasury gold``, ``ally lord to constable``."""
    phrases: list[Phrase] = [
        keyword("ally", True, "ally", "allied"),
        keyword("_", None, "lord", "high", "great", "with", "apply", "applies", "enter"),
        keyword("_", None, "enters", "supported", "by", "support", *PREPOSITIONS),
        # the verbs of every placement ("my lord goes to the treasury", "send my lord to …")
        keyword("_", None, *PLACING_VERBS),
        keyword("office", "treasury", "treasury"),
        *(keyword("office", o.key, o.key) for o in state.data.offices),
        *(keyphrase("claim", kind, *form) for form, kind in _TREASURY_WORDS),
        counted("bishops", word("bishop"), word("bishops")),
        keyword("bishops", 1, "bishop"),
        _knights_named,
        keyword("tudor", True, "tudor"),
    ]
    r = read(w, phrases)
    ally = bool(r.get("ally", False))
    where = r.get("office")
    if where is None:
        raise Unreadable("say where the lord goes: an office or the treasury")
    if where == "treasury":
        if r.has("knights") or r.has("bishops"):
            raise Unreadable("a lord in the treasury needs no support")
        if not r.has("claim"):
            raise Unreadable("say what the lord claims: gold, squires or voting markers")
        return ("lord", ally, "treasury", r.get("claim"))
    if r.has("claim"):
        raise Unreadable("only a lord in the treasury claims anything")
    knights = tuple(sorted(r.get("knights", ())))
    tudor = (True,) if r.get("tudor") else ()
    return ("lord", ally, where, knights, r.get("bishops", 0), *tudor)


# -- canonical texts ---------------------------------------------------------------------------


def format_lord(state: State, action: Action) -> str:
    """``lord to treasury gold``, ``lord to chancellor with knight 2 and 1 bishop``, ``ally
    lord to constable``."""
    who = "ally lord" if action[1] else "lord"
    if action[2] == "treasury":
        return f"{who} to treasury {str(action[3]).replace('_', ' ')}"
    support = [f"knight {k}" for k in action[3]]
    if action[4]:
        support.append(plural(int(action[4]), "bishop"))
    if len(action) > 5 and action[5]:
        support.append("tudor")
    backed = f" with {' and '.join(support)}" if support else ""
    return f"{who} to {action[2]}{backed}"


def format_privilege(state: State, action: Action) -> str:
    """``knight 2 to B with 1 squire and shield``."""
    from engine.lancaster.targets import TARGETS

    _, privilege, ally, strength, target, squires = action
    who = "ally knight" if ally else "knight"
    parts = [plural(squires, "squire")] if squires else []
    parts.append(str(privilege))
    where = TARGETS[target[0]].words(target[1])
    return f"{who} {strength} to {where} with {' and '.join(parts)}"


def format_seals(state: State, action: Action) -> str:
    """Laws of the King: ``dispose 2 seals``."""
    return f"dispose {plural(action[1], 'seal')}"


#: Laws of the King: the seals disposed of, "dispose 2 regal seals"
SEALS = counted("n", word("seal"), word("seals"), prefix="regal")
