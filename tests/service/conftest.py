"""Fixtures of the service suites: a GameService on each database, with the test game."""

from __future__ import annotations

from pathlib import Path

import pytest

import engine
from engine.core import Rules
from pbem.db import Database
from pbem.games import GameService
from pbem.settings import Settings
from tests.service.hidden_game import HOARD

REGISTRY: dict[str, Rules] = {**engine.REGISTRY, "hoard": HOARD}


def make_settings(database_url: str, var_dir: Path, **changes: object) -> Settings:
    return Settings(
        database_url=database_url,
        secret_key="test-only-secret",
        var_dir=str(var_dir),
        snapshot_every=5,
    ).with_changes(**changes)


@pytest.fixture
def service(database: Database, tmp_path: Path) -> GameService:
    """A fresh service (empty cache) on this module's migrated database."""
    return GameService(database, make_settings(database.url, tmp_path), registry=REGISTRY)
