"""Helpers of the service suites: the registry with the test game. Their settings come from
tests/settings.py."""

from __future__ import annotations

import psycopg
import pytest

import engine
from engine.core.registry import Registry
from tests.service.hidden_game import HOARD

REGISTRY: Registry = engine.REGISTRY.with_rules(HOARD)


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
