"""The events of handing a seat to a substitute: someone proposes a newcomer for a seat
(``SubstituteProposed``), each other seat decides (``SubstituteDecided``), and when the
newcomer accepts the invitation the seat changes hands (``SeatHandedOver``).

None of them changes the game's state: the engine never hears of them (a seat is a seat,
whoever plays it), so a reply made before one still answers the same position (each is a
``PositionNeutral``). ``SeatHandedOver`` is a ``SeatPlayerChanged``: the core's ``seats``
read model names the newcomer from it.

Each is a frozen dataclass whose schema is derived from it (``pbem.core.event_base``); the
composition root registers them (``HANDOVER_EVENTS``, ``pbem.app.bootstrap.register_features``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar

from marshmallow import validate

from pbem.core.event_base import Channel, PositionNeutral, Ref, SeatPlayerChanged

SUBSTITUTE_PROPOSED = "SubstituteProposed"
SUBSTITUTE_DECIDED = "SubstituteDecided"
SEAT_HANDED_OVER = "SeatHandedOver"

#: who decided the hand-over: the game's administrator alone, or every other seat's consent
BY = ("administrator", "consent")
By = Annotated[str, validate.OneOf(BY)]


@dataclass(frozen=True)
class SubstituteProposed(PositionNeutral):
    TYPE: ClassVar[str] = SUBSTITUTE_PROPOSED
    #: the seat to be handed over
    seat: int
    #: the seat that proposed it; None: the game's administrator (then it needs no consent)
    by_seat: int | None
    #: the newcomer's name and address
    name: str
    email: str
    channel: Channel
    channel_ref: Ref


@dataclass(frozen=True)
class SubstituteDecided(PositionNeutral):
    TYPE: ClassVar[str] = SUBSTITUTE_DECIDED
    #: the version of the SubstituteProposed decided on
    proposal: int
    #: the seat that decided
    seat: int
    agree: bool
    channel: Channel
    channel_ref: Ref


@dataclass(frozen=True)
class SeatHandedOver(SeatPlayerChanged):
    TYPE: ClassVar[str] = SEAT_HANDED_OVER
    proposal: int
    seat: int
    old_name: str
    old_email: str | None
    new_name: str
    new_email: str
    #: the first version the newcomer plays (this event's own): the old player played the
    #: versions before it
    from_version: int
    by: By
    #: web (the link in the newcomer's invitation)
    channel: Channel


HANDOVER_EVENTS = (SubstituteProposed, SubstituteDecided, SeatHandedOver)
