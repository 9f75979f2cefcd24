"""Building the service from settings: one place shared by the web app, the CLI and workers."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from engine.core import Rules
from pbem.clock import Clock, SystemClock
from pbem.db import Database
from pbem.games import GameService, Listener
from pbem.mail.outbox import OutboxListener
from pbem.settings import Settings


def open_database(settings: Settings) -> Database:
    return Database(
        settings.database_url,
        busy_timeout_ms=settings.sqlite_busy_timeout_ms,
        pool_size=settings.database_pool_size,
    )


def default_listeners(settings: Settings, clock: Clock) -> list[Listener]:
    """The listeners every append runs inside its transaction.

    Each feature adds its listener here, one line each (the mail outbox).
    """
    listeners: list[Listener] = [OutboxListener(settings, clock)]
    return listeners


def build_service(
    settings: Settings,
    *,
    db: Database | None = None,
    clock: Clock | None = None,
    registry: Mapping[str, Rules] | None = None,
    listeners: Sequence[Listener] | None = None,
) -> GameService:
    clock = clock or SystemClock()
    logging.getLogger("pbem").setLevel(settings.log_level.upper())
    return GameService(
        db or open_database(settings),
        settings,
        clock,
        registry,
        default_listeners(settings, clock) if listeners is None else listeners,
    )
