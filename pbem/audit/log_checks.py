"""A stored game checked against its own log, for operators: ``pbem replay`` (the chain,
every payload, legality, the seed, each stored snapshot and its seal), the read models' rows
compared with the ones the log gives (``replay --verify``), and every read model rebuilt from
the log (``pbem db rebuild-projections``). Nothing here trusts a cache or a snapshot."""

from __future__ import annotations

from engine.core.registry import Registry
from pbem.app.config import Settings
from pbem.core import read_models
from pbem.core.db import Database
from pbem.core.replay import VerifyReport, verify


class LogChecks:
    """The checks and the rebuild, each in its own transaction."""

    def __init__(self, db: Database, settings: Settings, registry: Registry) -> None:
        self.db = db
        self.settings = settings
        self.registry = registry

    def replay(self, game_id: str) -> VerifyReport:
        """The game re-run from its first event without snapshots, then each stored snapshot
        checked against that fold (and its seal, with the settings' secret key)."""
        with self.db.read() as session:
            return verify(
                session, game_id, self.registry, snapshot_key=self.settings.secret_key or None
            )

    def read_model_difference(self, game_id: str) -> str | None:
        """The first stored read-model row of the game that differs from the one its log
        gives (table, key, column), or None; nothing is changed."""
        return read_models.first_difference(self.db, game_id, self.registry)

    def rebuild_read_models(self) -> int:
        """Every game's read models rebuilt from its events; returns how many games."""
        return read_models.rebuild_all(self.db, self.registry)
