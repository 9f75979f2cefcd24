"""Fixtures of the web suites: the Flask app on each database, with the test game."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem.app.bootstrap import build_service
from pbem.core.db import Database
from tests.service.helpers import REGISTRY
from tests.settings import make_settings
from web import create_app


@pytest.fixture(scope="module")
def app(database: Database, tmp_path_factory: pytest.TempPathFactory) -> Flask:
    settings = make_settings(database.url, tmp_path_factory.mktemp("var"))
    return create_app(service=build_service(settings, db=database, registry=REGISTRY, listeners=[]))


@pytest.fixture(scope="module")
def client(app: Flask) -> FlaskClient:
    return app.test_client()
