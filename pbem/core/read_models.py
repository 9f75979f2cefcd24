"""Rebuilding the read models from the log, and checking the stored rows against the log:
``pbem db rebuild-projections`` and the read-model part of ``pbem replay GAME --verify``."""

from __future__ import annotations

from sqlmodel import Session, col, select

from engine.core import Rules
from engine.core.registry import Registry
from pbem.core import events as ev
from pbem.core import store
from pbem.core.db import Database
from pbem.core.models import Event
from pbem.core.projections import runner as projections
from pbem.core.projections.games import open_after
from pbem.core.repository import Repository


class _RollBack(Exception):
    """Leaves a write transaction without committing it."""


def rebuild_game(session: Session, game_id: str, registry: Registry) -> None:
    """The game's rows of every read model, deleted and projected again from its events."""
    events = store.read(session, game_id)
    if not events:
        return
    created = events[0].payload
    assert isinstance(created, ev.GameCreated)
    rules = registry.release(created.game, created.rules_version)
    projections.rebuild(session, game_id, appends(session, rules, events))


def appends(
    session: Session, rules: Rules, events: list[ev.StoredEvent]
) -> list[projections.Batch]:
    """The log cut into its appends, each with the seats that owed an action after it.

    The events of one append share their recorded time, so that is where the log is cut.
    Two appends recorded in the same microsecond (a stopped test clock) are read as one.
    The deadline fold gives the same rows either way for moves (a decision of no length);
    a DeadlineMissed, DeadlineExtended or TimeControlSet in the same microsecond as the
    append that began the decision may still fold differently."""
    fold = Repository.fold_from_start(session, rules, events[:1])
    batches: list[projections.Batch] = []
    current: list[ev.StoredEvent] = [events[0]]
    open_seats = 0

    def owing() -> frozenset[int]:
        # A game waiting for players asks nobody (as the unit of work decides).
        nonlocal open_seats
        open_seats = open_after(open_seats, current)
        return frozenset() if open_seats else rules.to_act(fold.state)

    for e in events[1:]:
        if e.recorded_at != current[-1].recorded_at:
            batches.append((current, owing()))
            current = []
        fold.apply(e)
        current.append(e)
    batches.append((current, owing()))
    return batches


def game_ids(db: Database) -> list[str]:
    with db.read() as session:
        return list(session.exec(select(Event.game_id).distinct().order_by(col(Event.game_id))))


def rebuild_all(db: Database, registry: Registry) -> int:
    """Every game's read models rebuilt, one transaction per game; returns the count."""
    ids = game_ids(db)
    for game_id in ids:
        with db.write() as session:
            rebuild_game(session, game_id, registry)
    return len(ids)


def first_difference(db: Database, game_id: str, registry: Registry) -> str | None:
    """The first stored read-model row of the game that differs from the one its log gives
    (table, key, column), or None. Nothing is changed: the rebuild is rolled back."""
    found: list[str | None] = []
    try:
        with db.write() as session:
            stored = projections.snapshot_rows(session, game_id)
            rebuild_game(session, game_id, registry)
            found.append(
                projections.first_difference(stored, projections.snapshot_rows(session, game_id))
            )
            raise _RollBack
    except _RollBack:
        pass
    return found[0]
