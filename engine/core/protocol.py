"""The engine contract every game implements (see shared DESIGN.md, "The engine contract").

An engine is pure: no I/O, no clock, no environment, no module-level mutable state and never
the ``random`` module. Given the same config, seed and actions it returns the same states on
every machine.

Actions are *JSON-able tuples*: tuples whose items are ``str``, ``int``, ``bool``, ``None`` or
nested tuples of those. ``action_to_json`` / ``action_from_json`` convert them for storage and
``action_sort_key`` gives the one order in which ``legal_actions`` must return them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, TypeAlias, runtime_checkable

Seat: TypeAlias = int
Action: TypeAlias = tuple[Any, ...]
JSON: TypeAlias = Any


class Transition(NamedTuple):
    """The result of ``Rules.apply``.

    ``log`` holds public, human-readable lines describing what happened (including any choice
    the engine took automatically because it had only one option); it never holds hidden
    information. ``irreversible`` is true when the step drew randomness or revealed hidden
    information: undo can never cross such a step.
    """

    state: Any
    log: tuple[str, ...]
    irreversible: bool


@dataclass(frozen=True)
class Outcome:
    """A finished game's result; every sequence is indexed by seat."""

    scores: tuple[int, ...]
    winners: tuple[Seat, ...]
    breakdown: tuple[Mapping[str, Any], ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        return {
            "scores": list(self.scores),
            "winners": list(self.winners),
            "breakdown": [dict(b) for b in self.breakdown],
        }


@dataclass(frozen=True)
class ChoiceOption:
    """One thing the seat can do now: a button on a page, a link in a mail.

    ``label`` says what it does in the board's words, whole enough to be read alone ("Place
    knight 2 in York (C): 1 new knight + 2 voting markers", "No upgrade"); ``text`` is the
    canonical notation of ``action`` (``format_action``), what a form or a mail line submits;
    ``place`` names where on the board the choice is made, in the game's own words
    ("county C", "castle 2", "conflict 7", "G7"), or None when it is made nowhere in
    particular (a vote, a decline), so a drawn board can highlight it without reading
    notation.
    """

    label: str
    action: Action
    text: str
    place: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "action": action_to_json(self.action),
            "text": self.text,
            "place": self.place,
        }


@dataclass(frozen=True)
class ChoiceGroup:
    """A labelled step of a decision: its options, and the steps nested in it where a
    decision is made in steps (which knight, then where, then how many squires)."""

    label: str
    options: tuple[ChoiceOption, ...] = ()
    groups: tuple[ChoiceGroup, ...] = ()
    place: str | None = None

    def all_options(self) -> Iterator[ChoiceOption]:
        """Every option of the group and of its nested steps, depth first."""
        yield from self.options
        for group in self.groups:
            yield from group.all_options()

    def size(self) -> int:
        return len(self.options) + sum(g.size() for g in self.groups)

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "place": self.place,
            "options": [o.to_json() for o in self.options],
            "groups": [g.to_json() for g in self.groups],
        }


@dataclass(frozen=True)
class Choices:
    """A seat's decision now, as ``Rules.choices`` gives it: labelled groups of options, each
    option one legal action (every legal action exactly once). Built from the state and the
    seat's own view only: it never says what the seat may not see. Empty when the seat has
    nothing to decide."""

    groups: tuple[ChoiceGroup, ...] = ()

    def all_options(self) -> Iterator[ChoiceOption]:
        for group in self.groups:
            yield from group.all_options()

    def size(self) -> int:
        return sum(g.size() for g in self.groups)

    def to_json(self) -> dict[str, Any]:
        return {"groups": [g.to_json() for g in self.groups]}


class EngineError(Exception):
    """Base of the errors an engine raises; the message is meant for a player."""


class ConfigError(EngineError):
    """The game config is invalid; the message says which key and what is allowed."""


class ActionSyntaxError(EngineError):
    """The text could not be read as an action.

    ``can_type`` lists examples of what the seat could type now (possibly abbreviated).
    """

    def __init__(self, message: str, can_type: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.can_type: tuple[str, ...] = tuple(can_type)


class IllegalActionError(EngineError):
    """The action is well formed but the rules forbid it; the message names the rule."""


class NotYourTurnError(EngineError):
    """The seat does not owe an action now."""


@runtime_checkable
class Rules(Protocol):
    """One game's rules. Instances are stateless; every method is a pure function."""

    name: str
    version: str
    #: player counts the game supports, e.g. (2, 3, 4, 5)
    player_counts: tuple[int, ...]

    def validate_config(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """Check a config and return it normalised (defaults filled); raise ConfigError."""
        ...

    def initial_state(self, config: Mapping[str, Any], seed: int) -> Any: ...

    def to_act(self, state: Any) -> frozenset[Seat]:
        """Seats that owe an action now; empty when the game is over."""
        ...

    def legal_actions(self, state: Any, seat: Seat) -> tuple[Action, ...]:
        """Every legal action of ``seat``, sorted by ``action_sort_key``; () if not to act."""
        ...

    def apply(self, state: Any, seat: Seat, action: Action) -> Transition:
        """Apply a legal action; never mutates ``state``. Raises NotYourTurnError or
        IllegalActionError (with the reason) otherwise."""
        ...

    def view(self, state: Any, seat: Seat | None) -> dict[str, Any]:
        """What ``seat`` may see (None: a spectator); JSON-ready, never the seed or RNG."""
        ...

    def auto_action(self, state: Any, seat: Seat) -> Action:
        """The deadline default: deterministic and always legal."""
        ...

    def outcome(self, state: Any) -> Outcome | None: ...

    def parse_action(self, state: Any, seat: Seat, text: str) -> Action:
        """Read a player's text; raise ActionSyntaxError or IllegalActionError."""
        ...

    def format_action(self, state: Any, action: Action) -> str:
        """Canonical text of an action: ``parse_action(format_action(a)) == a``."""
        ...

    def choices(self, state: Any, seat: Seat) -> Choices:
        """``seat``'s decision as labelled groups and options (every legal action exactly
        once); ``Choices()`` when it has none. Pages and mails build their buttons and links
        from it, never from notation. ``default_choices`` serves a game with nothing better."""
        ...

    def dump_state(self, state: Any) -> dict[str, Any]: ...

    def load_state(self, data: Mapping[str, Any]) -> Any: ...

    # -- extras beyond the design's list, used by the service and the contract suite --

    def contract_configs(self) -> tuple[dict[str, Any], ...]:
        """Configs covering every supported player count and variant (for the contract
        suite and benchmarks)."""
        ...

    def is_secret(self, state: Any, seat: Seat, action: Action) -> bool:
        """True when other seats must not see this action until the next irreversible
        transition (a secret vote). The service shows it only as "seat N acted"."""
        ...

    def render_text(self, view: Mapping[str, Any]) -> str:
        """A plain-text rendering of a view (for emails and the CLI)."""
        ...

    # A game may also offer ``is_legal(state, seat, action) -> bool``, exactly ``action in
    # legal_actions(state, seat)`` but cheaper (Lancaster's does not sort the options): the
    # offline verifier's fold uses it when present, and the contract suite checks that it
    # agrees with legal_actions. It is not part of the Protocol, so that games without it
    # (and rules doubles in tests) still are Rules.


def _json_of(item: Any) -> Any:
    if isinstance(item, tuple):
        return [_json_of(x) for x in item]
    return item


def _tuple_of(item: Any) -> Any:
    if isinstance(item, list):
        return tuple(_tuple_of(x) for x in item)
    return item


def action_to_json(action: Action) -> list[Any]:
    """An action as a JSON list (tuples become lists)."""
    result = _json_of(action)
    assert isinstance(result, list)
    return result


def action_from_json(data: Sequence[Any]) -> Action:
    """Inverse of ``action_to_json``."""
    result = _tuple_of(list(data))
    assert isinstance(result, tuple)
    return result


def _key_of(item: Any) -> tuple[Any, ...]:
    # Items of different types must still compare, so each is tagged with a type rank.
    if item is None:
        return (0, 0)
    if isinstance(item, bool):
        return (1, int(item))
    if isinstance(item, int):
        return (2, item)
    if isinstance(item, str):
        return (3, item)
    if isinstance(item, tuple):
        return (4, tuple(_key_of(x) for x in item))
    raise TypeError(f"action items must be str, int, bool, None or tuples, not {item!r}")


def action_sort_key(action: Action) -> tuple[Any, ...]:
    """The total order ``legal_actions`` must follow."""
    return tuple(_key_of(x) for x in action)


def sentence(text: str) -> str:
    """``text`` with a capital first letter."""
    return text[:1].upper() + text[1:]


def default_choices(rules: Rules, state: Any, seat: Seat) -> Choices:
    """The choices of a game that words none of its own: one group, a button per legal action
    saying its canonical text."""
    legal = rules.legal_actions(state, seat)
    if not legal:
        return Choices()
    options = []
    for action in legal:
        text = rules.format_action(state, action)
        options.append(ChoiceOption(sentence(text), action, text))
    return Choices((ChoiceGroup("Your move", tuple(options)),))


def choices_of(rules: Rules, state: Any, seat: Seat) -> Choices:
    """``rules.choices``, or ``default_choices`` for a game object that defines none (a rules
    double in a test, a game added before it words its choices)."""
    method = getattr(rules, "choices", None)
    if method is None:
        return default_choices(rules, state, seat)
    result: Choices = method(state, seat)
    return result
