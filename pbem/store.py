"""The event store: append with the expected head, read a game's stream, keep snapshots.

Appending is guarded twice: the caller holds the game's row lock (``lock_game``: ``SELECT
... FOR UPDATE`` on PostgreSQL, the database write lock of ``BEGIN IMMEDIATE`` on SQLite),
and the primary key ``(game_id, version)`` refuses a second event at the same version even
if a caller forgot the lock.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from pbem.events import NewEvent, canonical_event, chain_hash, decode, encode
from pbem.models import Event, Game, Snapshot


class VersionTaken(Exception):
    """Another writer appended at this version first."""


@dataclass(frozen=True)
class StoredEvent:
    game_id: str
    version: int
    type: str
    schema_version: int
    data: dict[str, Any]
    recorded_at: str
    prev_hash: str
    hash: str

    @classmethod
    def from_row(cls, row: Event) -> StoredEvent:
        return cls(
            game_id=row.game_id,
            version=row.version,
            type=row.type,
            schema_version=row.schema_version,
            data=decode(row.type, row.schema_version, row.data),
            recorded_at=row.recorded_at,
            prev_hash=row.prev_hash,
            hash=row.hash,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "type": self.type,
            "schema_version": self.schema_version,
            "data": self.data,
            "recorded_at": self.recorded_at,
            "prev_hash": self.prev_hash,
            "hash": self.hash,
        }


def lock_game(session: Session, game_id: str) -> Game | None:
    """The game's row, locked for this write transaction."""
    query = select(Game).where(Game.id == game_id)
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update()
    return session.exec(query).first()


def append(
    session: Session,
    game_id: str,
    head_version: int,
    head_hash: str,
    events: Sequence[NewEvent],
    recorded_at: str,
) -> list[StoredEvent]:
    """Append ``events`` after ``head_version``; raises VersionTaken if one is there."""
    stored: list[StoredEvent] = []
    prev = head_hash
    for offset, event in enumerate(events, start=1):
        version = head_version + offset
        schema_version, text = encode(event)
        data = json.loads(text)
        digest = chain_hash(
            prev, canonical_event(game_id, version, event.type, schema_version, data, recorded_at)
        )
        session.add(
            Event(
                game_id=game_id,
                version=version,
                type=event.type,
                schema_version=schema_version,
                data=text,
                recorded_at=recorded_at,
                prev_hash=prev,
                hash=digest,
            )
        )
        stored.append(
            StoredEvent(
                game_id, version, event.type, schema_version, data, recorded_at, prev, digest
            )
        )
        prev = digest
    try:
        session.flush()
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
    return [StoredEvent.from_row(r) for r in rows]


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
    session: Session, game_id: str, version: int, event_hash: str, rules_version: str, state: str
) -> None:
    session.add(
        Snapshot(
            game_id=game_id,
            version=version,
            event_hash=event_hash,
            rules_version=rules_version,
            state=state,
        )
    )
