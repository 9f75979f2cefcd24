"""Open seats through the JSON API, on SQLite and PostgreSQL: a game created with open seats
(``{"open": true}``) waits for players, is listed by ``GET /api/v1/games/open`` while public
and waiting (never a private one, nor one started or finished), and is joined by
``POST /api/v1/games/<id>/join``; the last seat taken starts it; its admin token starts it
with fewer (``POST …/admin/start``); who may do what, and bad input that changes nothing."""

from __future__ import annotations

import itertools
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem.app.bootstrap import build_service
from pbem.app.service import GameService
from pbem.core.db import Database
from tests.service.helpers import REGISTRY
from tests.settings import make_settings
from tests.web.helpers import bearer
from web import create_app

_numbers = itertools.count()


@pytest.fixture(scope="module")
def app(database: Database, tmp_path_factory: pytest.TempPathFactory) -> Flask:
    # Every request comes from the test client's one address: the hourly limit on joins
    # from one client is raised for the module (tests/mail/test_open_seats_by_mail.py
    # tries the limits themselves).
    settings = make_settings(
        database.url,
        tmp_path_factory.mktemp("var"),
        invitations={"joins_per_requester_per_hour": 1000, "per_requester_per_day": 1000},
    )
    return create_app(service=build_service(settings, db=database, registry=REGISTRY, listeners=[]))


def _address(who: str) -> str:
    return f"{who}{next(_numbers)}@example.org"


def _service(app: Flask) -> GameService:
    svc: GameService = app.extensions["pbem"]
    return svc


def _create(client: FlaskClient, *, private: bool = False, named: int = 1, seats: int = 3) -> Any:
    players: list[dict[str, Any]] = [
        {"name": f"Named{i}", "email": _address(f"named{i}-")} for i in range(named)
    ]
    players += [{"open": True}] * (seats - named)
    r = client.post(
        "/api/v1/games", json={"game": "lancelot", "players": players, "private": private}
    )
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def _open_ids(client: FlaskClient) -> set[str]:
    r = client.get("/api/v1/games/open")
    assert r.status_code == 200
    return {g["id"] for g in r.get_json()["games"]}


def _join(client: FlaskClient, gid: str, name: str, email: str, **more: Any) -> Any:
    return client.post(f"/api/v1/games/{gid}/join", json={"name": name, "email": email, **more})


def test_a_game_with_open_seats_waits_is_listed_and_starts_when_full(
    client: FlaskClient, app: Flask
) -> None:
    created = _create(client)
    gid = created["id"]
    assert created["open_seats"] == [1, 2]
    assert [s["name"] for s in created["seats"]] == ["Named0"]
    assert created["join_link"].endswith(f"/games/{gid}/join?key=" + created["join_link"][-32:])
    game = client.get(f"/api/v1/games/{gid}").get_json()
    assert game["to_act"] == []
    assert gid in _open_ids(client)
    # The named seat cannot move before the start.
    token = created["seats"][0]["token"]
    r = client.post(
        f"/api/v1/games/{gid}/actions",
        json={"action": "E5", "expected_version": 1},
        headers=bearer(token),
    )
    assert r.status_code == 409 and "has not started" in r.get_json()["message"]

    first = _join(client, gid, "Cy", _address("cy"))
    assert first.status_code == 201, first.get_json()
    assert first.get_json() | {"token": "x"} == {
        "game_id": gid, "seat": 1, "name": "Cy", "token": "x", "invited": True,
        "started": False, "open_seats": 1,
    }  # fmt: skip
    assert gid in _open_ids(client)
    last = _join(client, gid, "Dee", _address("dee"))
    assert last.status_code == 201 and last.get_json()["started"] is True
    assert gid not in _open_ids(client)
    game = client.get(f"/api/v1/games/{gid}").get_json()
    assert game["to_act"] == [0]
    # The joiner's token opens its seat.
    seat = client.get(f"/api/v1/games/{gid}", headers=bearer(last.get_json()["token"]))
    assert seat.get_json()["seat"] == 2
    # Full and started: nobody joins.
    again = _join(client, gid, "Eve", _address("eve"))
    assert again.status_code == 409 and "no open seat" in again.get_json()["message"]
    # A move applies now.
    loaded = _service(app).load(gid)
    move = loaded.rules.format_action(loaded.state, loaded.rules.auto_action(loaded.state, 0))
    r = client.post(
        f"/api/v1/games/{gid}/actions",
        json={"action": move, "expected_version": loaded.version},
        headers=bearer(token),
    )
    assert r.status_code == 201 and r.get_json()["applied"], r.get_json()


def test_a_name_or_an_address_already_seated_is_refused(client: FlaskClient) -> None:
    created = _create(client, seats=4)
    gid = created["id"]
    local, domain = _service_email(client, gid).split("@")
    version = client.get(f"/api/v1/games/{gid}").get_json()["version"]
    for name, email, words in (
        ("named0", "other@example.org", "already plays"),  # the case differs only
        (" Named0 ", "other@example.org", "already plays"),
        ("Other", f"{local.upper()}@{domain}", "already has a seat"),
        ("Other", f"{local}+two@{domain}", "already has a seat"),
    ):
        r = _join(client, gid, name, email)
        assert r.status_code == 409 and words in r.get_json()["message"], r.get_json()
    for body in (
        {"name": "Ann", "email": "not an address"},
        {"name": "evil.example", "email": "ok@example.org"},
        {"name": "", "email": "ok@example.org"},
        {"name": "Ann"},
        {"name": "Ann", "email": "ok@example.org", "seat": 3},
    ):
        r = client.post(f"/api/v1/games/{gid}/join", json=body)
        assert r.status_code == 400, (body, r.get_json())
    assert client.get(f"/api/v1/games/{gid}").get_json()["version"] == version


def _service_email(client: FlaskClient, gid: str) -> str:
    app: Flask = client.application
    email = _service(app).load(gid).seats[0].email
    assert email
    return email


def test_a_private_game_is_joined_only_with_its_join_link_which_can_be_revoked(
    client: FlaskClient,
) -> None:
    created = _create(client, private=True)
    gid = created["id"]
    key = parse_qs(urlsplit(created["join_link"]).query)["key"][0]
    assert gid not in _open_ids(client)
    for given in ({}, {"join_key": "guess"}):
        r = _join(client, gid, "Cy", _address("cy"), **given)
        assert r.status_code == 404 and r.get_json()["message"] == f"There is no game '{gid}'."
    # Another game's admin cannot replace the link; its own admin can, and the old one dies.
    other = _create(client)
    r = client.post(f"/api/v1/games/{gid}/admin/join-link", headers=bearer(other["admin_token"]))
    assert r.status_code == 404
    r = client.post(f"/api/v1/games/{gid}/admin/join-link", headers=bearer(created["admin_token"]))
    assert r.status_code == 201
    new_key = parse_qs(urlsplit(r.get_json()["join_link"]).query)["key"][0]
    assert _join(client, gid, "Cy", _address("cy"), join_key=key).status_code == 404
    r = _join(client, gid, "Cy", _address("cy"), join_key=new_key)
    assert r.status_code == 201 and r.get_json()["seat"] == 1


def test_only_the_admin_starts_with_fewer_and_only_where_the_rules_allow(
    client: FlaskClient, app: Flask
) -> None:
    created = _create(client, named=1, seats=4)
    gid = created["id"]
    admin = bearer(created["admin_token"])
    r = client.post(f"/api/v1/games/{gid}/admin/start", headers=admin)
    assert r.status_code == 422 and "2, 3, 4, 5 players" in r.get_json()["message"]
    assert _join(client, gid, "Cy", _address("cy")).status_code == 201
    for token in (created["seats"][0]["token"], _create(client)["admin_token"], "nonsense"):
        r = client.post(f"/api/v1/games/{gid}/admin/start", headers=bearer(token))
        assert r.status_code == 403, r.get_json()
    assert client.post(f"/api/v1/games/{gid}/admin/start").status_code == 403
    assert gid in _open_ids(client)
    r = client.post(f"/api/v1/games/{gid}/admin/start", headers=admin)
    assert r.status_code == 201 and r.get_json()["players"] == 2
    assert gid not in _open_ids(client)
    game = client.get(f"/api/v1/games/{gid}").get_json()
    assert game["to_act"] == [0]
    assert client.post(f"/api/v1/games/{gid}/admin/start", headers=admin).status_code == 409
    assert _join(client, gid, "Eve", _address("eve")).status_code == 409
    loaded = _service(app).load(gid)
    assert loaded.rules.view(loaded.state, None)["players"] in (2, [*loaded.view(None)["players"]])
    assert _service(app).replay(gid).ok
    assert _service(app).read_model_difference(gid) is None


def test_an_open_seat_with_a_name_is_refused(client: FlaskClient) -> None:
    r = client.post(
        "/api/v1/games",
        json={"game": "lancelot", "players": [{"name": "A"}, {"name": "B", "open": True}]},
    )
    assert r.status_code == 400
    r = client.post(
        "/api/v1/games",
        json={"game": "lancelot", "players": [{"open": True}] * 6},
    )
    assert r.status_code == 400 and "not 6" in r.get_json()["message"]
