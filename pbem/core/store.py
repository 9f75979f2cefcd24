"""The event store: append with the expected head, read a game's stream, keep snapshots.

Appending is guarded twice: the caller holds the game's row lock (``pbem.core.unit_of_work``:
``SELECT ... FOR UPDATE`` on PostgreSQL, the database write lock of ``BEGIN IMMEDIATE`` on SQLite),
and the primary key ``(game_id, version)`` refuses a second event at the same version even
if a caller forgot the lock.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from sqlalchemy import insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from pbem.core.db import DriverStatement
from pbem.core.events import (
    Appendable,
    Payload,
    StoredEvent,
    canonical_event,
    chain_hash,
    decode_payload,
    encode,
)
from pbem.core.models import Event, Snapshot


class VersionTaken(Exception):
    """Another writer appended at this version first."""


def stored_event(row: Event) -> StoredEvent:
    """A stored row, its payload checked against its schema (JSON and typed)."""
    data, payload = decode_payload(row.type, row.schema_version, row.data)
    event = StoredEvent(
        row.game_id,
        row.version,
        row.type,
        row.schema_version,
        data,
        row.recorded_at,
        row.prev_hash,
        row.hash,
    )
    event.__dict__["payload"] = payload  # already typed: spare the cached property a load
    return event


def append(
    session: Session,
    game_id: str,
    head_version: int,
    head_hash: str,
    events: Sequence[Appendable],
    recorded_at: str,
) -> list[StoredEvent]:
    """Append ``events`` after ``head_version``; raises VersionTaken if one is there."""
    stored: list[StoredEvent] = []
    rows: list[dict[str, object]] = []
    prev = head_hash
    for offset, event in enumerate(events, start=1):
        version = head_version + offset
        schema_version, text = encode(event)
        data = json.loads(text)
        digest = chain_hash(
            prev, canonical_event(game_id, version, event.type, schema_version, data, recorded_at)
        )
        rows.append(
            {
                "game_id": game_id,
                "version": version,
                "type": event.type,
                "schema_version": schema_version,
                "data": text,
                "recorded_at": recorded_at,
                "prev_hash": prev,
                "hash": digest,
            }
        )
        record = StoredEvent(
            game_id, version, event.type, schema_version, data, recorded_at, prev, digest
        )
        if isinstance(event, Payload):
            record.__dict__["payload"] = event
        stored.append(record)
        prev = digest
    # An INSERT run on the driver for the rows, not ORM objects: the log is written and never
    # changed, so nothing in the session needs to track them. ``wait=False``: in a pipelined
    # write (the unit of work's, under the game's lock) it goes with the next statement read;
    # a version taken is then raised there, as the IntegrityError that VersionTaken wraps.
    try:
        session.flush()  # what the session holds goes first (e.g. a game's first rows)
        _INSERT_EVENTS.run(session, rows)
    except IntegrityError as e:
        raise VersionTaken(f"version {head_version + 1} of {game_id} is already taken") from e
    return stored


def read(
    session: Session, game_id: str, after: int = 0, upto: int | None = None
) -> list[StoredEvent]:
    """The events of a game with ``after < version <= upto``, in order."""
    query = select(Event).where(Event.game_id == game_id, Event.version > after)
    if upto is not None:
        query = query.where(Event.version <= upto)
    rows = session.exec(query.order_by(col(Event.version))).all()
    return [stored_event(r) for r in rows]


def event_hash_at(session: Session, game_id: str, version: int) -> str | None:
    query = select(Event.hash).where(Event.game_id == game_id, Event.version == version)
    return session.exec(query).first()


def latest_snapshot(session: Session, game_id: str, at: int) -> Snapshot | None:
    query = (
        select(Snapshot)
        .where(Snapshot.game_id == game_id, Snapshot.version <= at)
        .order_by(col(Snapshot.version).desc())
        .limit(1)
    )
    return session.exec(query).first()


def save_snapshot(
    session: Session,
    game_id: str,
    version: int,
    event_hash: str,
    rules_version: str,
    state: str,
    mac: str,
) -> None:
    session.add(
        Snapshot(
            game_id=game_id,
            version=version,
            event_hash=event_hash,
            rules_version=rules_version,
            state=state,
            mac=mac,
        )
    )


# Built once (this runs for every append): ``wait=False``, see ``append``.
_INSERT_EVENTS = DriverStatement(insert(Event), wait=False)
