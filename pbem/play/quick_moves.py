"""The most useful moves of a seat's decision, one click away in its turn mail.

A mail offers at most ``MAX_QUICK`` of them as ready replies (``pbem.mail.outbound.quick_links``
makes the ``mailto:`` links); the rest stay a reply or a page away ("show all moves"). How
to choose them is each game's own (``CHOOSERS``, keyed by the rules' name); a game without a
chooser of its own gets one option per kind of choice (``one_per_kind``).

Every chooser reads the engine's ``choices`` and, where it ranks, views after ``apply`` (what
the seat itself would see), never hidden state: what it picks says nothing a seat may not know.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.core.protocol import (
    ChoiceGroup,
    ChoiceOption,
    Choices,
    IllegalActionError,
    choices_of,
)
from engine.lancelot.choices import PLACE as _PLACE

#: At most this many moves one click away per mail (the issue's "at most ~8").
MAX_QUICK = 8


@dataclass(frozen=True)
class QuickMove:
    """One move offered as a ready reply: ``label`` says what it does in the board's words,
    ``text`` is its canonical notation (``format_action``), the body of the reply."""

    label: str
    text: str


Chooser = Callable[[Any, Any, int, Choices], list[QuickMove]]


def quick_moves(rules: Any, state: Any, seat: int) -> list[QuickMove]:
    """``seat``'s most useful moves now (none when it has nothing to decide)."""
    choices = choices_of(rules, state, seat)
    if not choices.size():
        return []
    chooser = CHOOSERS.get(rules.name, one_per_kind)
    return chooser(rules, state, seat, choices)[:MAX_QUICK]


def _kind(top: ChoiceGroup, option: ChoiceOption) -> tuple[str, str]:
    """The kind of choice an option is: its top group (place a knight, send your lord, vote
    …) and the kind of place it is made at ("castle", "county", "office" …; for a choice made
    nowhere, its notation without a trailing number: "vote yes", "vote no")."""
    if option.place:
        return top.label, option.place.split()[0]
    return top.label, _TRAILING_NUMBER.sub("", option.text)


_TRAILING_NUMBER = re.compile(r"\s*\d+$")


def one_per_kind(rules: Any, state: Any, seat: int, choices: Choices) -> list[QuickMove]:
    """One option of each kind of choice (``_kind``: a knight to a castle space, to a county,
    to a conflict; the lord to an office, to the treasury; vote yes, vote no …), the first
    the engine lists; then, while there is room, one more of each kind in turn, each at a
    place not offered yet: every kind is one click away before any kind gets a second."""
    buckets: dict[tuple[str, str], list[ChoiceOption]] = {}
    seen_places: set[tuple[str, str | None, str]] = set()
    for top in choices.groups:
        for option in top.all_options():
            kind = _kind(top, option)
            # one option per place of a kind (York with or without squires: York once)
            where = (top.label, option.place, option.text if option.place is None else "")
            if where in seen_places:
                continue
            seen_places.add(where)
            buckets.setdefault(kind, []).append(option)
    picked: list[QuickMove] = []
    for depth in range(max((len(b) for b in buckets.values()), default=0)):
        for options in buckets.values():
            if depth < len(options) and len(picked) < MAX_QUICK:
                picked.append(QuickMove(options[depth].label, options[depth].text))
    return picked


def lancelot_by_knights_won(rules: Any, state: Any, seat: int, choices: Choices) -> list[QuickMove]:
    """Lancelot: the placements that win the most knights first (each applied, the captures
    read from the seat's own view after it: Lancelot hides nothing, rules/lancelot.md); among
    equals, those that threaten most (lines left at +1 with other knights on them: one more
    knight there captures them, rules/lancelot.md "Capture"), then the squares nearest the
    centre of the area (as the deadline default prefers them), then the engine's order. A
    decision with no placement (Excalibur's opening square, a pass) goes as ``one_per_kind``.
    The force of the King (thousands of square pairs) is left to the page and to typing: it
    is not a move to offer blind."""
    places = [g for g in choices.groups if g.label == _PLACE]
    if not places:
        return one_per_kind(rules, state, seat, choices)
    before = rules.view(state, seat)["captures"][seat]
    ranked: list[tuple[int, int, int, int, QuickMove]] = []
    for index, option in enumerate(places[0].all_options()):
        try:
            after = rules.apply(state, seat, option.action).state
        except IllegalActionError:  # not expected: every option is legal
            continue
        view = rules.view(after, seat)
        won = view["captures"][seat] - before
        threats = _threats(view, seat, option.text.upper())
        label = option.label + (f" (wins {won} knight{'s' if won != 1 else ''})" if won else "")
        if threats and not won:
            label += f" (threatens {threats} line{'s' if threats != 1 else ''})"
        centre = _centre_distance(view, option.text.upper())
        ranked.append((-won, -threats, centre, index, QuickMove(label, option.text)))
    ranked.sort(key=lambda entry: entry[:4])
    return [entry[4] for entry in ranked[:MAX_QUICK]]


def _square(name: str) -> tuple[str, int]:
    return name[0], int(name[1:])


def _centre_distance(view: dict[str, Any], square: str) -> int:
    """Twice the Manhattan distance of ``square`` from the area's centre (kept whole)."""
    columns, rows = view["area"]["columns"], view["area"]["rows"]
    column, row = _square(square)
    size = len(columns)
    x: int = columns.index(column)
    y: int = rows.index(row)
    return abs(2 * x - (size - 1)) + abs(2 * y - (size - 1))


def _threats(view: dict[str, Any], seat: int, square: str) -> int:
    """The lines through ``square`` where ``seat``'s advantage is +1 with other knights on
    them, in the view after placing there (Excalibur counts against the seat)."""
    columns, rows = view["area"]["columns"], view["area"]["rows"]
    column, row = _square(square)
    c, r = columns.index(column), rows.index(row)
    cells = {(columns.index(k[0]), rows.index(int(k[1:]))): v for k, v in view["board"].items()}
    size = len(columns)
    lines = [[(c, y) for y in range(size)], [(x, r) for x in range(size)]]
    if view["variants"].get("diagonals"):
        for step in (1, -1):
            line = [(x, r + step * (x - c)) for x in range(size) if 0 <= r + step * (x - c) < size]
            if len(line) >= 4:  # rules/lancelot.md, variant 1: diagonals of 4 or more
                lines.append(line)
    count = 0
    for line in lines:
        held = [cells[p] for p in line if p in cells]
        own = sum(1 for v in held if v == seat)
        others = len(held) - own
        if others and own - others == 1:
            count += 1
    return count


#: Each game's chooser, by the rules' name; a game missing here gets ``one_per_kind``.
CHOOSERS: dict[str, Chooser] = {
    "lancelot": lancelot_by_knights_won,
    "lancaster": one_per_kind,
}
