"""Fixtures of the web suites: the Flask app on each database, with the test game."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem.db import Database
from pbem.games import GameService
from tests.service.conftest import REGISTRY, make_settings
from web import create_app


@pytest.fixture(scope="module")
def app(database: Database, tmp_path_factory: pytest.TempPathFactory) -> Flask:
    settings = make_settings(database.url, tmp_path_factory.mktemp("var"))
    return create_app(service=GameService(database, settings, registry=REGISTRY))


@pytest.fixture(scope="module")
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_game(client: FlaskClient, game: str = "hoard", players: int = 2, **config: Any) -> dict:
    response = client.post(
        "/api/v1/games",
        json={
            "game": game,
            "config": config,
            "players": [{"name": f"P{i}", "email": f"p{i}@example.org"} for i in range(players)],
        },
    )
    assert response.status_code == 201, response.json
    return response.json  # type: ignore[no-any-return]
