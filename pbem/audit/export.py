"""A game's bundle: its events exactly as stored, to be checked offline (``pbem.audit.verify``).

The full bundle (``pbem export GAME``) is the operator's: every event as stored. A seat's
bundle (``pbem export GAME --seat S``) is what that seat may see of the game: other seats'
secret actions that are not yet revealed are carried in their public form — the commitment
the chain hashes, without the vote, its text or its salt — so the chain still checks from
the first event to the last. A secret action recorded before commitments existed
(``ActionApplied`` schema version 1) is hashed with its vote, so it is left out whole
(``"data": null``) and its link is taken as recorded; so is another seat's standing order
(``StandingOrderSet``: the move it would have played for itself, which may name a vote).
Table talk the seat may not read (``pbem.talk.visibility``: a private message to others,
or a hiding of one) is left out the same way (``"data": null``, its link taken as
recorded): its text, its writer and its recipients are not in the bundle, and the chain
still checks; a message the administrator hid is left out of every seat's bundle, its
readers' too. The public bundle (a spectator's download from the game page) is the same
with no seat's secret: every unrevealed secret action in its public form, every standing
order and every message left out (table talk is among the players).

Events carry the payload as stored (its schema version, not upcast), so that every hash
recomputes from the bundle alone. The bundle is written as canonical JSON, like the events:
every byte of it is meaningful (``python -m json.tool`` shows it indented).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlmodel import col, select

from pbem.audit.players import players_of
from pbem.audit.verify import FORMAT
from pbem.clock import events as ce
from pbem.core import chain
from pbem.core import events as ev
from pbem.core.db import Database
from pbem.core.errors import BadRequest, GameNotFound
from pbem.core.models import Event
from pbem.core.store import stored_event
from pbem.play.views import revealed_after
from pbem.talk import events as talk_events
from pbem.talk.visibility import TalkLog, visible_data


def export_game(
    db: Database, game_id: str, seat: int | None = None, *, public: bool = False
) -> dict[str, Any]:
    """The bundle of ``game_id`` (everything, what ``seat`` may see, or with ``public``
    what anyone may)."""
    with db.read() as session:
        rows = list(
            session.exec(
                select(Event).where(Event.game_id == game_id).order_by(col(Event.version))
            ).all()
        )
    if not rows:
        raise GameNotFound(f"There is no game {game_id!r}.")
    return bundle_of(game_id, rows, seat, public=public)


def bundle_of(
    game_id: str,
    rows: Sequence[Event],
    seat: int | None,
    stored: Sequence[ev.StoredEvent] | None = None,
    *,
    public: bool = False,
) -> dict[str, Any]:
    """The bundle of a game whose log is ``rows`` (the export made when it was at the last);
    ``stored``: the same rows already decoded, if the caller has them; ``public``: no seat's
    (``seat`` None)."""
    if stored is None:
        stored = [stored_event(r) for r in rows]
    created = stored[0].payload
    if not isinstance(created, ev.GameCreated):
        raise BadRequest(f"Game {game_id}'s log does not begin with its creation.")
    seats = {s.seat for s in created.seats}
    if seat is not None and seat not in seats:
        raise BadRequest(f"Game {game_id} has seats {sorted(seats)}, not seat {seat}.")
    revealed = revealed_after(stored)
    finished = next((e for e in stored if isinstance(e.payload, ev.GameFinished)), None)
    if public and seat is not None:
        raise BadRequest("A bundle is a seat's or the public's, not both.")
    # whose view: a seat's, the public's (nobody's secrets), or everything
    partial = seat is not None or public
    talk_log = TalkLog(stored) if partial else None
    events = []
    for row, event in zip(rows, stored, strict=True):
        data: dict[str, Any] | None = json.loads(row.data)
        p = event.payload
        hidden = (
            partial
            and isinstance(p, ev.ActionApplied)
            and p.secret
            and p.seat != seat
            and not revealed.get(event.version, False)
        )
        if hidden and data is not None:
            committed = chain.is_committed(row.type, row.schema_version, data)
            data = chain.public_form(row.type, row.schema_version, data) if committed else None
        elif partial and isinstance(p, ce.StandingOrderSet) and p.seat != seat:
            # Another seat's standing order is its own (it may name a vote it will cast): left
            # out whole, its link taken as recorded. The rules' re-run never needs it.
            data = None
        elif (
            partial
            and row.type in talk_events.TALK_TYPES
            and talk_log is not None
            and (event.version in talk_log.hidden or visible_data(event, seat, talk_log) is None)
        ):
            # Table talk the seat may not read, or a message hidden since: left out whole,
            # its link taken as recorded (the rules' re-run never reads talk).
            data = None
        events.append(
            {
                "version": row.version,
                "type": row.type,
                "schema_version": row.schema_version,
                "data": data,
                "recorded_at": row.recorded_at,
                "prev_hash": row.prev_hash,
                "hash": row.hash,
            }
        )
    end = finished.payload if finished is not None else None
    seed = end.seed if isinstance(end, ev.GameFinished) else None
    return {
        "format": FORMAT,
        "game_id": game_id,
        "seen_by": "public" if public else "everything" if seat is None else f"seat {seat}",
        "rules": {"name": created.game, "version": created.rules_version},
        "config": created.config,
        "seed_commitment": created.seed_commitment,
        "seed": seed,
        "head_hash": rows[-1].hash,
        "version": rows[-1].version,
        "events": events,
        # who played each seat over which versions (substitutes): checked offline against
        # the events by the verifier
        "players": players_of(events),
    }


def bundle_text(bundle: dict[str, Any]) -> str:
    """The bundle as written: canonical JSON (sorted keys, no spaces), like the events."""
    return chain.canonical_json(bundle)
