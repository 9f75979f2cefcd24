"""The one fold of a game's log through its rules, in the standard library and the engine
alone: the service's replay (``pbem.core.replay``, ``pbem.core.repository``) and the offline
verifier (``pbem.audit.verify``, which runs where only the engine is installed) both fold with
it, so the two can never disagree about what a log means.

The fold applies every ``ActionApplied`` in order; ``ActionsRetracted`` returns to the state
before the first retracted action (retractions always take back the latest effective
actions, so that state is on the fold's stack). Other events do not change the state.

It reads an event by attribute (``version``, ``type``, ``payload``) and, of its payload, only
what ``Action`` and ``Retraction`` below name: the service passes its typed events
(``pbem.core.events.StoredEvent``), the verifier the events of a bundle.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from engine.core import EngineError, Rules, action_from_json
from pbem.core.chain import ACTION_APPLIED, canonical_json

ACTIONS_RETRACTED = "ActionsRetracted"
SEATS_CLOSED = "SeatsClosed"


class Action(Protocol):
    """What the fold reads of an ``ActionApplied`` payload."""

    @property
    def seat(self) -> int: ...
    @property
    def action(self) -> Any: ...
    @property
    def canonical(self) -> str: ...
    @property
    def irreversible(self) -> bool: ...
    @property
    def secret(self) -> bool: ...
    @property
    def log(self) -> Sequence[str]: ...


class Retraction(Protocol):
    """What the fold reads of an ``ActionsRetracted`` payload."""

    @property
    def to_version(self) -> int: ...
    @property
    def versions(self) -> Sequence[int]: ...


class Closing(Protocol):
    """What the fold reads of a ``SeatsClosed`` payload."""

    @property
    def players(self) -> int: ...
    @property
    def config(self) -> Mapping[str, Any]: ...


class Event(Protocol):
    @property
    def version(self) -> int: ...
    @property
    def type(self) -> str: ...
    @property
    def payload(self) -> Any: ...


class FoldError(Exception):
    """The events cannot be folded (the log is inconsistent with the rules)."""

    def __init__(self, version: int, message: str) -> None:
        super().__init__(f"version {version}: {message}")
        self.version = version
        self.message = message


class Fold:
    """The state of one game as events are folded in, from a base state at a base version."""

    def __init__(
        self,
        rules: Rules,
        state: Any,
        version: int,
        *,
        seed: int | None = None,
        config: Mapping[str, Any] | None = None,
    ) -> None:
        """``seed`` and ``config`` (GameCreated's): what a ``SeatsClosed`` re-initialises the
        state with; a fold from a later base has neither, and none is met after it."""
        self.rules = rules
        self.state = state
        self.version = version
        self._seed = seed
        self._config = config
        # (version of an effective action, the state before it): what a retraction restores.
        self._stack: list[tuple[int, Any]] = []
        # Whether an action is one of ``legal_actions``: a game may offer ``is_legal``, the
        # same answer without building (and sorting) every legal action at every step.
        self._is_legal: Callable[[Any, int, Any], bool] = getattr(
            rules,
            "is_legal",
            lambda state, seat, action: action in rules.legal_actions(state, seat),
        )

    @classmethod
    def from_start(cls, rules: Rules, config: Mapping[str, Any], seed: int) -> Fold:
        """The state right after GameCreated (version 1)."""
        return cls(rules, rules.initial_state(config, seed), 1, seed=seed, config=config)

    def apply(self, event: Event, *, check: bool = False) -> None:
        """Fold one event in. ``check``: also check that an action was legal where it was
        played, and that its recorded canonical text, log and flags are what the rules say
        now (verifying a log; the service trusts what it appended itself)."""
        if event.version != self.version + 1:
            raise FoldError(event.version, f"expected version {self.version + 1}")
        if event.type == ACTION_APPLIED:
            after = self._act(event.version, event.payload, check)
            self._stack.append((event.version, self.state))
            self.state = after
        elif event.type == ACTIONS_RETRACTED:
            self.state = self._retract(event.version, event.payload)
        elif event.type == SEATS_CLOSED:
            self.state = self._close_seats(event.version, event.payload, check)
        self.version = event.version

    def _close_seats(self, version: int, p: Closing, check: bool) -> Any:
        """The game started with the players who joined: the same seed, the reduced config.
        Safe only because nothing was played: an action before it is refused."""
        if self._stack:
            raise FoldError(version, "seats are closed after actions were played")
        if self._seed is None or self._config is None:
            raise FoldError(version, "closing seats needs the fold from the game's start")
        try:
            if check:
                # The recorded config must be the created one for that many players: an
                # organiser cannot change the game by starting it.
                expected = fewer_players_config(self.rules, self._config, p.players)
                if canonical_json(expected) != canonical_json(p.config):
                    raise FoldError(
                        version, "the recorded config is not the game's with fewer players"
                    )
            return self.rules.initial_state(p.config, self._seed)
        except (EngineError, AttributeError, KeyError, TypeError, ValueError) as e:
            raise FoldError(version, f"the rules refuse the closed seats: {e}") from e

    def _act(self, version: int, p: Action, check: bool) -> Any:
        rules, state = self.rules, self.state
        # A payload the service did not validate (a bundle's) may lack a field or hold
        # something else: when checking, that is refused like an action the rules refuse.
        refused: tuple[type[Exception], ...] = (EngineError,)
        if check:
            refused = (EngineError, AttributeError, KeyError, TypeError, ValueError)
        try:
            seat, action = p.seat, action_from_json(p.action)
            if check:
                if seat not in rules.to_act(state):
                    raise FoldError(version, f"seat {seat} was not to act")
                if not self._is_legal(state, seat, action):
                    raise FoldError(version, f"{p.canonical!r} was not legal for seat {seat}")
                if rules.format_action(state, action) != p.canonical:
                    raise FoldError(
                        version, "the recorded canonical text differs from the engine's"
                    )
            transition = rules.apply(state, seat, action)
            if check:
                engine_says = (
                    transition.irreversible,
                    rules.is_secret(state, seat, action),
                    list(transition.log),
                )
                if engine_says != (p.irreversible, p.secret, list(p.log)):
                    raise FoldError(version, "the recorded flags or log differ from the engine's")
        except refused as e:
            raise FoldError(version, f"the rules refuse this action: {e}") from e
        return transition.state

    def _retract(self, version: int, p: Retraction) -> Any:
        popped: list[int] = []
        restored = None
        while self._stack and self._stack[-1][0] > p.to_version:
            popped_version, restored = self._stack.pop()
            popped.append(popped_version)
        if not popped:
            raise FoldError(version, "retracts no action that is on the fold")
        if sorted(popped) != sorted(p.versions):
            raise FoldError(
                version,
                f"retracts versions {list(p.versions)} but the actions after version "
                f"{p.to_version} are {sorted(popped)}",
            )
        return restored

    def outcome_json(self) -> Any:
        """The rules' outcome of the state as JSON (None while the game goes on)."""
        outcome = self.rules.outcome(self.state)
        return None if outcome is None else json.loads(canonical_json(outcome.to_json()))

    def check_outcome(self, version: int, recorded: Any) -> None:
        """A ``GameFinished`` by the rules at ``version``: the game is over by the rules, with
        the recorded outcome."""
        outcome = self.outcome_json()
        if self.rules.to_act(self.state) or outcome is None:
            raise FoldError(version, "GameFinished recorded but the rules say the game goes on")
        if outcome != recorded:
            raise FoldError(version, "the recorded outcome differs from the engine's")


def fewer_players_config(rules: Rules, created: Mapping[str, Any], players: int) -> Any:
    """GameCreated's config for a game started with ``players``, fewer than its seats: what
    the rules had filled in by default for the created count is filled in again for the new
    one (Lancelot's target: 9 for four players, 7 for two), what the organiser chose stays.
    A choice equal to the old count's default reads as that default (decided here: the
    normalised config no longer says which it was). The service (``pbem.create.open_seats``)
    records it in ``SeatsClosed``, and the fold checks the recorded one against it."""
    defaults = rules.validate_config({"players": created["players"]})
    chosen = {k: v for k, v in created.items() if k != "players" and defaults.get(k) != v}
    return rules.validate_config({**chosen, "players": players})


def state_hash(rules: Rules, state: Any) -> str:
    """A fingerprint of a state: sha256 of its canonical dump."""
    return hashlib.sha256(canonical_json(rules.dump_state(state)).encode()).hexdigest()
