"""Helpers of the web suites: API calls as a client makes them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from pbem.app.bootstrap import build_service
from pbem.core.db import Database
from pbem.core.migrate import upgrade
from pbem.create.invitations import has_played
from pbem.mail.outbound.compose import invitation_link
from tests.helpers import database_of
from tests.service.helpers import REGISTRY
from tests.settings import make_settings
from web import create_app


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_game(client: FlaskClient, game: str = "hoard", players: int = 2, **config: Any) -> dict:
    seats = [{"name": f"P{i}", "email": f"p{i}@example.org"} for i in range(players)]
    welcome(client, seats)
    response = client.post("/api/v1/games", json={"game": game, "config": config, "players": seats})
    assert response.status_code == 201, response.json
    return response.json  # type: ignore[no-any-return]


def welcome(client: FlaskClient, seats: list[dict[str, str]]) -> None:
    """Players new to the service first accept an invitation, as a person does: each follows
    the link of the invitation to a game of their own and accepts it. From then on their
    address has played, and the games a test plays invite them no more."""
    service = client.application.extensions["pbem"]
    with database_of(service).read() as session:
        new = [s for s in seats if s["email"] and not has_played(session, s["email"])]
    if not new:
        return
    others = [{"name": "Stranger"}] if len(new) < 2 else []
    made = client.post("/api/v1/games", json={"game": "hoard", "players": [*new, *others]})
    assert made.status_code == 201, made.json
    game_id = made.json["id"]
    for seat in range(len(new)):
        with database_of(service).read() as session:
            link = invitation_link(session, service.settings, game_id, seat)
        path = link.removeprefix(service.settings.base_url.rstrip("/"))
        assert client.get(path).status_code == 200
        answer = client.post(path.partition("?")[0], data={"link": path.partition("link=")[2]})
        assert answer.status_code == 303, answer.get_data(as_text=True)


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
