"""Fixtures of the web suites: the Flask app on each database, with the test game."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem.app.bootstrap import build_service
from pbem.core.db import Database
from tests.service.helpers import REGISTRY
from tests.settings import make_settings
from web import create_app


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The slow web tests (larger fuzzing campaigns) run only when the marker expression
    names them (``-m slow``); a bounded variant of each runs in every plain run."""
    if "slow" in (config.option.markexpr or ""):
        return
    here = Path(__file__).parent
    slow = [i for i in items if i.get_closest_marker("slow") and here in i.path.parents]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [i for i in items if i not in slow]


@pytest.fixture(scope="module")
def app(database: Database, tmp_path_factory: pytest.TempPathFactory) -> Flask:
    settings = make_settings(database.url, tmp_path_factory.mktemp("var"))
    return create_app(service=build_service(settings, db=database, registry=REGISTRY, listeners=[]))


@pytest.fixture(scope="module")
def client(app: Flask) -> FlaskClient:
    return app.test_client()
