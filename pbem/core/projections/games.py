"""The ``games`` read model: one row per game, its head, who owes an action, its outcome, and
how many of its seats are still open (a game waiting for players)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session

from pbem.core import events as ev
from pbem.core.hot_path import update_row
from pbem.core.models import Game


def project(
    session: Session, game_id: str, events: Sequence[ev.StoredEvent], to_act: frozenset[int]
) -> None:
    if not events:
        return
    game = session.get(Game, game_id)
    created = game is None
    changes: dict[str, Any] = {}
    for e in events:
        p = e.payload
        if isinstance(p, ev.GameCreated):
            created = True
            game = Game(
                id=game_id,
                game=p.game,
                rules_version=p.rules_version,
                config=ev.canonical_json(p.config),
                seed_commitment=p.seed_commitment,
                version=e.version,
                head_hash=e.hash,
                to_act="[]",
                finished=False,
                outcome=None,
                created_at=e.recorded_at,
                updated_at=e.recorded_at,
                private=p.private,
                open_seats=len(p.open_seats),
            )
        elif isinstance(p, ev.SeatTaken) and game is not None:
            changes["open_seats"] = max(0, changes.get("open_seats", game.open_seats) - 1)
        elif isinstance(p, ev.SeatsClosed) and game is not None:
            # The config the game is played with from here (its players fewer).
            changes.update(open_seats=0, config=ev.canonical_json(p.config))
        elif isinstance(p, ev.GameFinished) and game is not None:
            changes.update(finished=True, outcome=ev.canonical_json(p.outcome))
    if game is None:
        return
    last = events[-1]
    finished = changes.get("finished", game.finished)
    changes.update(
        version=last.version,
        head_hash=last.hash,
        updated_at=last.recorded_at,
        # A game the service ended (every other seat resigned) asks nobody to move,
        # whatever the engine's state still waits for.
        # (``to_act`` is empty already while the game waits for players: see ``open_after``)
        to_act="[]" if finished else ev.canonical_json(sorted(to_act)),
        finished=finished,
        outcome=changes.get("outcome", game.outcome),
    )
    if created:
        for name, value in changes.items():
            setattr(game, name, value)
        session.add(game)
        return
    # Every append changes the row: one plain UPDATE, and the session's object told the new
    # values as stored (not marked changed), instead of the ORM's flush of a changed
    # object, which costs several times the statement.
    update_row(session, Game, {"id": game_id}, changes, wait=False)
    for name, value in changes.items():
        set_committed_value(game, name, value)


def open_after(open_before: int, events: Sequence[ev.StoredEvent]) -> int:
    """The seats still open after ``events``, ``open_before`` before them: while any is, the
    game waits for players and nobody owes an action, whatever the engine's state (set up
    for every seat) says. The unit of work and the rebuild of the read models ask it."""
    left = open_before
    for e in events:
        if e.type == ev.GAME_CREATED and isinstance(p := e.payload, ev.GameCreated):
            left = len(p.open_seats)
        elif e.type == ev.SEAT_TAKEN:
            left = max(0, left - 1)
        elif e.type == ev.SEATS_CLOSED:
            left = 0
    return left
