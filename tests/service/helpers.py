"""Helpers of the service suites: the registry with the test game, and test settings."""

from __future__ import annotations

from pathlib import Path

import engine
from engine.core import Rules
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
