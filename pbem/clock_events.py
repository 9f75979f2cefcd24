"""The events of the game's clock (docs/deadlines.md): its time control, deadlines missed,
extensions, pauses, vacations and standing orders, and the requests a seat makes for the
others' consent to an extension, a pause or a resumption.

They are registered with the other event types in ``pbem.events`` (``SCHEMAS``), and like
them are read by attribute, never by string key elsewhere. None of them changes the board:
a reply made before one answers the same position (``POSITION_NEUTRAL`` there).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from marshmallow import Schema, fields, post_load, validate

from pbem.event_base import Payload, _channel, _int, _ref, _Strict

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


@dataclass(frozen=True)
class TimeControlSet(Payload):
    TYPE: ClassVar[str] = TIME_CONTROL_SET
    #: ``TimeControl.to_json()``; applies from the next decision on
    time_control: dict[str, Any]
    by: str
    channel: str


@dataclass(frozen=True)
class DeadlineMissed(Payload):
    TYPE: ClassVar[str] = DEADLINE_MISSED
    seat: int
    #: the deadline that passed (ISO 8601 UTC)
    due_at: str
    #: True when the deadline move follows (``on_deadline: move``); False when the game
    #: waits for the administrator
    move: bool
    #: what is played and why: ``standing order``, ``default`` (the engine's auto_action),
    #: ``standing order not legal: …``, or ``waiting``
    reason: str


@dataclass(frozen=True)
class DeadlineExtended(Payload):
    TYPE: ClassVar[str] = DEADLINE_EXTENDED
    seat: int
    seconds: int
    by: str
    #: the seat that asked, when a seat did
    by_seat: int | None
    channel: str
    channel_ref: str | None


@dataclass(frozen=True)
class GamePaused(Payload):
    TYPE: ClassVar[str] = GAME_PAUSED
    by: str
    by_seat: int | None
    channel: str
    channel_ref: str | None


@dataclass(frozen=True)
class GameResumed(Payload):
    TYPE: ClassVar[str] = GAME_RESUMED
    by: str
    by_seat: int | None
    channel: str
    channel_ref: str | None


@dataclass(frozen=True)
class VacationStarted(Payload):
    TYPE: ClassVar[str] = VACATION_STARTED
    seat: int
    #: the first moment the player is back (ISO 8601 UTC)
    until: str
    channel: str
    channel_ref: str | None


@dataclass(frozen=True)
class VacationEnded(Payload):
    TYPE: ClassVar[str] = VACATION_ENDED
    seat: int
    channel: str
    channel_ref: str | None


@dataclass(frozen=True)
class StandingOrderSet(Payload):
    TYPE: ClassVar[str] = STANDING_ORDER_SET
    seat: int
    #: the move as the player wrote it, played at their next deadline if still legal then;
    #: None clears it
    text: str | None
    channel: str
    channel_ref: str | None


#: what a seat may ask the others to consent to (``ClockRequested``)
REQUESTS = ("extend", "pause", "resume")


@dataclass(frozen=True)
class ClockRequested(Payload):
    """A seat asks every other seat's consent to extend its deadline, pause or resume the
    game; granted by the last agreement (which appends the change, ``by`` ``consent``),
    refused by one disagreement."""

    TYPE: ClassVar[str] = CLOCK_REQUESTED
    seat: int
    #: one of ``REQUESTS``
    what: str
    #: the extension asked for (``extend`` only)
    seconds: int | None
    channel: str
    channel_ref: str | None


@dataclass(frozen=True)
class ClockRequestAnswered(Payload):
    TYPE: ClassVar[str] = CLOCK_REQUEST_ANSWERED
    #: the version of the ``ClockRequested`` answered
    request: int
    seat: int
    agree: bool
    channel: str
    channel_ref: str | None


CLOCK_EVENTS = (
    TimeControlSet,
    DeadlineMissed,
    DeadlineExtended,
    GamePaused,
    GameResumed,
    VacationStarted,
    VacationEnded,
    StandingOrderSet,
    ClockRequested,
    ClockRequestAnswered,
)


def _by() -> fields.String:
    return fields.String(required=True, validate=validate.OneOf(BY))


def _when() -> fields.String:
    return fields.String(required=True, validate=validate.Length(min=20, max=32))


class TimeControlSetV1(_Strict):
    time_control = fields.Dict(keys=fields.String(), required=True)
    by = _by()
    channel = _channel()

    @post_load
    def _typed(self, data: dict[str, Any], **_: Any) -> Any:
        return TimeControlSet(**data)


class DeadlineMissedV1(_Strict):
    seat = _int()
    due_at = _when()
    move = fields.Boolean(required=True)
    reason = fields.String(required=True)

    @post_load
    def _typed(self, data: dict[str, Any], **_: Any) -> Any:
        return DeadlineMissed(**data)


class DeadlineExtendedV1(_Strict):
    seat = _int()
    seconds = fields.Integer(required=True, strict=True, validate=validate.Range(min=1))
    by = _by()
    by_seat = fields.Integer(required=True, strict=True, allow_none=True)
    channel = _channel()
    channel_ref = _ref()

    @post_load
    def _typed(self, data: dict[str, Any], **_: Any) -> Any:
        return DeadlineExtended(**data)


class GamePausedV1(_Strict):
    by = _by()
    by_seat = fields.Integer(required=True, strict=True, allow_none=True)
    channel = _channel()
    channel_ref = _ref()

    @post_load
    def _typed(self, data: dict[str, Any], **_: Any) -> Any:
        return GamePaused(**data)


class GameResumedV1(GamePausedV1):
    @post_load
    def _typed(self, data: dict[str, Any], **_: Any) -> Any:
        return GameResumed(**data)


class VacationStartedV1(_Strict):
    seat = _int()
    until = _when()
    channel = _channel()
    channel_ref = _ref()

    @post_load
    def _typed(self, data: dict[str, Any], **_: Any) -> Any:
        return VacationStarted(**data)


class VacationEndedV1(_Strict):
    seat = _int()
    channel = _channel()
    channel_ref = _ref()

    @post_load
    def _typed(self, data: dict[str, Any], **_: Any) -> Any:
        return VacationEnded(**data)


class StandingOrderSetV1(_Strict):
    seat = _int()
    text = fields.String(required=True, allow_none=True, validate=validate.Length(max=500))
    channel = _channel()
    channel_ref = _ref()

    @post_load
    def _typed(self, data: dict[str, Any], **_: Any) -> Any:
        return StandingOrderSet(**data)


class ClockRequestedV1(_Strict):
    seat = _int()
    what = fields.String(required=True, validate=validate.OneOf(REQUESTS))
    seconds = fields.Integer(
        required=True, strict=True, allow_none=True, validate=validate.Range(min=1)
    )
    channel = _channel()
    channel_ref = _ref()

    @post_load
    def _typed(self, data: dict[str, Any], **_: Any) -> Any:
        return ClockRequested(**data)


class ClockRequestAnsweredV1(_Strict):
    request = _int()
    seat = _int()
    agree = fields.Boolean(required=True)
    channel = _channel()
    channel_ref = _ref()

    @post_load
    def _typed(self, data: dict[str, Any], **_: Any) -> Any:
        return ClockRequestAnswered(**data)


SCHEMAS: dict[tuple[str, int], Schema] = {
    (TIME_CONTROL_SET, 1): TimeControlSetV1(),
    (DEADLINE_MISSED, 1): DeadlineMissedV1(),
    (DEADLINE_EXTENDED, 1): DeadlineExtendedV1(),
    (GAME_PAUSED, 1): GamePausedV1(),
    (GAME_RESUMED, 1): GameResumedV1(),
    (VACATION_STARTED, 1): VacationStartedV1(),
    (VACATION_ENDED, 1): VacationEndedV1(),
    (STANDING_ORDER_SET, 1): StandingOrderSetV1(),
    (CLOCK_REQUESTED, 1): ClockRequestedV1(),
    (CLOCK_REQUEST_ANSWERED, 1): ClockRequestAnsweredV1(),
}
