"""How a player is named to people: the player's name with the label the game's board gives
the seat — "Ann (Red)" in Lancaster, the colour of Lancelot's board — in every mail, page,
log line, board text and result. Never a bare seat number.

The labels come from the engine, never from the state: each entry of the public view's
``players`` may carry ``label`` (or ``colour``, or ``symbol``); Lancaster's 2-player game
adds ``allies`` (``colour`` and ``of``: the seat that plays it), named "Yellow (Ann's ally)".
A game whose view gives no label names its seats by the players' names alone.

The engine's own lines (log, prompts, the text board) name seats by label, as a whole word:
``Names.text`` rewrites them for people in one pass (so a name that is itself a colour is
never rewritten twice). Decision (issue silent): lines that show what can be typed are left
as the engine wrote them, since a command names a colour, not a person ("noble start player
Yellow" must stay typable).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: The lines of a text board that list commands (kept as the engine wrote them).
_COMMAND_LINE = re.compile(r"^\s*(You can type|You can play|Type )", re.IGNORECASE)
#: "seat 2" / "Seat 2" in a line of a game whose view gives no labels (or in older logs).
_SEAT_NUMBER = r"[Ss]eat (\d+)"


def _label_of(entry: Mapping[str, Any]) -> str | None:
    for key in ("label", "colour", "symbol"):
        value = entry.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


@dataclass(frozen=True)
class Names:
    """The names of a game's seats, for people."""

    #: each seat's player, by seat
    people: tuple[str, ...]
    #: each seat's label on the board (a colour), or None when the game gives none
    labels: tuple[str | None, ...] = ()
    #: (label, seat that plays it) of colours played as allies (Lancaster, 2 players)
    allies: tuple[tuple[str, int], ...] = ()

    @classmethod
    def from_view(cls, view: Mapping[str, Any] | None, people: Sequence[str]) -> Names:
        """The names from a view (any seat's or the public one: labels are public)."""
        labels: list[str | None] = [None] * len(people)
        allies: list[tuple[str, int]] = []
        if view is not None:
            players = view.get("players")
            if isinstance(players, list):
                for i, entry in enumerate(players):
                    if isinstance(entry, Mapping):
                        seat = entry.get("seat", i)
                        if isinstance(seat, int) and 0 <= seat < len(people):
                            labels[seat] = _label_of(entry)
            for entry in view.get("allies") or ():
                if isinstance(entry, Mapping):
                    label, owner = _label_of(entry), entry.get("of")
                    if label and isinstance(owner, int) and 0 <= owner < len(people):
                        allies.append((label, owner))
        return cls(tuple(people), tuple(labels), tuple(allies))

    # -- one seat ---------------------------------------------------------------------------

    def label(self, seat: int) -> str | None:
        return self.labels[seat] if 0 <= seat < len(self.labels) else None

    def of(self, seat: int) -> str:
        """ "Ann (Red)"; "Ann" when the game gives the seat no label."""
        if not 0 <= seat < len(self.people):
            return f"seat {seat}"  # not a seat of this game: nobody to name
        label = self.label(seat)
        return f"{self.people[seat]} ({label})" if label else self.people[seat]

    def ally(self, label: str, owner: int) -> str:
        """ "Yellow (Ann's ally)"."""
        return f"{label} ({self.people[owner]}'s ally)"

    def many(self, seats: Iterable[int], empty: str = "no one") -> str:
        """ "Ann (Red), Bob (Blue) and Cat (Yellow)"."""
        named = [self.of(s) for s in sorted(seats)]
        if not named:
            return empty
        if len(named) == 1:
            return named[0]
        return ", ".join(named[:-1]) + " and " + named[-1]

    # -- the engine's lines -----------------------------------------------------------------

    def text(self, text: str) -> str:
        """An engine's line (or lines) with each seat's label replaced by its player's
        name and label; lines listing commands are left as they are."""
        found = _patterns_of(self)
        pattern, replacements, needles = found.pattern, found.replacements, found.needles

        def named(match: re.Match[str]) -> str:
            number = match.group(1)  # the only group: a "seat N" of the fallback
            if number is not None:
                seat = int(number)
                return self.of(seat) if seat < len(self.people) else match.group(0)
            return replacements.get(match.group(0), match.group(0))

        if not needles.search(text):
            return text
        return "\n".join(
            pattern.sub(named, line)
            if needles.search(line) and not _COMMAND_LINE.match(line)
            else line
            for line in text.split("\n")
        )

    def lines(self, lines: Iterable[str]) -> list[str]:
        return [self.text(line) for line in lines]


@dataclass(frozen=True)
class _Patterns:
    """What ``Names.text`` searches for, and what each form found becomes."""

    pattern: re.Pattern[str]
    replacements: dict[str, str]
    #: the pattern's words as plain text: a far cheaper scan than the pattern's, which
    #: picks out the few lines that name anybody
    needles: re.Pattern[str]


@functools.lru_cache(maxsize=512)
def _patterns_of(names: Names) -> _Patterns:
    """Built once for a game's names (every mail of every move names its players again)."""
    replacements: dict[str, str] = {}
    for label, owner in names.allies:
        owner_label = names.label(owner)
        if owner_label:
            replacements[f"{label} ({owner_label}'s ally)"] = names.ally(label, owner)
        replacements[label] = names.ally(label, owner)
    for seat, own in enumerate(names.labels):
        if own:
            replacements[f"{own} (you)"] = f"{names.people[seat]} ({own}, you)"
            replacements[own] = names.of(seat)
    # A text already naming people (a message of the service, "waiting for Ann (Red)")
    # stays as it is: each named form maps to itself, and being longer it wins.
    for named in list(replacements.values()):
        replacements[named] = named
    # Longest first, so that "Yellow (Red's ally)" wins over "Yellow" and "Red". The word
    # boundaries are checked once around the words (the regex backtracks into the next word
    # when one fails them): a boundary check before each word cost a check for every word
    # at every place in the text.
    keys = [re.escape(k) for k in sorted(replacements, key=len, reverse=True)]
    words = rf"(?<![\w])(?:{'|'.join(keys)})(?![\w])|" if keys else ""
    pattern = re.compile(rf"{words}\b{_SEAT_NUMBER}\b")
    needles = re.compile("|".join([*keys, "eat "]))
    return _Patterns(pattern, replacements, needles)


def names_for(rules: Any, state: Any, people: Sequence[str]) -> Names:
    """The seats' names in a game (``rules.view(state, None)`` gives the labels)."""
    return Names.from_view(rules.view(state, None), people)
