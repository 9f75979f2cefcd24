"""Who played each seat over which versions: the players a game's creation names, and each
hand-over to a substitute (``SeatHandedOver``, ``pbem.handover``) since. Read from events as
JSON (a bundle's, or the log as a viewer may see it), with the standard library alone, so
that the offline verifier (``pbem.audit.verify``) checks a bundle's ``players`` against its
own events."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

GAME_CREATED = "GameCreated"
SEAT_HANDED_OVER = "SeatHandedOver"


def players_of(events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each seat's players in order: ``{"seat", "name", "from_version", "to_version"}``, the
    versions they played (``to_version`` None: plays it still). Empty when the first event is
    not a creation naming its seats."""
    if not events or events[0].get("type") != GAME_CREATED:
        return []
    created = events[0].get("data")
    seats = created.get("seats") if isinstance(created, Mapping) else None
    if not isinstance(seats, list):
        return []
    tenures: dict[int, list[dict[str, Any]]] = {}
    for entry in seats:
        if isinstance(entry, Mapping) and isinstance(entry.get("seat"), int):
            tenures[entry["seat"]] = [_tenure(entry["seat"], entry.get("name"), 1)]
    for e in events:
        data = e.get("data")
        if e.get("type") != SEAT_HANDED_OVER or not isinstance(data, Mapping):
            continue
        seat, start = data.get("seat"), data.get("from_version")
        if seat not in tenures or not isinstance(start, int):
            continue
        tenures[seat][-1]["to_version"] = start - 1
        tenures[seat].append(_tenure(seat, data.get("new_name"), start))
    return [t for seat in sorted(tenures) for t in tenures[seat]]


def _tenure(seat: int, name: Any, start: int) -> dict[str, Any]:
    return {"seat": seat, "name": str(name), "from_version": start, "to_version": None}


def tenure_text(tenure: Mapping[str, Any]) -> str:
    """ "Cat (versions 1 to 40)", "Dan (from version 41)"."""
    if tenure["to_version"] is None:
        return f"{tenure['name']} (from version {tenure['from_version']})"
    return f"{tenure['name']} (versions {tenure['from_version']} to {tenure['to_version']})"
