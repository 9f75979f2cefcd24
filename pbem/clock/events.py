"""The events of the game's clock (docs/deadlines.md): its time control, deadlines missed,
extensions, pauses, vacations and standing orders, and the requests a seat makes for the
others' consent to an extension, a pause or a resumption.

Each is a frozen dataclass whose schema is derived from it (``pbem.core.event_base``); the
composition root registers them (``CLOCK_EVENTS``) with the other event types
(``pbem.app.bootstrap.register_features``), and like them they are read by attribute, never by
string key elsewhere. None of them changes the board: a reply made before one answers the
same position (each is a ``PositionNeutral``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from marshmallow import validate

from pbem.core.event_base import Channel, PositionNeutral, Ref, fields_of, upcaster

TIME_CONTROL_SET = "TimeControlSet"
DEADLINE_MISSED = "DeadlineMissed"
DEADLINE_EXTENDED = "DeadlineExtended"
GAME_PAUSED = "GamePaused"
GAME_RESUMED = "GameResumed"
VACATION_STARTED = "VacationStarted"
VACATION_ENDED = "VacationEnded"
STANDING_ORDER_SET = "StandingOrderSet"
CLOCK_REQUESTED = "ClockRequested"
CLOCK_REQUEST_ANSWERED = "ClockRequestAnswered"

#: who did it: the player who created the game, the game's administrator (its admin token),
#: every seat's consent, one seat (``seat`` names it), or the service's sweep
BY = ("creator", "administrator", "consent", "seat", "service")
By = Annotated[str, validate.OneOf(BY)]
#: a moment, as ISO 8601 UTC text
When = Annotated[str, validate.Length(min=20, max=32)]


@dataclass(frozen=True)
class TimeControlSet(PositionNeutral):
    TYPE: ClassVar[str] = TIME_CONTROL_SET
    #: ``TimeControl.to_json()``; applies from the next decision on
    time_control: dict[str, Any]
    by: By
    channel: Channel


@dataclass(frozen=True)
class DeadlineMissed(PositionNeutral):
    TYPE: ClassVar[str] = DEADLINE_MISSED
    seat: int
    #: the deadline that passed (ISO 8601 UTC)
    due_at: When
    #: True when the deadline move follows (``on_deadline: move``); False when the game
    #: waits for the administrator
    move: bool
    #: what is played and why: ``standing order``, ``default`` (the engine's auto_action),
    #: ``standing order not legal: …``, or ``waiting``
    reason: str


@dataclass(frozen=True)
class DeadlineExtended(PositionNeutral):
    TYPE: ClassVar[str] = DEADLINE_EXTENDED
    seat: int
    seconds: Annotated[int, validate.Range(min=1)]
    by: By
    #: the seat that asked, when a seat did
    by_seat: int | None
    channel: Channel
    channel_ref: Ref


@dataclass(frozen=True)
class GamePaused(PositionNeutral):
    TYPE: ClassVar[str] = GAME_PAUSED
    by: By
    by_seat: int | None
    channel: Channel
    channel_ref: Ref


@dataclass(frozen=True)
class GameResumed(PositionNeutral):
    TYPE: ClassVar[str] = GAME_RESUMED
    by: By
    by_seat: int | None
    channel: Channel
    channel_ref: Ref


@dataclass(frozen=True)
class VacationStarted(PositionNeutral):
    TYPE: ClassVar[str] = VACATION_STARTED
    seat: int
    #: the first moment the player is back (ISO 8601 UTC)
    until: When
    channel: Channel
    channel_ref: Ref


@dataclass(frozen=True)
class VacationEnded(PositionNeutral):
    TYPE: ClassVar[str] = VACATION_ENDED
    seat: int
    channel: Channel
    channel_ref: Ref


@dataclass(frozen=True)
class StandingOrderSetV1(PositionNeutral):
    """A standing order as first stored: without a salt, so another seat could confirm a
    guess of it (a legal move, a vote) against the hash chain its export carries."""

    TYPE: ClassVar[str] = STANDING_ORDER_SET
    seat: int
    text: Annotated[str | None, validate.Length(max=500)]
    channel: Channel
    channel_ref: Ref


@dataclass(frozen=True)
class StandingOrderSet(PositionNeutral):
    TYPE: ClassVar[str] = STANDING_ORDER_SET
    VERSION: ClassVar[int] = 2
    seat: int
    #: the move as the player wrote it, played at their next deadline if still legal then;
    #: None clears it
    text: Annotated[str | None, validate.Length(max=500)]
    channel: Channel
    channel_ref: Ref
    #: random hex, the seat's alone with the order: the hash chain covers it, so another seat
    #: (whose export carries the event's hash and time) cannot confirm a guess of the order
    #: among the legal moves; "" for an order stored before it (``StandingOrderSetV1``)
    salt: Annotated[str, validate.Length(max=64)]


@upcaster(StandingOrderSetV1)
def _standing_order_set_v1_to_v2(old: StandingOrderSetV1) -> StandingOrderSet:
    return StandingOrderSet(**fields_of(old), salt="")


#: what a seat may ask the others to consent to (``ClockRequested``)
REQUESTS = ("extend", "pause", "resume")


@dataclass(frozen=True)
class ClockRequested(PositionNeutral):
    """A seat asks every other seat's consent to extend its deadline, pause or resume the
    game; granted by the last agreement (which appends the change, ``by`` ``consent``),
    refused by one disagreement."""

    TYPE: ClassVar[str] = CLOCK_REQUESTED
    seat: int
    #: one of ``REQUESTS``
    what: Annotated[str, validate.OneOf(REQUESTS)]
    #: the extension asked for (``extend`` only)
    seconds: Annotated[int | None, validate.Range(min=1)]
    channel: Channel
    channel_ref: Ref


@dataclass(frozen=True)
class ClockRequestAnswered(PositionNeutral):
    TYPE: ClassVar[str] = CLOCK_REQUEST_ANSWERED
    #: the version of the ``ClockRequested`` answered
    request: int
    seat: int
    agree: bool
    channel: Channel
    channel_ref: Ref


CLOCK_EVENTS = (
    TimeControlSet,
    DeadlineMissed,
    DeadlineExtended,
    GamePaused,
    GameResumed,
    VacationStarted,
    VacationEnded,
    StandingOrderSetV1,
    StandingOrderSet,
    ClockRequested,
    ClockRequestAnswered,
)

#: the clock's events that came through a channel (``channel_ref``: e.g. a Message-ID)
CLOCK_FROM_CHANNEL = (
    DeadlineExtended,
    GamePaused,
    GameResumed,
    VacationStarted,
    VacationEnded,
    StandingOrderSet,
    ClockRequested,
    ClockRequestAnswered,
)
