"""What the application service's commands answer: a created game with its seat tokens, a
submission's result (stored for idempotent retries), an undo's result."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pbem.core.errors import ServiceError, error_from_json
from pbem.core.repository import Loaded


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
    #: the seats left open for players to join (``pbem.create.open_seats``)
    open_seats: tuple[int, ...] = ()
    #: the key of the game's join link (shown once), when it has open seats
    join_key: str | None = None


@dataclass(frozen=True)
class Joined:
    """A player took an open seat: its seat, its token (shown once) and whether the game
    started with it (the last seat taken)."""

    game_id: str
    seat: int
    name: str
    email: str
    token: str
    #: the address had never played: an invitation was mailed to it
    invited: bool
    started: bool
    #: seats still open after this one
    open_seats: int


@dataclass(frozen=True)
class OpenUndoRequest:
    """The undo request waiting for answers, as a seat's page shows it."""

    #: its number (the version of its UndoRequested event)
    request: int
    #: the seat that asked
    seat: int
    #: the version the game would go back to
    to_version: int
    #: the seats that agreed so far, and those whose answer is still awaited
    accepted: tuple[int, ...]
    waiting: tuple[int, ...]


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
    #: the seat's invitation was accepted in this submission's transaction (``submit``'s
    #: ``accept_invitation``; not kept for replayed results)
    invitation_accepted: bool = field(default=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "version": self.version,
            "applied": [a.__dict__ for a in self.applied],
            "finished": self.finished,
            "error": self.error.to_record() if self.error else None,
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
class UndoResult:
    game_id: str
    version: int
    #: retracted | requested | accepted (waiting for others) | declined
    status: str
    request: int | None
    retracted: tuple[int, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "version": self.version,
            "status": self.status,
            "request": self.request,
            "retracted": list(self.retracted),
        }
