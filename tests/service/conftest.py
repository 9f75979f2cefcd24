"""Fixtures of the service suites: a GameService on each database, with the test game."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.app.bootstrap import build_service
from pbem.app.service import GameService
from pbem.core.db import Database
from tests.service.helpers import REGISTRY
from tests.settings import make_settings


@pytest.fixture
def service(database: Database, tmp_path: Path) -> GameService:
    """A fresh service (empty cache) on this module's migrated database."""
    return build_service(
        make_settings(database.url, tmp_path), db=database, registry=REGISTRY, listeners=[]
    )
