"""Private games through the pages and the JSON API, on SQLite and PostgreSQL: created private
on /new and through the API; every page and public GET of one answers anyone but its seats
and its admin exactly as for a game that does not exist (404, nothing of it in the answer),
and it is listed neither on the index nor by ``GET /api/v1/games``; its seats and its admin
see it as before; a public game is unchanged."""

from __future__ import annotations

import re
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from pbem.app.service import Created, GameService
from tests.web.helpers import bearer

PAGES = (
    "/games/{id}",
    "/games/{id}?view=public",
    "/games/{id}/history",
    "/games/{id}/history?at=1",
    "/games/{id}/history?view=public",
    "/games/{id}/audit",
    "/games/{id}/audit?view=public",
    "/games/{id}/export.json",
    "/games/{id}/status.json",
    "/games/{id}/receipt",
    "/games/{id}/receipt?version=1&hash=" + "0" * 64,
)
API = (
    "/api/v1/games/{id}",
    "/api/v1/games/{id}/events",
    "/api/v1/games/{id}/events?after=1",
    "/api/v1/games/{id}/state?at=1",
    "/api/v1/games/{id}/receipt?version=1&hash=" + "0" * 64,
)
MISSING = "0123456789"  # a game id no game has


def _service(app: Flask) -> GameService:
    svc: GameService = app.extensions["pbem"]
    return svc


def _game(app: Flask, *, private: bool) -> Created:
    created = _service(app).create_game(
        "lancelot", {}, [{"name": "Ysolde"}, {"name": "Quillon"}], private=private
    )
    loaded = _service(app).load(created.id)
    seat = min(loaded.to_act)
    text = loaded.rules.format_action(loaded.state, loaded.rules.auto_action(loaded.state, seat))
    _service(app).submit(created.id, seat, text, expected_version=loaded.version, channel="api")
    return created


def _seat_client(app: Flask, game_id: str, token: str) -> FlaskClient:
    client = app.test_client()
    opened = client.get(f"/games/{game_id}?token={token}")
    assert opened.status_code == 303 and opened.headers["Location"] == f"/games/{game_id}"
    return client


def _admin_client(app: Flask, created: Created) -> FlaskClient:
    client = app.test_client()
    opened = client.get(f"/games/{created.id}?admin={created.admin_token}")
    assert opened.status_code == 303 and opened.headers["Location"] == f"/games/{created.id}"
    assert created.admin_token not in opened.text
    return client


def _as_missing(response: Any, game_id: str) -> tuple[int, str]:
    return response.status_code, response.get_data(as_text=True).replace(game_id, MISSING)


def _assert_no_such_game(client: FlaskClient, game_id: str, url: str, **kw: Any) -> None:
    """The answer is the one for a game that does not exist, byte for byte (its id aside)."""
    got = client.get(url.format(id=game_id), **kw)
    missing = client.get(url.format(id=MISSING), **kw)
    assert got.status_code == 404, (url, got.status_code)
    assert _as_missing(got, game_id) == _as_missing(missing, MISSING), url
    assert "Ysolde" not in got.text and "Quillon" not in got.text


def test_a_private_game_is_no_such_game_to_anyone_else(app: Flask) -> None:
    created = _game(app, private=True)
    other = _game(app, private=False)  # credentials of another game open nothing here
    for client in (app.test_client(), _seat_client(app, other.id, other.seats[0].token)):
        for url in PAGES:
            _assert_no_such_game(client, created.id, url)
    stranger = app.test_client()
    for url in API:
        _assert_no_such_game(stranger, created.id, url)
        for token in ("nope", other.seats[0].token, other.admin_token):
            _assert_no_such_game(stranger, created.id, url, headers=bearer(token))
    # A wrong credential presented on the page: no game, not "wrong token".
    for query in ("token=nope", f"token={other.seats[0].token}", "link=nope", "admin=nope"):
        _assert_no_such_game(stranger, created.id, f"/games/{{id}}?{query}")
    # Acting needs a seat: a stranger is told there is no such game, and nothing changes.
    version = _service(app).load(created.id).version
    played = stranger.post(
        f"/api/v1/games/{created.id}/actions",
        json={"action": "A1", "expected_version": version},
        headers=bearer("nope"),
    )
    assert played.status_code == 404 and played.json["message"] == (
        f"There is no game {created.id!r}."
    )
    assert stranger.post(f"/games/{created.id}", data={"action": "A1"}).status_code == 404
    ended = stranger.post(f"/api/v1/games/{created.id}/admin/end", headers=bearer("nope"))
    assert ended.status_code == 404
    log = stranger.get(f"/api/v1/games/{created.id}/admin/log", headers=bearer("nope"))
    assert log.status_code == 404
    assert _service(app).load(created.id).version == version


def test_a_private_game_is_listed_nowhere(app: Flask) -> None:
    private, public = _game(app, private=True), _game(app, private=False)
    index = app.test_client().get("/").text
    assert f"/games/{public.id}" in index and private.id not in index
    listed = {g["id"] for g in app.test_client().get("/api/v1/games").json["games"]}
    assert public.id in listed and private.id not in listed
    # Not even to its own seats: the index is public.
    seat = _seat_client(app, private.id, private.seats[0].token)
    assert private.id not in seat.get("/").text


def test_its_seats_see_it_as_before(app: Flask) -> None:
    created = _game(app, private=True)
    for s in created.seats:
        client = _seat_client(app, created.id, s.token)
        page = client.get(f"/games/{created.id}")
        assert page.status_code == 200
        assert f"You are <strong>{('Ysolde', 'Quillon')[s.seat]}" in page.text
        for url in PAGES:
            got = client.get(url.format(id=created.id))
            assert got.status_code == 200, (url, got.status_code)
        assert client.get(f"/games/{created.id}/status.json").json["version"] == 3
        for url in API:
            got = client.get(url.format(id=created.id), headers=bearer(s.token))
            assert got.status_code == 200, (url, got.json)
        doc = client.get(f"/api/v1/games/{created.id}", headers=bearer(s.token)).json
        assert doc["seat"] == s.seat and doc["version"] == 3
        # A seat still plays (the first move was seat 0's: now seat 1 is to act).
    bob = created.seats[1]
    loaded = _service(app).load(created.id)
    move = loaded.rules.format_action(loaded.state, loaded.rules.auto_action(loaded.state, 1))
    played = app.test_client().post(
        f"/api/v1/games/{created.id}/actions",
        json={"action": move, "expected_version": 3},
        headers=bearer(bob.token),
    )
    assert played.status_code == 201, played.json


def test_its_admin_sees_it_as_the_public_would(app: Flask) -> None:
    created = _game(app, private=True)
    admin = _admin_client(app, created)
    for url in PAGES:
        got = admin.get(url.format(id=created.id))
        assert got.status_code == 200, (url, got.status_code)
    assert "You are watching" in admin.get(f"/games/{created.id}").text
    for url in API:
        got = admin.get(url.format(id=created.id), headers=bearer(created.admin_token))
        assert got.status_code == 200, (url, got.json)
    doc = admin.get(f"/api/v1/games/{created.id}", headers=bearer(created.admin_token)).json
    assert doc["seat"] is None and doc["id"] == created.id
    log = admin.get(f"/api/v1/games/{created.id}/admin/log", headers=bearer(created.admin_token))
    assert log.status_code == 200 and log.json["events"][0]["data"]["private"] is True


def test_a_public_game_is_unchanged(app: Flask) -> None:
    created = _game(app, private=False)
    stranger = app.test_client()
    for url in PAGES:
        got = stranger.get(url.format(id=created.id))
        if url.endswith("export.json"):
            # The record holds the players' addresses: its seats' and admin's, not a stranger's.
            assert got.status_code == 403, (url, got.status_code)
            continue
        assert got.status_code == 200, (url, got.status_code)
    assert "You are watching" in stranger.get(f"/games/{created.id}").text
    for url in API:
        assert stranger.get(url.format(id=created.id)).status_code == 200, url
    # A wrong token on a public game is still refused as a wrong token.
    refused = stranger.get(f"/api/v1/games/{created.id}", headers=bearer("nope"))
    assert refused.status_code == 403
    assert stranger.get(f"/games/{created.id}?token=nope").status_code == 403


def test_created_private_through_the_api(app: Flask) -> None:
    client = app.test_client()
    body = {"game": "lancelot", "players": [{"name": "Ann"}, {"name": "Bob"}]}
    made = client.post("/api/v1/games", json={**body, "private": True})
    assert made.status_code == 201 and made.json["private"] is True
    gid = made.json["id"]
    assert client.get(f"/api/v1/games/{gid}").status_code == 404
    token = made.json["seats"][0]["token"]
    assert client.get(f"/api/v1/games/{gid}", headers=bearer(token)).status_code == 200
    events = client.get(f"/api/v1/games/{gid}/events", headers=bearer(token)).json["events"]
    assert events[0]["type"] == "GameCreated" and events[0]["data"]["private"] is True
    public = client.post("/api/v1/games", json=body)
    assert public.status_code == 201 and public.json["private"] is False
    assert client.get(f"/api/v1/games/{public.json['id']}").status_code == 200
    wrong = client.post("/api/v1/games", json={**body, "private": "perhaps"})
    assert wrong.status_code == 400 and "private" in wrong.text


def test_created_private_on_the_new_page(app: Flask) -> None:
    client = app.test_client()
    form = client.get("/new").text
    assert re.search(r'<label for="private"[^>]*><input type="checkbox" id="private"', form)
    assert 'id="private-help"' in form
    made = client.post(
        "/new", data={"game": "lancelot", "name0": "Ann", "name1": "Bob", "private": "1"}
    )
    assert made.status_code == 200, made.text
    links = re.findall(r'href="http://[^"]+/games/(\w+)\?token=([^"]+)"', made.text)
    admin_link = re.search(r'id="admin-link">http://[^/]+(/games/(\w+)\?admin=([^<]+))<', made.text)
    assert len(links) == 2 and admin_link is not None
    gid = links[0][0]
    assert app.test_client().get(f"/games/{gid}").status_code == 404
    assert gid not in app.test_client().get("/").text
    seat = _seat_client(app, gid, links[1][1])
    assert "You are <strong>Bob" in seat.get(f"/games/{gid}").text
    admin = app.test_client()
    assert admin.get(admin_link.group(1)).status_code == 303
    assert admin.get(f"/games/{gid}/audit").status_code == 200
    # Unticked, the game is public.
    public = client.post("/new", data={"game": "lancelot", "name0": "Ann", "name1": "Bob"})
    gid = re.findall(r"/games/(\w+)\?token=", public.text)[0]
    assert app.test_client().get(f"/games/{gid}").status_code == 200
