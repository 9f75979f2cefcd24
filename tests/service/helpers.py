"""Helpers of the service suites: the registry with the test game, and test settings."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

import engine
from engine.core.registry import Registry
from pbem.settings import Settings
from tests.service.hidden_game import HOARD

REGISTRY: Registry = engine.REGISTRY.with_rules(HOARD)


def make_settings(database_url: str, var_dir: Path, **changes: object) -> Settings:
    return Settings(
        database_url=database_url,
        secret_key="test-only-secret",
        var_dir=str(var_dir),
        snapshot_every=5,
    ).with_changes(**changes)


def count_pipeline_waits(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that grows by one each time a pipelined write (PostgreSQL) waits for the
    server: every ``psycopg.Pipeline.sync``, the COMMIT's included."""
    counted: list[int] = []
    sync = psycopg.Pipeline.sync

    def counting(self: psycopg.Pipeline) -> None:
        counted.append(1)
        sync(self)

    monkeypatch.setattr(psycopg.Pipeline, "sync", counting)
    return counted
