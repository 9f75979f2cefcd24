"""Lancaster's drawn board: the seat's view laid out as SVG parts (England's nine counties in
their real places, France's conflict rows, the king's favor, Parliament, Henry V's King's
Court, tower and dishonor track, each player's castle, court and reserve) and the spots of it
where the seat can act (``targets``), for ``games/_lancaster_board.html``.

Drawn from the view only: a value the view hides (another player's gold or squires, a secret
vote) is ``None`` there and drawn as "?". No publisher's art: shapes and words of our own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.core.protocol import ChoiceGroup
from web.games.lancaster_board.targets import OTHER, Target, law_frame, targets

__all__ = ["OTHER", "Target", "board", "wrap"]

#: Each county's centre on the schematic map of England (SVG units, 400 wide, north up), by
#: letter (rules: Lancaster data, counties A–I): Northumberland at the top, York to its
#: south-east, Stafford in the Midlands, Gloucester, Bedford and Suffolk across the middle
#: from west to east, Somerset in the south-west, Surrey in the south-east, Dorset on the
#: south coast. By letter, since a game's data may rename a county.
COUNTY_AT = {
    "A": (210, 48),
    "C": (290, 136),
    "B": (150, 218),
    "D": (72, 306),
    "E": (200, 306),
    "F": (328, 306),
    "G": (72, 394),
    "I": (326, 394),
    "H": (200, 470),
}
COUNTY_W, COUNTY_H = 122, 80
MAP_H = 520
#: A rough outline of England and Wales behind the counties: a schematic, not a map.
ENGLAND = (
    "M140,2 L282,2 L300,60 L362,92 L362,180 L396,260 L396,352 L392,440 L300,446 "
    "L268,516 L132,516 L40,446 L2,440 L2,262 L60,250 L74,172 L132,166 L140,92 Z"
)


def wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken between words."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return lines


@dataclass
class Card:
    """A conflict card laid out in its row."""

    x: float
    y: float
    w: float
    card: Mapping[str, Any] | None


def _rows(view: Mapping[str, Any]) -> list[tuple[str, list[Card]]]:
    rows = []
    y = 28.0
    for name in ("upper", "lower"):
        cards = view["conflicts"][name]
        n = max(1, len(cards))
        w = (396 - 4 * (n - 1)) / n
        rows.append((name, [Card(2 + i * (w + 4), y, w, c) for i, c in enumerate(cards)]))
        y += 150
    return rows


def spot_title(key: str, view: Mapping[str, Any]) -> str:
    """What a spot's panel is headed: the place in the board's words."""
    kind, _, rest = key.partition(" ")
    if kind == "county":
        c = next((c for c in view["counties"] if c["letter"] == rest), None)
        return f"{c['name']} ({rest})" if c else key
    if kind == "castle":
        return f"Your castle space {rest}"
    if kind == "ally":
        return f"Your ally's {rest.replace('castle', 'castle space')}"
    if kind == "conflict":
        return f"Conflict {rest} with France"
    if kind == "office":
        o = next(
            (o for o in (view.get("court") or {}).get("offices", []) if o["office"] == rest), None
        )
        return f"The office of {o['title']}" if o else key
    if kind == "favor":
        return f"King's favor, tile {rest}"
    if kind == "law":
        law = next((law for law in view["laws"]["current"] if law["key"] == rest), None)
        return f"Law in force: {law['title']}" if law else key
    return {
        "vote": "Parliament: your vote",
        "france": "France: ransom",
        "treasury": "The King's treasury",
        "tower": "The tower",
        "court": "Your court",
        OTHER: "Other choices",
    }.get(key, key)


def board(view: Mapping[str, Any], groups: list[ChoiceGroup]) -> dict[str, Any]:
    """What ``games/_lancaster_board.html`` draws, and the spots the seat may click."""
    seat = view.get("you")
    spots = targets(groups, law_frame(view, groups))
    counties = [
        {
            **c,
            "x": COUNTY_AT.get(c["letter"], (200, 260))[0],
            "y": COUNTY_AT.get(c["letter"], (200, 260))[1],
        }
        for c in view["counties"]
    ]
    titles = {key: spot_title(key, view) for key in spots}
    voting = next(
        (i for i, law in enumerate(view["laws"]["new"]) if law.get("status") == "voting"), None
    )
    # the seat's own colour first, then the others in seat order; the allies after their
    # player (the 2-player game)
    players = sorted(view["players"], key=lambda p: (p["seat"] != seat, p["seat"]))
    return {
        "lb": {
            "seat": seat,
            "spots": spots,
            "titles": titles,
            "other": spots.get(OTHER),
            "counties": counties,
            "map_h": MAP_H,
            "county_w": COUNTY_W,
            "county_h": COUNTY_H,
            "england": ENGLAND,
            "rows": _rows(view),
            "voting": voting,
            "players": players,
            "allies": view.get("allies") or [],
        }
    }
