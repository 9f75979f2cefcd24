"""What every event type shares: the ``Payload`` base of the typed events, the strict schema
base and field helpers, and the registry of schemas by (type, schema version).

Kept apart from ``pbem.events`` so that event types defined in other modules (the clock's,
``pbem.clock_events``) register the same way without importing it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from marshmallow import RAISE, Schema, fields, validate

CHANNELS = ("api", "web", "email", "cli", "deadline", "auto")
"""Ways an action arrives. ``auto``: played by the service for a seat that resigned."""


#: (type, schema version) -> its schema; filled by ``register``
SCHEMAS: dict[tuple[str, int], Schema] = {}
#: type -> the schema version new events are written in (the highest registered)
CURRENT_VERSION: dict[str, int] = {}


def register(schemas: Mapping[tuple[str, int], Schema]) -> None:
    for (type_, version), schema in schemas.items():
        SCHEMAS[(type_, version)] = schema
        CURRENT_VERSION[type_] = max(version, CURRENT_VERSION.get(type_, 0))


class Payload:
    """Base of the event types: ``TYPE`` is the stored type name."""

    TYPE: ClassVar[str]

    @property
    def type(self) -> str:
        return self.TYPE

    @property
    def data(self) -> dict[str, Any]:
        """The payload as stored (JSON-ready), in the current schema version."""
        dumped: dict[str, Any] = SCHEMAS[(self.TYPE, CURRENT_VERSION[self.TYPE])].dump(self)
        return dumped


class _Strict(Schema):
    class Meta:
        unknown = RAISE


def _int() -> fields.Integer:
    return fields.Integer(required=True, strict=True)


def _channel() -> fields.String:
    return fields.String(required=True, validate=validate.OneOf(CHANNELS))


def _ref() -> fields.String:
    return fields.String(required=True, allow_none=True)
