"""The values the game service hands out (and its listeners receive)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from sqlmodel import Session

from engine.core import Rules
from pbem.errors import ServiceError, error_from_json
from pbem.naming import Names, names_for
from pbem.store import StoredEvent


@dataclass(frozen=True)
class SeatInfo:
    seat: int
    name: str
    email: str | None
    resigned: bool


@dataclass(frozen=True)
class CreatedSeat:
    seat: int
    name: str
    email: str | None
    token: str


@dataclass(frozen=True)
class Created:
    id: str
    version: int
    head_hash: str
    seats: tuple[CreatedSeat, ...]
    admin_token: str


@dataclass(frozen=True)
class Loaded:
    """A game at one version: its rules and state (never shown as such: see ``views``)."""

    game_id: str
    game: str
    rules: Rules
    state: Any
    version: int
    head_hash: str
    seats: tuple[SeatInfo, ...]
    finished: bool
    outcome: dict[str, Any] | None
    at_head: bool

    @property
    def to_act(self) -> frozenset[int]:
        # A game the service ended (every other seat resigned) asks nobody to move, though
        # the engine's state still waits for someone.
        return frozenset() if self.finished else self.rules.to_act(self.state)

    def view(self, seat: int | None) -> dict[str, Any]:
        return self.rules.view(self.state, seat)

    @property
    def names(self) -> Names:
        """The seats as people read them ("Ann (Red)"): see ``pbem.naming``."""
        return names_for(self.rules, self.state, [s.name for s in self.seats])

    def legal(self, seat: int) -> list[str]:
        if self.finished:
            return []
        return [
            self.rules.format_action(self.state, a)
            for a in self.rules.legal_actions(self.state, seat)
        ]


@dataclass(frozen=True)
class Applied:
    version: int
    seat: int
    text: str
    canonical: str
    #: 1-based line of the submission; 0 for an action the service played (resigned seat)
    line: int


@dataclass(frozen=True)
class SubmitResult:
    game_id: str
    version: int
    applied: tuple[Applied, ...]
    finished: bool
    #: the error that stopped a multi-line submission after some lines were applied
    error: ServiceError | None = None
    #: True when this is the stored result of an earlier submission with the same key
    replayed: bool = False
    #: the game right after this submission (not for replayed results)
    loaded: Loaded | None = field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "version": self.version,
            "applied": [a.__dict__ for a in self.applied],
            "finished": self.finished,
            "error": self.error.to_json() if self.error else None,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], replayed: bool = False) -> SubmitResult:
        return cls(
            game_id=data["game_id"],
            version=data["version"],
            applied=tuple(Applied(**a) for a in data["applied"]),
            finished=data["finished"],
            error=error_from_json(data["error"]) if data["error"] else None,
            replayed=replayed,
        )


@dataclass(frozen=True)
class AppendContext:
    """What a listener gets, inside the write transaction, after events were appended."""

    session: Session
    game_id: str
    game: str
    events: tuple[StoredEvent, ...]
    rules: Rules
    state_before: Any
    state_after: Any
    version: int
    head_hash: str
    seats: tuple[SeatInfo, ...]

    @property
    def names(self) -> Names:
        return names_for(self.rules, self.state_after, [s.name for s in self.seats])


class Listener(Protocol):
    def on_appended(self, ctx: AppendContext) -> None: ...
