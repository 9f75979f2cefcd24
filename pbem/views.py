"""What a person may see: every response is built here from ``rules.view(state, seat)``.

Nothing in this module reads the state directly; it reads views, and the log filtered for
the viewer: a secret action of another seat shows only as "seat N acted" until the next
irreversible step (a reveal) or the end of the game; emails and message references are shown
only to their owner.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pbem import events as ev
from pbem.store import StoredEvent

if TYPE_CHECKING:
    from pbem.games import Loaded


def describe(loaded: Loaded, seat: int | None) -> dict[str, Any]:
    """The game as ``seat`` may see it (None: a spectator), at the loaded version."""
    view = loaded.rules.view(loaded.state, seat)
    return {
        "id": loaded.game_id,
        "game": loaded.game,
        "version": loaded.version,
        "head_hash": loaded.head_hash,
        "latest": loaded.at_head,
        "seat": seat,
        "players": [{"seat": s.seat, "name": s.name, "resigned": s.resigned} for s in loaded.seats],
        "to_act": sorted(loaded.to_act),
        "view": view,
        "legal": loaded.legal(seat) if seat is not None else [],
        "finished": loaded.finished,
        "outcome": loaded.outcome,
    }


def _revealed_after(events: Sequence[StoredEvent]) -> dict[int, bool]:
    """For each ActionApplied version: has a later, effective irreversible step happened?"""
    retracted: set[int] = set()
    for e in events:
        if e.type == ev.ACTIONS_RETRACTED:
            retracted.update(e.data["versions"])
    revealed: dict[int, bool] = {}
    seen_reveal = False
    for e in reversed(events):
        if e.type == ev.GAME_FINISHED:
            seen_reveal = True
        if e.type == ev.ACTION_APPLIED:
            # A retracted secret stays secret: it never took effect, nothing revealed it.
            revealed[e.version] = seen_reveal and (
                e.version not in retracted or events[-1].type == ev.GAME_FINISHED
            )
            if e.data["irreversible"] and e.version not in retracted:
                seen_reveal = True
    return revealed


def visible_events(
    events: Sequence[StoredEvent], viewer: int | None, after: int = 0, *, everything: bool = False
) -> list[dict[str, Any]]:
    """The log as ``viewer`` (a seat, or None for a spectator) may see it; ``everything``
    for operators (the CLI's ``log --full``): nothing hidden."""
    revealed = _revealed_after(events)
    out = []
    for e in events:
        if e.version <= after:
            continue
        out.append(
            {
                "version": e.version,
                "type": e.type,
                "recorded_at": e.recorded_at,
                "prev_hash": e.prev_hash,
                "hash": e.hash,
                "data": dict(e.data) if everything else _visible_data(e, viewer, revealed),
            }
        )
    return out


def _visible_data(e: StoredEvent, viewer: int | None, revealed: dict[int, bool]) -> dict[str, Any]:
    data = dict(e.data)
    own = viewer is not None and data.get("seat") == viewer
    # A consented retraction names the requester as its seat, but it arrived with the last
    # acceptance: its reference (that seat's Message-ID) is on the UndoDecided event, for
    # that seat only.
    consented = e.type == ev.ACTIONS_RETRACTED and data.get("request") is not None
    if "channel_ref" in data and (not own or consented):
        data["channel_ref"] = None
    if e.type == ev.GAME_CREATED:
        data["seats"] = [
            {**s, "email": s["email"] if s["seat"] == viewer else None} for s in data["seats"]
        ]
    elif e.type == ev.ACTION_APPLIED:
        if data["secret"] and not own and not revealed.get(e.version, False):
            return {
                "seat": data["seat"],
                "hidden": True,
                "summary": f"seat {data['seat']} acted",
                "channel": data["channel"],
                "received_at": data["received_at"],
            }
        if not own:
            # The text as typed (perhaps a whole email line) is the sender's; others get the
            # canonical text.
            data["text"] = data["canonical"]
    return data


def summary_line(e: dict[str, Any]) -> str:
    """One line of a visible event, for the CLI and plain-text mails."""
    d = e["data"]
    kind = e["type"]
    if kind == ev.ACTION_APPLIED:
        if d.get("hidden"):
            text = d["summary"]
        else:
            text = f"seat {d['seat']}: {d['canonical']}"
            if d["log"]:
                text += " — " + " ".join(d["log"])
        return f"{e['version']:>5}  {text}  [{d['channel']}]"
    if kind == ev.GAME_CREATED:
        names = ", ".join(f"{s['seat']}: {s['name']}" for s in d["seats"])
        return f"{e['version']:>5}  created {d['game']} (rules {d['rules_version']}) — {names}"
    if kind == ev.GAME_STARTED:
        return f"{e['version']:>5}  started; to act: {d['to_act']}"
    if kind == ev.UNDO_REQUESTED:
        return f"{e['version']:>5}  seat {d['seat']} asks to go back to version {d['to_version']}"
    if kind == ev.UNDO_DECIDED:
        verdict = "accepts" if d["accept"] else "declines"
        return f"{e['version']:>5}  seat {d['seat']} {verdict} undo request {d['request']}"
    if kind == ev.ACTIONS_RETRACTED:
        return f"{e['version']:>5}  back to version {d['to_version']} (retracted {d['versions']})"
    if kind == ev.PLAYER_RESIGNED:
        return f"{e['version']:>5}  seat {d['seat']} resigned"
    if kind == ev.GAME_FINISHED:
        return f"{e['version']:>5}  finished ({d['reason']}): winners {d['outcome'].get('winners')}"
    return f"{e['version']:>5}  {kind}"
