"""Fixtures of the table-talk suites: a service on each database (SQLite and PostgreSQL)
with a manual clock, so that the limits' hours and the day after the end can pass."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from pbem.app.bootstrap import build_service
from pbem.app.service import GameService
from pbem.core.db import Database
from pbem.core.time_source import ManualClock
from tests.service.helpers import REGISTRY
from tests.settings import make_settings


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(datetime(2026, 12, 1, 12, 0, tzinfo=UTC))


@pytest.fixture
def service(database: Database, tmp_path: Path, clock: ManualClock) -> GameService:
    """A fresh service on this module's migrated database, with the mail outbox."""
    return build_service(
        make_settings(database.url, tmp_path), db=database, registry=REGISTRY, clock=clock
    )
