"""What every event type shares: the ``Payload`` base of the typed events, the schema each
one's is derived from its dataclass, and the registries of schemas by (type, schema version)
and of the upcasters from one version to the next.

An event is declared once, as a frozen dataclass per schema version (``TYPE`` its stored
name, ``VERSION`` its schema version); ``register`` derives its marshmallow schema from the
fields' types, so the stored form is exactly the dataclass's fields:

- ``int`` is a strict integer, ``str`` text, ``bool`` a boolean, ``dict[str, Any]`` a JSON
  object, ``tuple[X, ...]`` a JSON list (read back as a tuple), a dataclass a nested object;
  ``X | None`` may be null. Every field is required.
- ``Annotated[X, validator, …]`` adds marshmallow validators (``Channel`` below is one), and
  ``Annotated[X, some_field]`` with a marshmallow field instance uses that field as it is
  (e.g. one with a ``load_default``, or a field type of its own).

Schemas never change once events are stored with them: a new shape is a new dataclass of
the next version, registered beside the old one, with an ``upcaster`` from the old one.

Kept apart from ``pbem.core.events`` so that a feature's event types (``pbem.clock.events``,
``pbem.undo.events`` …) are declared the same way without importing it: the composition root
registers them (``pbem.app.bootstrap.register_features``), so the core names no feature.
"""

from __future__ import annotations

import copy
import dataclasses
import types
from collections.abc import Callable
from typing import (
    Annotated,
    Any,
    ClassVar,
    TypeVar,
    Union,
    cast,
    get_args,
    get_origin,
    get_type_hints,
)

from marshmallow import RAISE, Schema, fields, post_load, validate

CHANNELS = ("api", "web", "email", "cli", "deadline", "auto")
"""Ways an action arrives. ``auto``: played by the service for a seat that resigned."""

#: how an event came: one of ``CHANNELS``
Channel = Annotated[str, validate.OneOf(CHANNELS)]
#: what the channel names it by (e.g. the email's Message-ID), or None
Ref = str | None

#: (type, schema version) -> its schema; filled by ``register``
SCHEMAS: dict[tuple[str, int], Schema] = {}
#: type -> the schema version new events are written in (the highest registered)
CURRENT_VERSION: dict[str, int] = {}
#: the types of the events that give a seat another player (``SeatPlayerChanged``), so that a
#: projection can pick them out by type without decoding every payload; filled by ``register``
SEAT_PLAYER_CHANGES: set[str] = set()
#: (type, from schema version) -> function turning that version's typed payload into the next's
UPCASTERS: dict[tuple[str, int], Callable[[Any], Payload]] = {}


class Payload:
    """Base of the event types: ``TYPE`` is the stored type name, ``VERSION`` the schema
    version of this dataclass."""

    TYPE: ClassVar[str]
    VERSION: ClassVar[int] = 1

    @property
    def type(self) -> str:
        return self.TYPE

    @property
    def data(self) -> dict[str, Any]:
        """The payload as stored (JSON-ready), in this dataclass's schema version."""
        dumped: dict[str, Any] = SCHEMAS[(self.TYPE, self.VERSION)].dump(self)
        return dumped


class PositionNeutral(Payload):
    """Base of the event types that change nothing on the board: a reply made before one of
    them still answers the same position (a dispute's steps, the clock's events)."""


class SeatPlayerChanged(PositionNeutral):
    """Base of the event types that give a seat another player (a substitute,
    ``pbem.handover``): the core's ``seats`` read model takes the seat's new name and address
    from them, so the core names no feature. Its dataclass declares ``seat``, ``new_name``
    and ``new_email``."""

    seat: int
    new_name: str
    new_email: str


class Epilogue(PositionNeutral):
    """Base of the bookkeeping event types that may follow a game's end (a rematch proposed,
    agreed to, started; table talk in the day after the end): replay and the verifiers check
    the game up to its ``GameFinished`` and accept these after it (the offline verifier by
    their type names, ``pbem.audit.verify.EPILOGUE``)."""


def register(*classes: type[Payload]) -> None:
    """Derive and register the schema of each event dataclass (one per schema version).

    Registering a class again changes nothing (the composition root registers the features'
    events each time it builds a service); another class of the same type and version is
    refused."""
    for cls in classes:
        key = (cls.TYPE, cls.VERSION)
        if key in SCHEMAS:
            if _DERIVED.get(cls) is type(SCHEMAS[key]):
                continue
            raise ValueError(f"{cls.TYPE} v{cls.VERSION} is registered twice")
        SCHEMAS[key] = schema_for(cls)()
        if issubclass(cls, SeatPlayerChanged):
            SEAT_PLAYER_CHANGES.add(cls.TYPE)
        CURRENT_VERSION[cls.TYPE] = max(cls.VERSION, CURRENT_VERSION.get(cls.TYPE, 0))


_Old = TypeVar("_Old", bound=Payload)


def upcaster(
    old: type[_Old],
) -> Callable[[Callable[[_Old], Payload]], Callable[[_Old], Payload]]:
    """Register the decorated function as the upcaster from ``old``'s version to the next."""

    def add(function: Callable[[_Old], Payload]) -> Callable[[_Old], Payload]:
        UPCASTERS[(old.TYPE, old.VERSION)] = function
        return function

    return add


def fields_of(payload: Any) -> dict[str, Any]:
    """A dataclass's fields by name, as they are (nested dataclasses stay dataclasses)."""
    return {f.name: getattr(payload, f.name) for f in dataclasses.fields(payload)}


class _Derived(Schema):
    """Base of the derived schemas: unknown fields are refused, and a load gives the
    dataclass (lists of tuple fields as tuples)."""

    _dataclass: ClassVar[type]
    _tuples: ClassVar[frozenset[str]]

    class Meta:
        unknown = RAISE

    @post_load
    def _typed(self, data: dict[str, Any], **_: Any) -> Any:
        return self._dataclass(**{k: tuple(v) if k in self._tuples else v for k, v in data.items()})


_DERIVED: dict[type, type[Schema]] = {}


def schema_for(cls: type) -> type[Schema]:
    """The schema class derived from a dataclass (see the module's docstring)."""
    if cls in _DERIVED:
        return _DERIVED[cls]
    hints = get_type_hints(cls, include_extras=True)
    declared = {f.name: _field(hints[f.name], f"{cls.__name__}.{f.name}", top=True)
                for f in dataclasses.fields(cls)}  # fmt: skip
    schema = cast(type[_Derived], _Derived.from_dict(declared, name=f"{cls.__name__}Schema"))
    schema._dataclass = cls
    schema._tuples = frozenset(
        f.name for f in dataclasses.fields(cls) if get_origin(_bare(hints[f.name])) is tuple
    )
    _DERIVED[cls] = schema
    return schema


def _bare(hint: Any) -> Any:
    """The type without its Annotated extras, and without ``| None``."""
    if get_origin(hint) is Annotated:
        hint = get_args(hint)[0]
    if get_origin(hint) in (Union, types.UnionType):
        (hint,) = (a for a in get_args(hint) if a is not type(None))
    return hint


def _field(hint: Any, where: str, top: bool = False) -> fields.Field[Any]:
    extras: tuple[Any, ...] = ()
    if get_origin(hint) is Annotated:
        hint, *rest = get_args(hint)
        extras = tuple(rest)
    given = [e for e in extras if isinstance(e, fields.Field)]
    if given:
        # A field of its own: used as declared (copied: a field belongs to one schema).
        return copy.deepcopy(given[0])
    options: dict[str, Any] = {"required": True} if top else {}
    if extras:
        options["validate"] = list(extras)
    if get_origin(hint) in (Union, types.UnionType):
        options["allow_none"] = True
        hint = _bare(hint)
    if hint is bool:
        return fields.Boolean(**options)
    if hint is int:
        return fields.Integer(strict=True, **options)
    if hint is str:
        return fields.String(**options)
    if get_origin(hint) is dict and get_args(hint)[0] is str:
        return fields.Dict(keys=fields.String(), **options)
    if get_origin(hint) is tuple and len(args := get_args(hint)) == 2 and args[1] is Ellipsis:
        return fields.List(_field(args[0], where), **options)
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return fields.Nested(schema_for(hint), **options)
    raise TypeError(f"{where}: no stored form for {hint!r}: give it a marshmallow field")
