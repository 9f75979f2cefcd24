"""Helpers of the web suites: API calls as a client makes them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from pbem.bootstrap import build_service
from pbem.db import Database
from pbem.migrate import upgrade
from tests.service.helpers import REGISTRY, make_settings
from web import create_app


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


@contextmanager
def sqlite_app(folder: Path) -> Iterator[Flask]:
    """The web app on a fresh, migrated SQLite database in ``folder``, mail listeners off:
    for page tests that play their own games and need no other database."""
    url = f"sqlite:///{folder / 'pbem.db'}"
    db = Database(url)
    upgrade(db)
    try:
        yield create_app(
            service=build_service(
                make_settings(url, folder), db=db, registry=REGISTRY, listeners=[]
            )
        )
    finally:
        db.dispose()
