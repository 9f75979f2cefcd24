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
from pbem.mail.compose import invitation_link
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
    accept_invitations(client, response.json["id"], players)
    return response.json  # type: ignore[no-any-return]


def accept_invitations(client: FlaskClient, game_id: str, seats: int) -> None:
    """Each invited player follows the link of their invitation and accepts it, as a person
    does (the mails themselves are not written here: the web suites run without the outbox).
    Once they have, their address has played, and their later games invite them no more."""
    service = client.application.extensions["pbem"]
    for seat in range(seats):
        if not service.invitation_waiting(game_id, seat):
            continue
        with service.db.read() as session:
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
