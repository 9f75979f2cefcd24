"""A rematch through the JSON API and the seat page's forms, on SQLite and PostgreSQL: who
may propose and answer (a seat of that finished game, for itself: no outsider, spectator,
admin token, other game's token, forged or cross-site form), the refusals that change
nothing, and the links between the two games on their pages."""

from __future__ import annotations

import html
import random
import re
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from pbem.app.service import GameService
from tests.web.helpers import bearer, new_game


def _service(app: Flask) -> GameService:
    svc: GameService = app.extensions["pbem"]
    return svc


def finished(client: FlaskClient, players: int = 3) -> dict[str, Any]:
    """A game of Hoard whose players have all played before, played to its end."""
    game = new_game(client, players=players, rounds=1)
    svc = _service(client.application)
    rnd = random.Random(5)
    while not (loaded := svc.load(game["id"])).finished:
        seat = min(loaded.to_act)
        move = rnd.choice(loaded.legal(seat))
        svc.submit(game["id"], seat, move, expected_version=loaded.version, channel="api")
    return game


def _text(page: Any) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page.get_data(as_text=True))).split())


def _seat_client(app: Flask, gid: str, token: str) -> FlaskClient:
    seat_client = app.test_client()
    assert seat_client.get(f"/games/{gid}?token={token}").status_code == 303
    return seat_client


def _version(client: FlaskClient, gid: str) -> int:
    return int(client.get(f"/api/v1/games/{gid}").json["version"])  # type: ignore[index]


def test_a_rematch_through_the_api_is_proposed_agreed_and_linked(client: FlaskClient) -> None:
    game = finished(client)
    gid, seats = game["id"], game["seats"]
    other = new_game(client)
    url = f"/api/v1/games/{gid}/rematch"
    assert client.get(url).json == {"rematch_of": None, "proposal": None}
    version = _version(client, gid)
    # Nobody but a seat of this game proposes: no token, another game's seat, the admin.
    assert client.post(url, json={}).status_code == 403
    assert client.post(url, json={}, headers=bearer(other["seats"][0]["token"])).status_code in (
        403,
        404,
    )
    assert client.post(url, json={}, headers=bearer(game["admin_token"])).status_code == 403
    bad = client.post(url, json={"seating": "shuffle"}, headers=bearer(seats[0]["token"]))
    assert bad.status_code == 400
    playing = client.post(
        f"/api/v1/games/{other['id']}/rematch", json={}, headers=bearer(other["seats"][0]["token"])
    )
    assert playing.status_code == 409 and "not over" in playing.json["message"]  # type: ignore[index]
    assert _version(client, gid) == version  # every refusal changed nothing

    proposed = client.post(url, json={"seating": "rotate"}, headers=bearer(seats[0]["token"]))
    assert proposed.status_code == 201 and proposed.json["status"] == "proposed"  # type: ignore[index]
    proposal = proposed.json["proposal"]  # type: ignore[index]
    answer = f"{url}/{proposal}/answer"
    assert client.post(answer, json={"agree": True}).status_code == 403
    assert (
        client.post(answer, json={"agree": "maybe"}, headers=bearer(seats[1]["token"])).status_code
        == 400
    )
    agreed = client.post(answer, json={"agree": True}, headers=bearer(seats[1]["token"]))
    assert agreed.json["status"] == "agreed"  # type: ignore[index]
    shown = client.get(url).json["proposal"]  # type: ignore[index]
    assert shown["agreed"] == [0, 1] and shown["waiting"] == [2] and shown["status"] == "open"
    started = client.post(answer, json={"agree": True}, headers=bearer(seats[2]["token"]))
    assert started.status_code == 201 and started.json["status"] == "started"  # type: ignore[index]
    new = started.json["new_game_id"]  # type: ignore[index]
    doc = client.get(f"/api/v1/games/{new}").json
    assert [p["name"] for p in doc["players"]] == ["P1", "P2", "P0"]  # type: ignore[index]
    assert client.get(f"/api/v1/games/{new}/rematch").json["rematch_of"] == gid  # type: ignore[index]
    assert client.get(url).json["proposal"]["new_game_id"] == new  # type: ignore[index]
    # The old seat tokens open nothing in the new game (its seats' links come by mail).
    assert client.post(
        f"/api/v1/games/{new}/rematch", json={}, headers=bearer(seats[0]["token"])
    ).status_code in (403, 404)


def test_a_rematch_from_the_seat_pages_is_declined_then_agreed_and_linked(
    app: Flask, client: FlaskClient
) -> None:
    game = finished(client, players=2)
    gid, seats = game["id"], game["seats"]
    ann, bob = _seat_client(app, gid, seats[0]["token"]), _seat_client(app, gid, seats[1]["token"])
    page = _text(ann.get(f"/games/{gid}"))
    assert "Propose a rematch, seats rotated" in page and "Propose a rematch, same seats" in page
    public = _text(app.test_client().get(f"/games/{gid}"))
    assert "Propose a rematch" not in public and "The players may propose a rematch" in public
    version = _version(client, gid)

    # A visitor without the seat, a forged form, a cross-site form: refused, nothing changes.
    assert app.test_client().post(f"/games/{gid}/rematch", data={}).status_code == 403
    forged = ann.post(f"/games/{gid}/rematch", data={"seating": "rotate", "csrf_token": "x"})
    assert forged.status_code == 400
    cross = ann.post(
        f"/games/{gid}/rematch",
        data={"seating": "rotate"},
        headers={"Sec-Fetch-Site": "cross-site"},
    )
    assert cross.status_code == 403
    assert ann.post(f"/games/{gid}/rematch", data={"seating": "all"}).status_code == 400
    assert _version(client, gid) == version

    assert ann.post(f"/games/{gid}/rematch", data={"seating": "same"}).status_code == 303
    page = _text(bob.get(f"/games/{gid}"))
    assert "P0 proposes a rematch" in page and "everyone in the same seat" in page
    assert "Agree: play again" in page and "Waiting for: P1" in page
    assert "Agree: play again" not in _text(ann.get(f"/games/{gid}"))  # not for the proposer
    proposal = client.get(f"/api/v1/games/{gid}/rematch").json["proposal"]["proposal"]  # type: ignore[index]
    answer = f"/games/{gid}/rematch/{proposal}/answer"
    assert app.test_client().post(answer, data={"agree": "yes"}).status_code == 403
    declined = bob.post(answer, data={"agree": "no"}, follow_redirects=True)
    assert "You declined the rematch" in _text(declined)
    assert "P1 declined the rematch P0 proposed" in _text(ann.get(f"/games/{gid}"))

    # Bob proposes his own (rotated); Ann agrees: the rematch starts, and the pages link.
    assert bob.post(f"/games/{gid}/rematch", data={"seating": "rotate"}).status_code == 303
    proposal = client.get(f"/api/v1/games/{gid}/rematch").json["proposal"]["proposal"]  # type: ignore[index]
    stale = ann.post(f"/games/{gid}/rematch/{proposal - 1}/answer", data={"agree": "yes"})
    assert stale.status_code == 409 and "is not the open one" in _text(stale)
    started = ann.post(
        f"/games/{gid}/rematch/{proposal}/answer", data={"agree": "yes"}, follow_redirects=True
    )
    text = _text(started)
    new = client.get(f"/api/v1/games/{gid}/rematch").json["proposal"]["new_game_id"]  # type: ignore[index]
    assert f"The rematch has started: game {new}" in text
    assert f"Rematch: game {new}" in text
    assert f'href="/games/{new}"' in started.get_data(as_text=True)
    new_page = app.test_client().get(f"/games/{new}")
    assert f"A rematch of game {gid}" in _text(new_page)
    assert f'href="/games/{gid}"' in new_page.get_data(as_text=True)
    # Started once: nothing more to propose on the finished game.
    assert "Propose a rematch" not in _text(ann.get(f"/games/{gid}"))
