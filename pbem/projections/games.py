"""The ``games`` read model: one row per game, its head, who owes an action, its outcome."""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import Session

from pbem import events as ev
from pbem.models import Game


def project(
    session: Session, game_id: str, events: Sequence[ev.StoredEvent], to_act: frozenset[int]
) -> None:
    game = session.get(Game, game_id)
    for e in events:
        p = e.payload
        if isinstance(p, ev.GameCreated):
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
            )
        elif isinstance(p, ev.GameFinished) and game is not None:
            game.finished = True
            game.outcome = ev.canonical_json(p.outcome)
    if game is None or not events:
        return
    last = events[-1]
    game.version = last.version
    game.head_hash = last.hash
    game.updated_at = last.recorded_at
    # A game the service ended (every other seat resigned) asks nobody to move, whatever
    # the engine's state still waits for.
    game.to_act = "[]" if game.finished else ev.canonical_json(sorted(to_act))
    session.add(game)
