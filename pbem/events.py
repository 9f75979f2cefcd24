"""Event types: stable past-tense names, one marshmallow schema per schema version.

An event is stored as its payload in canonical JSON (sorted keys, UTF-8, no floats, no
spaces) and chained: ``hash = sha256(prev_hash ‖ canonical event)``, where the canonical
event holds the game id, version, type, schema version, payload and recording time. Changing
any stored byte breaks the chain (``pbem replay --verify`` finds it). A secret action of
schema version 2 is chained by its commitment instead of its vote, and its vote and salt must
match that commitment (``pbem.chain``): changing them breaks the commitment instead.

Each event type is a frozen dataclass (``ActionApplied``, ``UndoRequested`` …); its schema
loads a stored payload into it and dumps it back to the same JSON, so a payload is read by
attribute everywhere (``event.payload.seat``), never by string key outside this module.

Schemas never change once events are stored with them: a new shape is a new schema version
registered beside the old one, with an upcaster in ``UPCASTERS`` from the old payload.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, ClassVar

from marshmallow import ValidationError, fields, post_load, validate

# The chain and its commitments live in the standard library alone (the offline verifier
# reads them where marshmallow is not installed); they are re-exported here for the service.
from pbem import clock_events
from pbem.chain import (
    GENESIS_HASH,
    EventDataError,
    canonical_event,
    canonical_json,
    chain_hash,
    commitment_problem,
    secret_commitment,
    seed_commitment,
)
from pbem.clock_events import (
    DEADLINE_EXTENDED,
    DEADLINE_MISSED,
    GAME_PAUSED,
    GAME_RESUMED,
    STANDING_ORDER_SET,
    TIME_CONTROL_SET,
    VACATION_ENDED,
    VACATION_STARTED,
    DeadlineExtended,
    DeadlineMissed,
    GamePaused,
    GameResumed,
    StandingOrderSet,
    TimeControlSet,
    VacationEnded,
    VacationStarted,
)
from pbem.event_base import (
    CHANNELS,
    CURRENT_VERSION,
    SCHEMAS,
    Payload,
    _channel,
    _int,
    _ref,
    _Strict,
    register,
)

__all__ = [
    "CHANNELS",
    "CURRENT_VERSION",
    "DEADLINE_EXTENDED",
    "DEADLINE_MISSED",
    "GAME_PAUSED",
    "GAME_RESUMED",
    "GENESIS_HASH",
    "SCHEMAS",
    "STANDING_ORDER_SET",
    "TIME_CONTROL_SET",
    "VACATION_ENDED",
    "VACATION_STARTED",
    "DeadlineExtended",
    "DeadlineMissed",
    "EventDataError",
    "GamePaused",
    "GameResumed",
    "Payload",
    "StandingOrderSet",
    "TimeControlSet",
    "VacationEnded",
    "VacationStarted",
    "canonical_event",
    "canonical_json",
    "chain_hash",
    "commitment_problem",
    "secret_commitment",
    "seed_commitment",
]

GAME_CREATED = "GameCreated"
GAME_STARTED = "GameStarted"
ACTION_APPLIED = "ActionApplied"
UNDO_REQUESTED = "UndoRequested"
UNDO_DECIDED = "UndoDecided"
#: an open undo request that lapsed because the game moved on before everyone answered
UNDO_LAPSED = "UndoLapsed"
ACTIONS_RETRACTED = "ActionsRetracted"
PLAYER_RESIGNED = "PlayerResigned"
GAME_FINISHED = "GameFinished"
#: a seat disputes one or more actions of the log; ``DisputeResolved`` ends it
DISPUTE_OPENED = "DisputeOpened"
#: another seat agrees (or not) to retract what a dispute is about
DISPUTE_ANSWERED = "DisputeAnswered"
DISPUTE_RESOLVED = "DisputeResolved"
#: the player of an invited seat agreed to get the game's mails (docs/mail.md, "Invitations")
INVITATION_ACCEPTED = "InvitationAccepted"


# -- the event types ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatEntry:
    seat: int
    name: str
    email: str | None


@dataclass(frozen=True)
class GameCreated(Payload):
    TYPE: ClassVar[str] = "GameCreated"
    game: str
    rules_version: str
    config: dict[str, Any]
    seats: tuple[SeatEntry, ...]
    seed_commitment: str
    channel: str
    #: shown only to its seats and its admin (V2; a V1 game is public)
    private: bool = False
    #: the seats whose address had never played: they are mailed an invitation, and no
    #: other mail until they accept (V3; before V3 nobody was invited)
    invited: tuple[int, ...] = ()


@dataclass(frozen=True)
class GameStarted(Payload):
    TYPE: ClassVar[str] = "GameStarted"
    to_act: tuple[int, ...]


@dataclass(frozen=True)
class ActionApplied(Payload):
    TYPE: ClassVar[str] = "ActionApplied"
    seat: int
    text: str
    canonical: str
    action: Any
    channel: str
    channel_ref: str | None
    received_at: str
    irreversible: bool
    secret: bool
    log: tuple[str, ...]
    nonce: str | None
    #: sha256(salt ‖ the vote) of a secret action (V2); the chain hashes it, not the vote
    commitment: str | None = None


@dataclass(frozen=True)
class UndoRequested(Payload):
    TYPE: ClassVar[str] = "UndoRequested"
    seat: int
    to_version: int
    versions: tuple[int, ...]
    channel: str
    channel_ref: str | None


@dataclass(frozen=True)
class UndoDecided(Payload):
    TYPE: ClassVar[str] = "UndoDecided"
    request: int
    seat: int
    accept: bool
    channel: str
    channel_ref: str | None


@dataclass(frozen=True)
class UndoLapsed(Payload):
    TYPE: ClassVar[str] = "UndoLapsed"
    request: int
    seat: int
    to_version: int


@dataclass(frozen=True)
class ActionsRetracted(Payload):
    TYPE: ClassVar[str] = "ActionsRetracted"
    seat: int
    request: int | None
    to_version: int
    versions: tuple[int, ...]
    channel: str
    channel_ref: str | None


@dataclass(frozen=True)
class PlayerResigned(Payload):
    TYPE: ClassVar[str] = "PlayerResigned"
    seat: int
    channel: str
    channel_ref: str | None


@dataclass(frozen=True)
class GameFinished(Payload):
    TYPE: ClassVar[str] = "GameFinished"
    outcome: dict[str, Any]
    seed: str
    reason: str


@dataclass(frozen=True)
class DisputeOpened(Payload):
    TYPE: ClassVar[str] = "DisputeOpened"
    seat: int
    versions: tuple[int, ...]
    text: str
    channel: str
    channel_ref: str | None


@dataclass(frozen=True)
class DisputeAnswered(Payload):
    TYPE: ClassVar[str] = "DisputeAnswered"
    dispute: int
    seat: int
    agree: bool
    channel: str
    channel_ref: str | None


@dataclass(frozen=True)
class DisputeResolved(Payload):
    TYPE: ClassVar[str] = "DisputeResolved"
    dispute: int
    #: the seat that opened the dispute
    opener: int
    #: the seat whose agreement completed the consent, or None: the administrator decided
    #: (V2; a V1 event named only the opener, so its decider reads as None)
    seat: int | None
    outcome: str
    by: str
    reason: str
    to_version: int | None
    retracted: tuple[int, ...]
    revealed: tuple[str, ...]
    channel: str


@dataclass(frozen=True)
class InvitationAccepted(Payload):
    TYPE: ClassVar[str] = "InvitationAccepted"
    seat: int
    #: web (the link in the invitation) or email (a reply to it)
    channel: str


#: events that change neither the position nor anything a seat decides on: a submission
#: made before them is as good as one made after them
BOOKKEEPING = frozenset({INVITATION_ACCEPTED})

#: the clock's events that came through a channel (``channel_ref``: e.g. a Message-ID)
CLOCK_FROM_CHANNEL = (
    clock_events.DeadlineExtended,
    clock_events.GamePaused,
    clock_events.GameResumed,
    clock_events.VacationStarted,
    clock_events.VacationEnded,
    clock_events.StandingOrderSet,
    clock_events.ClockRequested,
    clock_events.ClockRequestAnswered,
)

#: the events a seat causes, through a channel
SEAT_ACTS = (
    ActionApplied,
    UndoRequested,
    UndoDecided,
    ActionsRetracted,
    PlayerResigned,
    DisputeOpened,
    DisputeAnswered,
)
#: events that change nothing on the board: a reply made before them still answers the
#: same position
POSITION_NEUTRAL = (DisputeOpened, DisputeAnswered, DisputeResolved, *clock_events.CLOCK_EVENTS)


def _tuples(data: dict[str, Any], *names: str) -> dict[str, Any]:
    return {**data, **{n: tuple(data[n]) for n in names}}


# -- their schemas ----------------------------------------------------------------------------


def _json_action_item(value: Any) -> Any:
    """One item of a JSON action, as lists; ValueError names the first item that is not one."""
    # bool before int: both are accepted, but a bool must stay a bool (True is not 1).
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, list | tuple):
        return [_json_action_item(v) for v in value]
    raise ValueError(f"{value!r} is not text, an integer, a boolean, null or a list of those")


class JsonAction(fields.Field[list[Any]]):
    """An engine action as ``engine.core.action_to_json`` writes it.

    The engine contract (``engine/core/protocol.py``) allows any JSON-able tuple: items that
    are text, integers, booleans, ``None`` or nested tuples of those, to any depth. The
    field accepts exactly that shape, so every action an engine can produce is stored and
    read back unchanged (e.g. Lancaster's ``favor gold``, whose action carries a ``None``);
    floats and objects are refused here as in the contract.
    """

    default_error_messages = {  # noqa: RUF012 (marshmallow's own class attribute)
        "invalid": "Not a JSON action: {reason}.",
    }

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> list[Any]:
        if not isinstance(value, list | tuple):
            raise self.make_error("invalid", reason="an action is a list")
        try:
            return [_json_action_item(v) for v in value]
        except ValueError as e:
            raise self.make_error("invalid", reason=str(e)) from None

    def _serialize(self, value: Any, attr: Any, obj: Any, **kwargs: Any) -> Any:
        return value


class SeatV1(_Strict):
    seat = _int()
    name = fields.String(required=True)
    email = fields.String(required=True, allow_none=True)

    @post_load
    def _typed(self, data: dict[str, Any], **_: Any) -> Any:
        return SeatEntry(**data)


class GameCreatedV1(_Strict):
    game = fields.String(required=True)
    rules_version = fields.String(required=True)
    config = fields.Dict(keys=fields.String(), required=True)
    seats = fields.List(fields.Nested(SeatV1), required=True)
    #: sha256 of the seed's decimal text; the seed is revealed in GameFinished
    seed_commitment = fields.String(required=True, validate=validate.Length(equal=64))
    channel = _channel()

    @post_load
    def _typed(self, data: dict[str, Any], **_: Any) -> Any:
        return GameCreated(**{**data, "seats": tuple(data["seats"])})


class GameCreatedV2(GameCreatedV1):
    #: only the game's seats and its admin may see it; anyone else is told there is no game
    private = fields.Boolean(required=True)


def _game_created_v1_to_v2(payload: Payload) -> Payload:
    # Every game created before the flag existed was public.
    assert isinstance(payload, GameCreated)
    return replace(payload, private=False)


class GameCreatedV3(GameCreatedV2):
    #: the seats mailed an invitation (their address had never played)
    invited = fields.List(fields.Integer(strict=True), required=True)

    @post_load
    def _typed(self, data: dict[str, Any], **_: Any) -> Any:
        return GameCreated(
            **{**data, "seats": tuple(data["seats"]), "invited": tuple(data["invited"])}
        )


def _game_created_v2_to_v3(payload: Payload) -> Payload:
    # Games created before invitations existed mailed every seat from the start.
    assert isinstance(payload, GameCreated)
    return replace(payload, invited=())


class GameStartedV1(_Strict):
    to_act = fields.List(fields.Integer(strict=True), required=True)

    @post_load
    def _typed(self, data: dict[str, Any], **_: Any) -> Any:
        return GameStarted(**_tuples(data, "to_act"))


class ActionAppliedV1(_Strict):
    seat = _int()
    #: the text exactly as the player submitted it (one command line)
    text = fields.String(required=True)
    #: the engine's canonical text of the action
    canonical = fields.String(required=True)
    #: the action as JSON (``engine.core.action_to_json``). Widened in place, not a V2: the
    #: old field refused a null item, so no stored V1 event holds one, and every payload
    #: it accepted from an engine (a list of text, integers, booleans or lists) loads the
    #: same with this field, so no stored event's meaning or hash changes.
    action = JsonAction(required=True)
    channel = _channel()
    #: e.g. the email's Message-ID
    channel_ref = _ref()
    received_at = fields.String(required=True)
    #: the transition drew randomness or revealed hidden information: undo stops here
    irreversible = fields.Boolean(required=True)
    #: a secret action (a vote): others see "seat N acted" until the next irreversible step
    secret = fields.Boolean(required=True)
    #: the engine's public log lines for this transition
    log = fields.List(fields.String(), required=True)
    #: random salt of a secret action, so that its public hash cannot be used to guess it
    nonce = fields.String(required=True, allow_none=True)

    @post_load
    def _typed(self, data: dict[str, Any], **_: Any) -> Any:
        return ActionApplied(**_tuples(data, "log"))


class ActionAppliedV2(ActionAppliedV1):
    #: a secret action's commitment (``pbem.chain.secret_commitment`` of its salt, action,
    #: canonical text and text); the hash chain holds it in place of those, so a copy of the
    #: log can leave an unrevealed vote out and still check. None (or absent, as in a raw
    #: payload written in the V1 shape) for a public action.
    commitment = fields.String(
        load_default=None, allow_none=True, validate=validate.Regexp("^[0-9a-f]{64}$")
    )


def _action_applied_v1_to_v2(payload: Payload) -> Payload:
    # A secret action recorded before commitments existed is hashed whole, vote included.
    assert isinstance(payload, ActionApplied)
    return replace(payload, commitment=None)


class UndoRequestedV1(_Strict):
    seat = _int()
    #: the version whose position the game would return to
    to_version = _int()
    #: the ActionApplied versions that would be retracted
    versions = fields.List(fields.Integer(strict=True), required=True)
    channel = _channel()
    channel_ref = _ref()

    @post_load
    def _typed(self, data: dict[str, Any], **_: Any) -> Any:
        return UndoRequested(**_tuples(data, "versions"))


class UndoDecidedV1(_Strict):
    request = _int()
    seat = _int()
    accept = fields.Boolean(required=True)
    channel = _channel()
    channel_ref = _ref()

    @post_load
    def _typed(self, data: dict[str, Any], **_: Any) -> Any:
        return UndoDecided(**data)


class UndoLapsedV1(_Strict):
    request = _int()
    #: the seat that made the request
    seat = _int()
    to_version = _int()

    @post_load
    def _typed(self, data: dict[str, Any], **_: Any) -> Any:
        return UndoLapsed(**data)


class ActionsRetractedV1(_Strict):
    #: who took the actions back (the requester, for a consented undo)
    seat = _int()
    #: the UndoRequested version, or None for a seat taking back its own latest actions
    #: and for an upheld dispute (the DisputeResolved right before it says which)
    request = fields.Integer(required=True, strict=True, allow_none=True)
    to_version = _int()
    versions = fields.List(fields.Integer(strict=True), required=True)
    channel = _channel()
    channel_ref = _ref()

    @post_load
    def _typed(self, data: dict[str, Any], **_: Any) -> Any:
        return ActionsRetracted(**_tuples(data, "versions"))


class PlayerResignedV1(_Strict):
    seat = _int()
    channel = _channel()
    channel_ref = _ref()

    @post_load
    def _typed(self, data: dict[str, Any], **_: Any) -> Any:
        return PlayerResigned(**data)


class InvitationAcceptedV1(_Strict):
    seat = _int()
    channel = _channel()

    @post_load
    def _typed(self, data: dict[str, Any], **_: Any) -> Any:
        return InvitationAccepted(**data)


class GameFinishedV1(_Strict):
    outcome = fields.Dict(keys=fields.String(), required=True)
    #: the seed, revealed: anyone can check it against the commitment and re-run the game
    seed = fields.String(required=True)
    reason = fields.String(required=True, validate=validate.OneOf(("rules", "resignation")))

    @post_load
    def _typed(self, data: dict[str, Any], **_: Any) -> Any:
        return GameFinished(**data)


class DisputeOpenedV1(_Strict):
    seat = _int()
    #: the ActionApplied versions disputed (in effect when the dispute was opened)
    versions = fields.List(fields.Integer(strict=True), required=True)
    #: what the seat wrote about them, as it wrote it (every seat reads it)
    text = fields.String(required=True)
    channel = _channel()
    channel_ref = _ref()

    @post_load
    def _typed(self, data: dict[str, Any], **_: Any) -> Any:
        return DisputeOpened(**_tuples(data, "versions"))


class DisputeAnsweredV1(_Strict):
    #: the DisputeOpened version
    dispute = _int()
    seat = _int()
    #: agrees to retract the disputed actions
    agree = fields.Boolean(required=True)
    channel = _channel()
    channel_ref = _ref()

    @post_load
    def _typed(self, data: dict[str, Any], **_: Any) -> Any:
        return DisputeAnswered(**data)


class DisputeResolvedV1(_Strict):
    dispute = _int()
    #: the seat that opened the dispute (not who decided: ``by`` says that)
    seat = _int()
    outcome = fields.String(required=True, validate=validate.OneOf(("dismissed", "upheld")))
    #: who decided: the game's ``administrator``, or every other seat's ``consent``
    by = fields.String(required=True, validate=validate.OneOf(("administrator", "consent")))
    #: why (a dismissal's reason; for an upheld dispute, the remedy in words)
    reason = fields.String(required=True)
    #: the version the game went back to (upheld), else None
    to_version = fields.Integer(required=True, strict=True, allow_none=True)
    #: the ActionApplied versions retracted (the ActionsRetracted right after says the same)
    retracted = fields.List(fields.Integer(strict=True), required=True)
    #: what the retracted steps had already revealed to the players (draws, reveals): it
    #: stays known, and the log says so
    revealed = fields.List(fields.String(), required=True)
    channel = _channel()

    @post_load
    def _typed(self, data: dict[str, Any], **_: Any) -> Any:
        # V1 named the opener as its seat, which read as if the opener had decided; the
        # seat whose answer completed a consent is on the DisputeAnswered right before it.
        data = _tuples(data, "retracted", "revealed")
        return DisputeResolved(**{**data, "opener": data["seat"], "seat": None})


class DisputeResolvedV2(_Strict):
    dispute = _int()
    #: the seat that opened the dispute
    opener = _int()
    #: who decided, as a seat: the one whose agreement completed the consent; None when the
    #: administrator decided (through ``channel``)
    seat = fields.Integer(required=True, strict=True, allow_none=True)
    outcome = fields.String(required=True, validate=validate.OneOf(("dismissed", "upheld")))
    by = fields.String(required=True, validate=validate.OneOf(("administrator", "consent")))
    reason = fields.String(required=True)
    to_version = fields.Integer(required=True, strict=True, allow_none=True)
    retracted = fields.List(fields.Integer(strict=True), required=True)
    revealed = fields.List(fields.String(), required=True)
    channel = _channel()

    @post_load
    def _typed(self, data: dict[str, Any], **_: Any) -> Any:
        return DisputeResolved(**_tuples(data, "retracted", "revealed"))


def _dispute_resolved_v1_to_v2(payload: Payload) -> Payload:
    # Already in the V2 shape: the V1 schema loads it so (its decider unknown).
    return payload


register(
    {
        (GAME_CREATED, 1): GameCreatedV1(),
        (GAME_CREATED, 2): GameCreatedV2(),
        (GAME_CREATED, 3): GameCreatedV3(),
        (GAME_STARTED, 1): GameStartedV1(),
        (ACTION_APPLIED, 1): ActionAppliedV1(),
        (ACTION_APPLIED, 2): ActionAppliedV2(),
        (UNDO_REQUESTED, 1): UndoRequestedV1(),
        (UNDO_DECIDED, 1): UndoDecidedV1(),
        (UNDO_LAPSED, 1): UndoLapsedV1(),
        (ACTIONS_RETRACTED, 1): ActionsRetractedV1(),
        (PLAYER_RESIGNED, 1): PlayerResignedV1(),
        (GAME_FINISHED, 1): GameFinishedV1(),
        (DISPUTE_OPENED, 1): DisputeOpenedV1(),
        (DISPUTE_ANSWERED, 1): DisputeAnsweredV1(),
        (DISPUTE_RESOLVED, 1): DisputeResolvedV1(),
        (DISPUTE_RESOLVED, 2): DisputeResolvedV2(),
        (INVITATION_ACCEPTED, 1): InvitationAcceptedV1(),
    }
)
# The clock's events (time controls, deadlines, pauses, vacations) live in their own module.
register(clock_events.SCHEMAS)

#: (type, from schema version) -> function turning that version's typed payload into the next's
UPCASTERS: dict[tuple[str, int], Callable[[Payload], Payload]] = {
    (GAME_CREATED, 1): _game_created_v1_to_v2,
    (ACTION_APPLIED, 1): _action_applied_v1_to_v2,
    (GAME_CREATED, 2): _game_created_v2_to_v3,
    (DISPUTE_RESOLVED, 1): _dispute_resolved_v1_to_v2,
}


@dataclass(frozen=True)
class NewEvent:
    """A raw payload about to be appended (the typed events are appended as they are)."""

    type: str
    data: dict[str, Any]


#: what the store appends: a typed event, or a raw payload checked against its schema
Appendable = Payload | NewEvent


def encode(event: Appendable) -> tuple[int, str]:
    """Validate a new event's payload: returns (schema version, canonical JSON)."""
    version = CURRENT_VERSION.get(event.type)
    if version is None:
        raise EventDataError(f"unknown event type {event.type!r}")
    schema = SCHEMAS[(event.type, version)]
    data = event.data
    errors = schema.validate(data)
    if errors:
        raise EventDataError(f"{event.type} payload is invalid: {errors}")
    problem = commitment_problem(event.type, version, data)
    if problem is not None:
        raise EventDataError(f"{event.type}: {problem}")
    return version, canonical_json(data)


def decode_payload(type_: str, schema_version: int, text: str) -> tuple[dict[str, Any], Payload]:
    """A stored payload, validated against its schema and upcast to the current version: as
    JSON and typed."""
    schema = SCHEMAS.get((type_, schema_version))
    if schema is None:
        raise EventDataError(f"unknown event type or schema version: {type_} v{schema_version}")
    try:
        raw = json.loads(text)
    except ValueError as e:
        raise EventDataError(f"payload is not valid JSON: {e}") from None
    if not isinstance(raw, dict):
        raise EventDataError("payload is not a JSON object")
    try:
        payload: Payload = schema.load(raw)
    except ValidationError as e:
        raise EventDataError(
            f"{type_} v{schema_version} payload is invalid: {e.messages}"
        ) from None
    if schema_version == CURRENT_VERSION[type_]:
        return raw, payload
    while schema_version < CURRENT_VERSION[type_]:
        payload = UPCASTERS[(type_, schema_version)](payload)
        schema_version += 1
    return payload.data, payload


def decode(type_: str, schema_version: int, text: str) -> dict[str, Any]:
    """A stored payload as JSON, validated and upcast to the current version."""
    return decode_payload(type_, schema_version, text)[0]


def typed(type_: str, data: Mapping[str, Any]) -> Payload:
    """A payload of the current schema version, as its event type."""
    schema = SCHEMAS.get((type_, CURRENT_VERSION.get(type_, 0)))
    if schema is None:
        raise EventDataError(f"unknown event type {type_!r}")
    try:
        payload: Payload = schema.load(data)
    except ValidationError as e:
        raise EventDataError(f"{type_} payload is invalid: {e.messages}") from None
    return payload


@dataclass(frozen=True)
class StoredEvent:
    """One event as stored: its place in the chain, its payload as JSON (``data``, what the
    API and exports show) and typed (``payload``, what the service reads)."""

    game_id: str
    version: int
    type: str
    schema_version: int
    data: dict[str, Any]
    recorded_at: str
    prev_hash: str
    hash: str

    @cached_property
    def payload(self) -> Payload:
        return typed(self.type, self.data)

    def to_json(self) -> dict[str, Any]:
        """The event for people to read. ``data`` is upcast to the current schema version,
        so an old event's hash does not recompute from it: bundles to check carry the stored
        payload instead (``pbem.export``)."""
        return {
            "version": self.version,
            "type": self.type,
            # the version ``data`` is in (not always the stored one: see above)
            "schema_version": CURRENT_VERSION[self.type],
            "data": self.data,
            "recorded_at": self.recorded_at,
            "prev_hash": self.prev_hash,
            "hash": self.hash,
        }


def effective_actions(events: Sequence[StoredEvent]) -> list[StoredEvent]:
    """The ActionApplied events in effect after retractions, in order: the one place that
    decides it (the fold, the views and undo all read it from here)."""
    retracted = retracted_versions(events)
    return [e for e in events if e.type == ACTION_APPLIED and e.version not in retracted]


def retracted_versions(events: Sequence[StoredEvent]) -> set[int]:
    """The versions of the actions that ``ActionsRetracted`` events in ``events`` took back."""
    retracted: set[int] = set()
    for e in events:
        if e.type == ACTIONS_RETRACTED and isinstance(p := e.payload, ActionsRetracted):
            retracted.update(p.versions)
    return retracted
