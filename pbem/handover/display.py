"""The hand-over events as people read them (the log on pages, in mails, the CLI), and as a
viewer may see them: a newcomer's address, and the old player's, are the operator's to see
(``everything``), never another seat's or the public's; the message an answer came by is
its author's."""

from __future__ import annotations

from typing import Any

from pbem.core.naming import Names
from pbem.handover import events as he


def visible_data(p: Any, data: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    """``data`` (the stored payload of a hand-over event) as ``viewer`` may see it."""
    if isinstance(p, he.SubstituteProposed):
        data["email"] = None
        author = p.by_seat
    elif isinstance(p, he.SeatHandedOver):
        data["old_email"] = None
        data["new_email"] = None
        author = None
    else:
        author = getattr(p, "seat", None)
    if viewer is None or author != viewer:
        data["channel_ref"] = None
    return data


def _seat(seat: int, names: Names | None) -> str:
    """The seat itself, apart from who plays it: its colour, or "seat 2"."""
    label = names.label(seat) if names is not None else None
    return label or f"seat {seat}"


def event_text(kind: str, d: dict[str, Any], names: Names | None) -> str | None:
    """One hand-over event for people; None for another kind."""

    def who(seat: int) -> str:
        return names.of(seat) if names is not None else f"seat {seat}"

    if kind == he.SUBSTITUTE_PROPOSED:
        seat = _seat(d["seat"], names)
        if d["by_seat"] is None:
            return f"the administrator hands {seat} to {d['name']}, a substitute, once they accept"
        return (
            f"{who(d['by_seat'])} proposes {d['name']} as a substitute for {seat} (proposal "
            f"for the other players to agree to)"
        )
    if kind == he.SUBSTITUTE_DECIDED:
        verdict = "agrees to" if d["agree"] else "refuses"
        return f"{who(d['seat'])} {verdict} the substitute proposed at version {d['proposal']}"
    if kind == he.SEAT_HANDED_OVER:
        by = "by the administrator" if d["by"] == "administrator" else "by the players' consent"
        return (
            f"{d['old_name']} handed {_seat(d['seat'], names)} over to {d['new_name']} ({by}): "
            f"{d['old_name']} played it until version {d['from_version'] - 1}, "
            f"{d['new_name']} plays it from version {d['from_version']}"
        )
    return None
