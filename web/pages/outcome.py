"""A finished game's result as its page shows it: the line that says who won, worded for the
viewer ("You won", "You shared the win with …", "Ann (Red) won"), and the final scores with
the engine's breakdown of each (``Outcome.breakdown``: Lancaster's knighthood, castle and
extensions, noblemen, Henry V's seals and dishonor; Lancelot's captures …).

The breakdown's parts are the engine's keys, in the engine's order; the page names the ones
it knows and words any other from its key, so a new scoring term shows without a change here.
Only figures (whole numbers) are columns: a part that is a table or a word of its own (a
Lancelot breakdown's captures by opponent, how the game ended) is left to the board.
"""

from __future__ import annotations

from typing import Any

from pbem.core.naming import Names

#: The parts of a breakdown as players read them (rulebook words), by the engine's key.
PART_NAMES = {
    "during_game": "During the game",
    "knighthood": "Knighthood",
    "castle": "Castle",
    "extensions": "Castle extensions",
    "noblemen": "Noblemen",
    "noblemen_count": "Noblemen held",
    "seals": "Seals",
    "dishonor": "Dishonor",
    "captures": "Captures",
    "lost": "Knights lost",
    "in_hand": "In hand",
    "on_board": "On the board",
    "total": "Total",
}


#: The parts of a breakdown that are points (rulebook scoring terms, Lancaster's final scoring
#: and Henry V's): when they add up to each player's total, the table shows them first, and the
#: rest (counts they were worked out from: knights' strength, seals held …) below as details.
POINT_PARTS = ("during_game", "knighthood", "castle", "noblemen", "seals", "dishonor")


def part_name(key: str) -> str:
    return PART_NAMES.get(key, key.replace("_", " ").capitalize())


def winner_line(winners: list[int], seat: int | None, names: Names) -> str:
    """Who won, for the viewer: its own seat is "you"."""
    if not winners:
        return "Nobody won: the game ended before its final scoring."
    if seat in winners:
        others = [w for w in winners if w != seat]
        if not others:
            return "You won."
        return f"You shared the win with {names.many(others)}."
    if len(winners) == 1:
        return f"{names.of(winners[0])} won."
    return f"{names.many(winners)} shared the win."


def the_end(outcome: dict[str, Any], seat: int | None, names: Names) -> dict[str, Any]:
    """The result for ``seat`` (None: a spectator): the winner line, and the score table's
    columns (the breakdown's figures, the total last) and rows (one a player)."""
    winners = [int(w) for w in outcome.get("winners") or []]
    scores = list(outcome.get("scores") or [])
    breakdown = list(outcome.get("breakdown") or [])
    keys: list[str] = []
    for part in breakdown:
        for key, value in part.items():
            figure = isinstance(value, int) and not isinstance(value, bool)
            if figure and key not in keys and key != "total":
                keys.append(key)
    points = [k for k in POINT_PARTS if k in keys]  # in the order the rulebook scores them
    if points and all(
        sum(part.get(k) or 0 for k in points) == part.get("total") for part in breakdown
    ):
        keys = points + [k for k in keys if k not in points]
    else:  # not a breakdown into those points: every figure alike, in the engine's order
        points = []
    rows = []
    for s, score in enumerate(scores):
        part = breakdown[s] if s < len(breakdown) else {}
        rows.append(
            {
                "seat": s,
                "name": names.of(s),
                "parts": [part.get(k) for k in keys],
                "score": score,
                "won": s in winners,
                "you": s == seat,
            }
        )
    return {
        "headline": winner_line(winners, seat, names),
        "columns": [part_name(k) for k in keys],
        #: how many of the columns are points adding up to the score (0: not known)
        "points": len(points),
        "rows": rows,
        "resigned": names.many(outcome["resigned"]) if outcome.get("resigned") else None,
    }
