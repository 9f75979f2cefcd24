"""The events of a rematch. In the finished game: a seat proposes one (``RematchProposed``),
each seat agrees (``RematchAgreed``) or one declines (``RematchDeclined``, which ends the
proposal), and once every seat agreed the new game is created and named
(``RematchStarted``). In the new game, right after its creation: ``RematchOf``, naming the
finished game it is a rematch of.

Bookkeeping only: none of them is part of the game's state (the fold skips them; they are
``PositionNeutral``, and those of the finished game ``Epilogue``: replay and the verifiers
accept them after its ``GameFinished``). Each is a frozen dataclass whose schema is derived from it
(``pbem.core.event_base``); the composition root registers them (``REMATCH_EVENTS``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar

from marshmallow import validate

from pbem.core.event_base import Channel, Epilogue, PositionNeutral, Ref

REMATCH_PROPOSED = "RematchProposed"
REMATCH_AGREED = "RematchAgreed"
REMATCH_DECLINED = "RematchDeclined"
REMATCH_STARTED = "RematchStarted"
REMATCH_OF = "RematchOf"

#: The seatings a proposal may ask for: ``rotate`` (every player moves one seat on: the old
#: first seat plays last) or ``same`` (everyone keeps their seat).
ROTATE = "rotate"
SAME = "same"
SEATINGS = (ROTATE, SAME)
Seating = Annotated[str, validate.OneOf(SEATINGS)]


@dataclass(frozen=True)
class RematchProposed(Epilogue):
    TYPE: ClassVar[str] = REMATCH_PROPOSED
    #: the proposing seat (its proposal counts as its agreement)
    seat: int
    seating: Seating
    channel: Channel
    channel_ref: Ref


@dataclass(frozen=True)
class RematchAgreed(Epilogue):
    TYPE: ClassVar[str] = REMATCH_AGREED
    #: the version of the RematchProposed event agreed to
    proposal: int
    seat: int
    channel: Channel
    channel_ref: Ref


@dataclass(frozen=True)
class RematchDeclined(Epilogue):
    TYPE: ClassVar[str] = REMATCH_DECLINED
    proposal: int
    seat: int
    channel: Channel
    channel_ref: Ref


@dataclass(frozen=True)
class RematchStarted(Epilogue):
    TYPE: ClassVar[str] = REMATCH_STARTED
    proposal: int
    #: the id of the new game
    game_id: str


@dataclass(frozen=True)
class RematchOf(PositionNeutral):
    TYPE: ClassVar[str] = REMATCH_OF
    #: the id of the finished game this one is a rematch of
    game_id: str
    #: the version of its RematchProposed event
    proposal: int
    seating: Seating


REMATCH_EVENTS = (RematchProposed, RematchAgreed, RematchDeclined, RematchStarted, RematchOf)
