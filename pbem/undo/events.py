"""The events of undo (``pbem.undo.rules``): a seat asks the others to take the game back
(``UndoRequested``), each decides (``UndoDecided``), and a request the game moved on from
lapses (``UndoLapsed``). The retraction itself, ``ActionsRetracted``, is the core's: the one
fold returns to an earlier position on it (``pbem.core.events``).

Each is a frozen dataclass whose schema is derived from it (``pbem.core.event_base``); the
composition root registers them (``UNDO_EVENTS``) with the other event types
(``pbem.app.bootstrap.register_features``), and they are read by attribute, never by string key
elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from pbem.core.event_base import Channel, Payload, Ref

UNDO_REQUESTED = "UndoRequested"
UNDO_DECIDED = "UndoDecided"
#: an open undo request that lapsed because the game moved on before everyone answered
UNDO_LAPSED = "UndoLapsed"


@dataclass(frozen=True)
class UndoRequested(Payload):
    TYPE: ClassVar[str] = UNDO_REQUESTED
    seat: int
    #: the version whose position the game would return to
    to_version: int
    #: the ActionApplied versions that would be retracted
    versions: tuple[int, ...]
    channel: Channel
    channel_ref: Ref


@dataclass(frozen=True)
class UndoDecided(Payload):
    TYPE: ClassVar[str] = UNDO_DECIDED
    request: int
    seat: int
    accept: bool
    channel: Channel
    channel_ref: Ref


@dataclass(frozen=True)
class UndoLapsed(Payload):
    TYPE: ClassVar[str] = UNDO_LAPSED
    request: int
    #: the seat that made the request
    seat: int
    to_version: int


UNDO_EVENTS = (UndoRequested, UndoDecided, UndoLapsed)
