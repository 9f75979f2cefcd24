"""The rematch events as the log reads them (``pbem.play.views.event_text`` asks here)."""

from __future__ import annotations

from typing import Any

from pbem.core.naming import Names
from pbem.rematch import events as re


def seating_words(seating: str) -> str:
    return "same seats" if seating == re.SAME else "seats rotated by one"


def event_text(kind: str, d: dict[str, Any], names: Names | None) -> str | None:
    """One rematch event in people's words; None for another kind."""

    def who(seat: int) -> str:
        return names.of(seat) if names is not None else f"seat {seat}"

    if kind == re.REMATCH_PROPOSED:
        return f"{who(d['seat'])} proposes a rematch ({seating_words(d['seating'])})"
    if kind == re.REMATCH_AGREED:
        return f"{who(d['seat'])} agrees to the rematch"
    if kind == re.REMATCH_DECLINED:
        return f"{who(d['seat'])} declines the rematch"
    if kind == re.REMATCH_STARTED:
        return f"the rematch started: game {d['game_id']}"
    if kind == re.REMATCH_OF:
        return f"a rematch of game {d['game_id']} ({seating_words(d['seating'])})"
    return None
