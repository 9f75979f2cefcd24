"""What the tests of every folder share to reach past the service's commands: the database a
service was built on (to set up or inspect rows no command shows), and the evidence report
called as a function of the service."""

from __future__ import annotations

from typing import Any

from pbem.app.service import GameService
from pbem.core.db import Database


def database_of(service: GameService) -> Database:
    """The database ``service`` was built on. The service keeps it to itself (no entry point
    opens a session); a test reads and writes rows through it to set a case up or check it."""
    return service._db


def audit(service: GameService, game_id: str, **options: Any) -> dict[str, Any]:
    """The service's evidence report on ``game_id`` (``pbem.audit.evidence``)."""
    return service.audit(game_id, **options)
