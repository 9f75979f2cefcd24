"""The read models, each a projection of the events: the core's ``games`` and ``seats``, and
those the features register (``register_read_models``): ``undo_requests``, ``disputes``,
``invitations``, ``deadlines`` (with ``game_clocks``), registered by the composition root
(``pbem.app.bootstrap.register_features``), so this module names no feature.

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

from pbem.core.events import StoredEvent
from pbem.core.models import Game, Seat
from pbem.core.projections import games, seats

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
    #: For a table of at most one row per game (where ``preload_where`` holds) that the
    #: appends read: given that row (None when the game has none) when a write transaction
    #: locks the game, read together with the game's row (``pbem.core.unit_of_work``: one
    #: query, not one more per append), to keep for the projection, the lapse rules and the
    #: mails.
    preload: Callable[[Session, str, Any], None] | None = None
    #: ``(column, value)`` pairs the preloaded row also matches, picking the game's one row
    #: among its others (e.g. its undo request still open)
    preload_where: tuple[tuple[str, Any], ...] = ()
    #: Forgets what the projection kept of the transaction's reads (``rebuild`` is about to
    #: rewrite its table).
    forget: Callable[[Session], None] | None = None


#: The read models, in the order they are projected: the core's own, then each one
#: registered (a projection may read the rows of those before it).
_READ_MODELS: list[ReadModel] = [
    ReadModel(Game, "id", ("id",), games.project),
    ReadModel(Seat, "game_id", ("seat",), seats.project),
]


def register_read_models(*models: ReadModel) -> None:
    """Add a feature's read models after those registered before (the order they are
    projected in). Registering one again changes nothing (the composition root registers
    them each time it builds a service); another read model of the same table is refused."""
    for model in models:
        if model in _READ_MODELS:
            continue
        if any(known.table is model.table for known in _READ_MODELS):
            raise ValueError(f"{model.table.__name__} already has a read model")
        _READ_MODELS.append(model)


def read_models() -> tuple[ReadModel, ...]:
    """Every read model registered, in the order they are projected."""
    return tuple(_READ_MODELS)


def preloaded() -> tuple[ReadModel, ...]:
    """The read models whose row a write transaction reads with the game's (``preload``)."""
    return tuple(model for model in _READ_MODELS if model.preload is not None)


def project(
    session: Session, game_id: str, events: Sequence[StoredEvent], to_act: frozenset[int]
) -> None:
    """Every read model, brought up to date with ``events`` (just appended)."""
    for model in read_models():
        if model.project is not None:
            model.project(session, game_id, events, to_act)
    session.flush()


#: one append's events and the seats that owe an action after them
Batch = tuple[Sequence[StoredEvent], frozenset[int]]


def rebuild(session: Session, game_id: str, batches: Sequence[Batch]) -> None:
    """Delete the game's rows of every read model and project its whole stream again, one
    append at a time (a deadline starts when its seat came to owe a decision)."""
    models = read_models()
    for model in models:
        column = getattr(model.table, model.game_column)
        session.execute(delete(model.table).where(column == game_id))
    session.flush()
    session.expunge_all()
    for model in models:
        if model.forget is not None:
            model.forget(session)
    for events, to_act in batches:
        project(session, game_id, events, to_act)


Rows = dict[str, dict[tuple[Any, ...], dict[str, Any]]]


def snapshot_rows(session: Session, game_id: str) -> Rows:
    """The game's rows of every read model: table -> key -> column -> value."""
    out: Rows = {}
    for model in read_models():
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
