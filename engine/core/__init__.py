"""The engine core: the Rules contract, errors, random generator and notation helpers, and
``records.replace`` (``dataclasses.replace`` for the games' frozen states, faster)."""

from engine.core.protocol import (
    JSON,
    Action,
    ActionSyntaxError,
    ConfigError,
    EngineError,
    IllegalActionError,
    NotYourTurnError,
    Outcome,
    Rules,
    Seat,
    Transition,
    action_from_json,
    action_sort_key,
    action_to_json,
)

__all__ = [
    "JSON",
    "Action",
    "ActionSyntaxError",
    "ConfigError",
    "EngineError",
    "IllegalActionError",
    "NotYourTurnError",
    "Outcome",
    "Rules",
    "Seat",
    "Transition",
    "action_from_json",
    "action_sort_key",
    "action_to_json",
]
