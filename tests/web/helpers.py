"""Helpers of the web suites: API calls as a client makes them."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient


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
