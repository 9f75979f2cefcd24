"""The events of a dispute: a seat disputes actions of the log
(``DisputeOpened``), the other seats agree or not (``DisputeAnswered``), and the consent or the
administrator decides it (``DisputeResolved``). An upheld dispute's retraction is the core's
``ActionsRetracted`` (``pbem.core.events``), appended right after its ``DisputeResolved``.

Each is a frozen dataclass per schema version whose schema is derived from it
(``pbem.core.event_base``), with the upcaster from the older version beside it; the
composition root registers them (``DISPUTE_EVENTS``) with the other event types
(``pbem.app.bootstrap.register_features``). A dispute's steps change nothing on the board: a
reply made before one answers the same position (each current version is a
``PositionNeutral``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar

from marshmallow import validate

from pbem.core.event_base import Channel, Payload, PositionNeutral, Ref, fields_of, upcaster

#: a seat disputes one or more actions of the log; ``DisputeResolved`` ends it
DISPUTE_OPENED = "DisputeOpened"
#: another seat agrees (or not) to retract what a dispute is about
DISPUTE_ANSWERED = "DisputeAnswered"
DISPUTE_RESOLVED = "DisputeResolved"

#: who decided a dispute: the game's ``administrator``, or every other seat's ``consent``
DisputeBy = Annotated[str, validate.OneOf(("administrator", "consent"))]
DisputeOutcome = Annotated[str, validate.OneOf(("dismissed", "upheld"))]


@dataclass(frozen=True)
class DisputeOpened(PositionNeutral):
    TYPE: ClassVar[str] = DISPUTE_OPENED
    seat: int
    #: the ActionApplied versions disputed (in effect when the dispute was opened)
    versions: tuple[int, ...]
    #: what the seat wrote about them, as it wrote it (every seat reads it)
    text: str
    channel: Channel
    channel_ref: Ref


@dataclass(frozen=True)
class DisputeAnswered(PositionNeutral):
    TYPE: ClassVar[str] = DISPUTE_ANSWERED
    #: the DisputeOpened version
    dispute: int
    seat: int
    #: agrees to retract the disputed actions
    agree: bool
    channel: Channel
    channel_ref: Ref


@dataclass(frozen=True)
class DisputeResolvedV1(Payload):
    TYPE: ClassVar[str] = DISPUTE_RESOLVED
    dispute: int
    #: the seat that opened the dispute (not who decided: ``by`` says that)
    seat: int
    outcome: DisputeOutcome
    by: DisputeBy
    #: why (a dismissal's reason; for an upheld dispute, the remedy in words)
    reason: str
    #: the version the game went back to (upheld), else None
    to_version: int | None
    #: the ActionApplied versions retracted (the ActionsRetracted right after says the same)
    retracted: tuple[int, ...]
    #: what the retracted steps had already revealed to the players (draws, reveals): it
    #: stays known, and the log says so
    revealed: tuple[str, ...]
    channel: Channel


@dataclass(frozen=True)
class DisputeResolved(PositionNeutral):
    TYPE: ClassVar[str] = DISPUTE_RESOLVED
    VERSION: ClassVar[int] = 2
    dispute: int
    #: the seat that opened the dispute
    opener: int
    #: who decided, as a seat: the one whose agreement completed the consent; None when the
    #: administrator decided (through ``channel``)
    seat: int | None
    outcome: DisputeOutcome
    by: DisputeBy
    reason: str
    to_version: int | None
    retracted: tuple[int, ...]
    revealed: tuple[str, ...]
    channel: Channel


@upcaster(DisputeResolvedV1)
def _dispute_resolved_v1_to_v2(old: DisputeResolvedV1) -> DisputeResolved:
    # V1 named the opener as its seat, which read as if the opener had decided; the seat
    # whose answer completed a consent is on the DisputeAnswered right before it.
    return DisputeResolved(**{**fields_of(old), "opener": old.seat, "seat": None})


DISPUTE_EVENTS = (DisputeOpened, DisputeAnswered, DisputeResolvedV1, DisputeResolved)
