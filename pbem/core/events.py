"""The events the core itself reads, with what every event shares: its stored form, its
encoding and decoding, and the stored event (``StoredEvent``).

An event is stored as its payload in canonical JSON (sorted keys, UTF-8, no floats, no
spaces) and chained: ``hash = sha256(prev_hash ‖ canonical event)``, where the canonical
event holds the game id, version, type, schema version, payload and recording time. Changing
any stored byte breaks the chain (``pbem replay --verify`` finds it). A secret action of
schema version 2 is chained by its commitment instead of its vote, and its vote and salt must
match that commitment (``pbem.core.chain``): changing them breaks the commitment instead.

Each event type is a frozen dataclass per schema version (``ActionApplied``, its older
``ActionAppliedV1`` …); its schema is derived from it (``pbem.core.event_base``), loads a stored
payload into it and dumps it back to the same JSON, so a payload is read by attribute
everywhere (``event.payload.seat``), never by string key outside this module.

Schemas never change once events are stored with them: a new shape is a new dataclass of the
next schema version registered beside the old one, with its ``upcaster`` from the old one
right after it. The name without a version suffix is always the current one.

The event types here are those the core reads, registered when this module is imported:

- ``GameCreated`` (and its older versions): the store, the repository and replay fold a game
  from it (its rules version, seats and seed commitment), and the core's ``games`` and
  ``seats`` read models are made from it;
- ``ActionApplied``: what the one fold (``pbem.core.fold``) applies, and what the chain
  (``pbem.core.chain``) hashes by its commitment when it is secret;
- ``ActionsRetracted``: the fold, the repository (which state a version has) and the offline
  verifier return to an earlier position on it (``effective_actions`` below); undo and an
  upheld dispute write it, but neither owns what it means to the log;
- ``PlayerResigned``: the core's ``seats`` read model marks the seat resigned, which every
  unit of work reads (``UnitOfWork.resigned``);
- ``SeatTaken`` and ``SeatsClosed``: a player took an open seat (the core's ``seats`` read
  model adds it, the ``games`` one counts the seats still open, and the unit of work asks
  nobody to act while any is); the organiser started a waiting game with fewer players
  (the fold re-initialises the state there: ``pbem.core.fold``);
- ``GameFinished``: the core's ``games`` read model and replay read the outcome and the seed
  revealed.

Every other event type is its feature's, declared the same way in its package and registered
by the composition root (``pbem.app.bootstrap.register_features``): creation's
``GameStarted`` and ``InvitationAccepted`` (``pbem.create.events``), undo's
(``pbem.undo.events``), the disputes' (``pbem.disputes.events``) and the clock's
(``pbem.clock.events``). A process that reads stored events without building the service
calls ``register_features`` first.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Annotated, Any, ClassVar

from marshmallow import ValidationError, fields, validate

# The chain and its commitments live in the standard library alone (the offline verifier
# reads them where marshmallow is not installed); they are re-exported here for the service.
from pbem.core.chain import (
    GENESIS_HASH,
    EventDataError,
    canonical_event,
    canonical_json,
    chain_hash,
    commitment_problem,
    secret_commitment,
    seed_commitment,
)
from pbem.core.event_base import (
    CHANNELS,
    CURRENT_VERSION,
    SCHEMAS,
    SEAT_PLAYER_CHANGES,
    UPCASTERS,
    Channel,
    Epilogue,
    Payload,
    PositionNeutral,
    Ref,
    SeatPlayerChanged,
    fields_of,
    register,
    upcaster,
)

__all__ = [
    "CHANNELS",
    "CURRENT_VERSION",
    "GENESIS_HASH",
    "SCHEMAS",
    "SEAT_PLAYER_CHANGES",
    "Epilogue",
    "EventDataError",
    "Payload",
    "PositionNeutral",
    "SeatPlayerChanged",
    "canonical_event",
    "canonical_json",
    "chain_hash",
    "commitment_problem",
    "secret_commitment",
    "seed_commitment",
]

GAME_CREATED = "GameCreated"
ACTION_APPLIED = "ActionApplied"
ACTIONS_RETRACTED = "ActionsRetracted"
PLAYER_RESIGNED = "PlayerResigned"
GAME_FINISHED = "GameFinished"
SEAT_TAKEN = "SeatTaken"
SEATS_CLOSED = "SeatsClosed"


# -- the event types, one frozen dataclass per schema version ----------------------------------
#
# Each one's schema is derived from it (``pbem.core.event_base``): its fields are its stored form.


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


@dataclass(frozen=True)
class SeatEntry:
    seat: int
    name: str
    email: str | None


@dataclass(frozen=True)
class GameCreatedV1(Payload):
    TYPE: ClassVar[str] = GAME_CREATED
    game: str
    rules_version: str
    config: dict[str, Any]
    seats: tuple[SeatEntry, ...]
    #: sha256 of the seed's decimal text; the seed is revealed in GameFinished
    seed_commitment: Annotated[str, validate.Length(equal=64)]
    channel: Channel


@dataclass(frozen=True)
class GameCreatedV2(GameCreatedV1):
    VERSION: ClassVar[int] = 2
    #: only the game's seats and its admin may see it; anyone else is told there is no game
    private: bool


@upcaster(GameCreatedV1)
def _game_created_v1_to_v2(old: GameCreatedV1) -> GameCreatedV2:
    # Every game created before the flag existed was public.
    return GameCreatedV2(**fields_of(old), private=False)


@dataclass(frozen=True)
class GameCreatedV3(GameCreatedV2):
    VERSION: ClassVar[int] = 3
    #: the seats whose address had never played: they are mailed an invitation, and no
    #: other mail until they accept
    invited: tuple[int, ...]


@upcaster(GameCreatedV2)
def _game_created_v2_to_v3(old: GameCreatedV2) -> GameCreatedV3:
    # Games created before invitations existed mailed every seat from the start.
    return GameCreatedV3(**fields_of(old), invited=())


@dataclass(frozen=True)
class GameCreated(GameCreatedV3):
    VERSION: ClassVar[int] = 4
    #: the seats created without a player (open seats, ``pbem.create.open_seats``): ``seats``
    #: names only the others. They come after the named seats, so the seats taken are always
    #: the first ones. A game with open seats waits for players: nobody acts, no deadline
    #: runs and no turn is mailed until every seat is taken (``SeatTaken``) or the organiser
    #: starts it with fewer (``SeatsClosed``). The default is only for Python callers: the
    #: stored form of this version always holds the field.
    open_seats: tuple[int, ...] = ()


@upcaster(GameCreatedV3)
def _game_created_v3_to_v4(old: GameCreatedV3) -> GameCreated:
    # Games created before open seats existed had every seat named.
    return GameCreated(**fields_of(old), open_seats=())


@dataclass(frozen=True)
class ActionAppliedV1(Payload):
    TYPE: ClassVar[str] = ACTION_APPLIED
    seat: int
    #: the text exactly as the player submitted it (one command line)
    text: str
    #: the engine's canonical text of the action
    canonical: str
    #: the action as JSON (``engine.core.action_to_json``). Widened in place, not a V2: the
    #: old field refused a null item, so no stored V1 event holds one, and every payload
    #: it accepted from an engine (a list of text, integers, booleans or lists) loads the
    #: same with this field, so no stored event's meaning or hash changes.
    action: Annotated[Any, JsonAction(required=True)]
    channel: Channel
    #: e.g. the email's Message-ID
    channel_ref: Ref
    received_at: str
    #: the transition drew randomness or revealed hidden information: undo stops here
    irreversible: bool
    #: a secret action (a vote): others see "seat N acted" until the next irreversible step
    secret: bool
    #: the engine's public log lines for this transition
    log: tuple[str, ...]
    #: random salt of a secret action, so that its public hash cannot be used to guess it
    nonce: str | None


@dataclass(frozen=True)
class ActionApplied(ActionAppliedV1):
    VERSION: ClassVar[int] = 2
    #: a secret action's commitment (``pbem.core.chain.secret_commitment`` of its salt, action,
    #: canonical text and text); the hash chain holds it in place of those, so a copy of the
    #: log can leave an unrevealed vote out and still check. None (or absent, as in a raw
    #: payload written in the V1 shape) for a public action.
    commitment: Annotated[
        str | None,
        fields.String(
            load_default=None, allow_none=True, validate=validate.Regexp("^[0-9a-f]{64}$")
        ),
    ] = None


@upcaster(ActionAppliedV1)
def _action_applied_v1_to_v2(old: ActionAppliedV1) -> ActionApplied:
    # A secret action recorded before commitments existed is hashed whole, vote included.
    return ActionApplied(**fields_of(old), commitment=None)


@dataclass(frozen=True)
class ActionsRetracted(Payload):
    TYPE: ClassVar[str] = ACTIONS_RETRACTED
    #: who took the actions back (the requester, for a consented undo)
    seat: int
    #: the UndoRequested version, or None for a seat taking back its own latest actions
    #: and for an upheld dispute (the DisputeResolved right before it says which)
    request: int | None
    to_version: int
    versions: tuple[int, ...]
    channel: Channel
    channel_ref: Ref


@dataclass(frozen=True)
class PlayerResigned(Payload):
    TYPE: ClassVar[str] = PLAYER_RESIGNED
    seat: int
    channel: Channel
    channel_ref: Ref


@dataclass(frozen=True)
class SeatTaken(Payload):
    """A player took an open seat (``pbem.create.open_seats``): the core's ``seats`` read model
    adds the seat, and the ``games`` one counts the seats still open."""

    TYPE: ClassVar[str] = SEAT_TAKEN
    seat: int
    name: str
    email: str
    #: the address had never played: it is mailed an invitation, and nothing else until its
    #: player accepts (as ``GameCreated``'s ``invited``)
    invited: bool
    channel: Channel


@dataclass(frozen=True)
class SeatsClosed(Payload):
    """The organiser started a waiting game with the players who had joined: its open seats
    are closed and the game is played by ``players`` seats. The fold re-initialises the state
    here from the same seed with ``config`` (nothing was played before: no action can come
    before it), so a replay and the offline verifier re-run the game the players played."""

    TYPE: ClassVar[str] = SEATS_CLOSED
    players: int
    #: the config the game is played with from here: GameCreated's for ``players`` players
    #: (``pbem.core.fold.fewer_players_config``)
    config: dict[str, Any]
    channel: Channel


@dataclass(frozen=True)
class GameFinished(Payload):
    TYPE: ClassVar[str] = GAME_FINISHED
    outcome: dict[str, Any]
    #: the seed, revealed: anyone can check it against the commitment and re-run the game
    seed: str
    reason: Annotated[str, validate.OneOf(("rules", "resignation"))]


register(
    GameCreatedV1,
    GameCreatedV2,
    GameCreatedV3,
    GameCreated,
    ActionAppliedV1,
    ActionApplied,
    ActionsRetracted,
    PlayerResigned,
    SeatTaken,
    SeatsClosed,
    GameFinished,
)


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


#: Typed payloads already loaded, by (type, schema version, stored text): a page, a mail or
#: an export reads the same events again and again, and the schema's load (validation and
#: building the dataclass) costs many times the JSON parse. The payloads are frozen
#: dataclasses, so one may be shared; the JSON handed out is made afresh every time (parsed
#: from the stored text, or a copy of an upcast payload's dump), so no reader can change
#: another's, nor the payload.
#: Bounded: emptied when full (the events in use come back at once).
_LOADED: dict[tuple[str, int, str], Payload] = {}
_LOADED_MAX = 8192


def decode_payload(type_: str, schema_version: int, text: str) -> tuple[dict[str, Any], Payload]:
    """A stored payload, validated against its schema and upcast to the current version: as
    JSON and typed."""
    key = (type_, schema_version, text)
    payload = _LOADED.get(key)
    if payload is None:
        payload = _load_payload(type_, schema_version, text)
        if len(_LOADED) >= _LOADED_MAX:
            _LOADED.clear()
        _LOADED[key] = payload
    if schema_version == CURRENT_VERSION[type_]:
        data: dict[str, Any] = json.loads(text)
        return data, payload
    # The dump may hold the payload's own lists (a Raw field): a copy is the reader's.
    return copy.deepcopy(payload.data), payload


def _load_payload(type_: str, schema_version: int, text: str) -> Payload:
    """The typed payload of ``decode_payload``, loaded and upcast."""
    schema = SCHEMAS.get((type_, schema_version))
    if schema is None:
        # A feature's events are known once the composition root has registered them: a
        # script that reads a log without building the service calls register_features().
        raise EventDataError(
            f"unknown event type or schema version: {type_} v{schema_version} (a feature's "
            "events are registered by pbem.app.bootstrap.register_features())"
        )
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
    while schema_version < CURRENT_VERSION[type_]:
        payload = UPCASTERS[(type_, schema_version)](payload)
        schema_version += 1
    return payload


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
        payload instead (``pbem.audit.export``)."""
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
