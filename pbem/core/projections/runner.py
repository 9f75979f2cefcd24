"""The read models, each a projection of the events: ``games``, ``seats``, ``undo_requests``,
``disputes``, ``invitations``, ``deadlines`` (with ``game_clocks``).

A projection is a function of the events just appended to one game's stream (and of the
seats that owe an action after them, which the fold of the log decides); it writes its table
and nothing else. The unit of work runs every projection in the transaction that appends the
events; ``rebuild`` runs them over a whole stream, so a read model can always be rebuilt from
the log alone (``pbem db rebuild-projections``) and checked against it (``pbem replay GAME
--verify``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete
from sqlmodel import Session, SQLModel, select

from pbem.clock import projection as deadlines
from pbem.core.events import StoredEvent
from pbem.core.models import Deadline, Dispute, Game, GameClockState, Invitation, Seat, UndoRequest
from pbem.core.projections import games, seats
from pbem.create import projection as invitations
from pbem.disputes import projection as disputes
from pbem.undo import projection as undo_requests

#: What a projection is given: the session, the game, the events appended (in order), and
#: the seats that owe an action after them.
Projection = Callable[[Session, str, Sequence[StoredEvent], frozenset[int]], None]


@dataclass(frozen=True)
class ReadModel:
    table: type[SQLModel]
    #: the column naming the game
    game_column: str
    #: the columns that identify a row within the game
    key: tuple[str, ...]
    #: None: the table is written by another read model's projection (``game_clocks`` by
    #: the deadlines', which folds the clock the deadlines are computed from)
    project: Projection | None


READ_MODELS: tuple[ReadModel, ...] = (
    ReadModel(Game, "id", ("id",), games.project),
    ReadModel(Seat, "game_id", ("seat",), seats.project),
    ReadModel(UndoRequest, "game_id", ("request",), undo_requests.project),
    ReadModel(Dispute, "game_id", ("dispute",), disputes.project),
    ReadModel(Invitation, "game_id", ("seat",), invitations.project),
    # after ``seats`` and ``invitations``: a game given a time control mid-game reads who
    # resigned and who has yet to accept from them
    ReadModel(Deadline, "game_id", ("seat",), deadlines.project),
    ReadModel(GameClockState, "game_id", ("game_id",), None),
)


def project(
    session: Session, game_id: str, events: Sequence[StoredEvent], to_act: frozenset[int]
) -> None:
    """Every read model, brought up to date with ``events`` (just appended)."""
    for model in READ_MODELS:
        if model.project is not None:
            model.project(session, game_id, events, to_act)
    session.flush()


#: one append's events and the seats that owe an action after them
Batch = tuple[Sequence[StoredEvent], frozenset[int]]


def rebuild(session: Session, game_id: str, batches: Sequence[Batch]) -> None:
    """Delete the game's rows of every read model and project its whole stream again, one
    append at a time (a deadline starts when its seat came to owe a decision)."""
    for model in READ_MODELS:
        column = getattr(model.table, model.game_column)
        session.execute(delete(model.table).where(column == game_id))
    session.flush()
    session.expunge_all()
    deadlines.forget_clocks(session)
    for events, to_act in batches:
        project(session, game_id, events, to_act)


Rows = dict[str, dict[tuple[Any, ...], dict[str, Any]]]


def snapshot_rows(session: Session, game_id: str) -> Rows:
    """The game's rows of every read model: table -> key -> column -> value."""
    out: Rows = {}
    for model in READ_MODELS:
        column = getattr(model.table, model.game_column)
        rows = session.exec(select(model.table).where(column == game_id)).all()
        table = model.table.__table__  # type: ignore[attr-defined]
        columns = [c.name for c in table.columns]
        out[table.name] = {
            tuple(getattr(r, k) for k in model.key): {c: getattr(r, c) for c in columns}
            for r in rows
        }
    return out


def first_difference(stored: Rows, rebuilt: Rows) -> str | None:
    """The first way the stored rows differ from the ones rebuilt from the log, named by
    table, key and column; None when they are equal."""
    for table, rows in rebuilt.items():
        kept = stored.get(table, {})
        for key in sorted(set(rows) | set(kept)):
            name = f"{table} {_key_text(key)}"
            if key not in kept:
                return f"{name}: the row is missing (the log has it)"
            if key not in rows:
                return f"{name}: the row is not in the log (it should not exist)"
            for column, value in rows[key].items():
                if kept[key].get(column) != value:
                    return (
                        f"{name}, column {column}: stored {kept[key].get(column)!r}, "
                        f"the log says {value!r}"
                    )
    return None


def _key_text(key: tuple[Any, ...]) -> str:
    return "(" + ", ".join(map(str, key)) + ")"
