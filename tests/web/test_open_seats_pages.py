"""Open seats on the pages, on SQLite and PostgreSQL: /new with rows ticked "open seat", the
created page's join link, /games/open (public waiting games only), the join page's form
(CSRF token and same origin required, a private game only with its key), the game page's
"waiting for N more players", and the administrator's start and new join link."""

from __future__ import annotations

import itertools
import re

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem.app.bootstrap import build_service
from pbem.app.service import GameService
from pbem.core.db import Database
from tests.service.helpers import REGISTRY
from tests.settings import make_settings
from web import create_app

_numbers = itertools.count()


@pytest.fixture(scope="module")
def app(database: Database, tmp_path_factory: pytest.TempPathFactory) -> Flask:
    settings = make_settings(
        database.url,
        tmp_path_factory.mktemp("var"),
        invitations={"joins_per_requester_per_hour": 1000, "per_requester_per_day": 1000},
    )
    return create_app(service=build_service(settings, db=database, registry=REGISTRY, listeners=[]))


def _service(app: Flask) -> GameService:
    svc: GameService = app.extensions["pbem"]
    return svc


def _address(who: str) -> str:
    return f"{who}{next(_numbers)}@example.org"


def _new(client: FlaskClient, *, private: bool = False, rows: int = 3) -> tuple[str, str]:
    """A Lancelot game from /new with Ann named and ``rows - 1`` open seats: (id, join link)."""
    form = {"game": "lancelot", "time_control": "none", "name0": "Ann", "email0": _address("ann")}
    form |= {f"open{i}": "1" for i in range(1, rows)}
    if private:
        form["private"] = "1"
    page = client.post("/new", data=form)
    assert page.status_code == 200, page.get_data(as_text=True)
    html = page.get_data(as_text=True)
    gid = re.search(r'<span class="mono">([0-9a-f]{10})</span> is ready', html)
    link = re.search(r'id="join-link">([^<]+)</a>', html)
    assert gid and link, html
    return gid.group(1), link.group(1).replace("&amp;", "&")


def test_a_game_created_with_open_seats_on_new_is_joined_from_the_open_games_page(
    app: Flask,
) -> None:
    client = app.test_client()
    gid, link = _new(client)
    assert f"/games/{gid}/join?key=" in link
    listed = client.get("/games/open").get_data(as_text=True)
    assert gid in listed and f'href="/games/{gid}/join"' in listed
    index = client.get("/").get_data(as_text=True)
    assert "/games/open" in index and "waiting for 2 more players" in index
    page = client.get(f"/games/{gid}").get_data(as_text=True)
    assert "waiting for 2 more players" in page and f'href="/games/{gid}/join"' in page
    # Another browser joins from the list.
    cy = app.test_client()
    form = cy.get(f"/games/{gid}/join").get_data(as_text=True)
    assert "2 of 3 seats are open" in form
    done = cy.post(f"/games/{gid}/join", data={"name": "Cy", "email": _address("cy")})
    assert done.status_code == 200 and done.headers["Cache-Control"] == "no-store"
    html = done.get_data(as_text=True)
    assert "An invitation was mailed" in html and f"/games/{gid}?token=" in html
    # Cy's browser holds the seat now.
    seat_page = cy.get(f"/games/{gid}").get_data(as_text=True)
    assert "You are <strong>Cy" in seat_page and "waiting for 1 more player." in seat_page
    # The same name (whatever its case) is refused by the form, and nothing changes.
    version = _service(app).load(gid).version
    again = app.test_client().post(
        f"/games/{gid}/join", data={"name": "cy", "email": _address("other")}
    )
    assert again.status_code == 409 and "already plays" in again.get_data(as_text=True)
    assert _service(app).load(gid).version == version
    last = app.test_client().post(
        f"/games/{gid}/join", data={"name": "Dee", "email": _address("d")}
    )
    assert "the game has started" in last.get_data(as_text=True)
    assert gid not in client.get("/games/open").get_data(as_text=True)
    assert _service(app).load(gid).to_act == frozenset({0})
    full = app.test_client().get(f"/games/{gid}/join").get_data(as_text=True)
    assert "no open seat left" in full


def test_a_private_game_is_not_listed_and_its_join_page_needs_its_key(app: Flask) -> None:
    client = app.test_client()
    gid, link = _new(client, private=True)
    assert gid not in client.get("/games/open").get_data(as_text=True)
    outsider = app.test_client()
    for path in (f"/games/{gid}/join", f"/games/{gid}/join?key=guess"):
        r = outsider.get(path)
        assert r.status_code == 404 and f"There is no game &#39;{gid}&#39;" in r.get_data(
            as_text=True
        )
    r = outsider.post(f"/games/{gid}/join", data={"name": "Cy", "email": _address("cy")})
    assert r.status_code == 404
    key = link.split("key=")[1]
    page = outsider.get(f"/games/{gid}/join?key={key}")
    assert page.status_code == 200 and page.headers["Referrer-Policy"] == "no-referrer"
    r = outsider.post(
        f"/games/{gid}/join", data={"name": "Cy", "email": _address("cy"), "key": key}
    )
    assert r.status_code == 200 and "You have a seat" in r.get_data(as_text=True)


def test_a_cross_site_join_form_or_one_without_its_token_is_refused(app: Flask) -> None:
    gid, _ = _new(app.test_client())
    version = _service(app).load(gid).version
    plain = FlaskClient(app)  # posts no CSRF token
    r = plain.post(f"/games/{gid}/join", data={"name": "Mal", "email": _address("mal")})
    assert r.status_code == 400
    client = app.test_client()
    r = client.post(
        f"/games/{gid}/join",
        data={"name": "Mal", "email": _address("mal")},
        headers={"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"},
    )
    assert r.status_code == 403
    assert _service(app).load(gid).version == version


def test_the_admin_page_starts_the_game_with_fewer_and_replaces_the_join_link(
    app: Flask,
) -> None:
    client = app.test_client()
    form = {"game": "lancelot", "time_control": "none", "name0": "Ann", "email0": _address("a")}
    form |= {"open1": "1", "open2": "1", "open3": "1"}
    html = client.post("/new", data=form).get_data(as_text=True)
    gid = re.search(r'<span class="mono">([0-9a-f]{10})</span> is ready', html)
    admin = re.search(r'id="admin-page">([^<]+)</a>', html)
    assert gid and admin
    game_id = gid.group(1)
    # Not the admin: refused, nothing changes.
    outsider = app.test_client()
    assert outsider.post(f"/games/{game_id}/admin/start").status_code == 403
    organiser = app.test_client()
    organiser.get(admin.group(1).replace("&amp;", "&").split("127.0.0.1:5000")[-1])
    page = organiser.get(f"/games/{game_id}/admin").get_data(as_text=True)
    assert "waits for 3 more players" in page
    # One player: the rules do not allow it.
    r = organiser.post(f"/games/{game_id}/admin/start")
    assert r.status_code == 422 and "wait for more players" in r.get_data(as_text=True)
    r = organiser.post(f"/games/{game_id}/admin/join-link", follow_redirects=True)
    assert "The old join link no longer works" in r.get_data(as_text=True)
    app.test_client().post(f"/games/{game_id}/join", data={"name": "Bo", "email": _address("b")})
    r = organiser.post(f"/games/{game_id}/admin/start", follow_redirects=True)
    assert "The game has started with 2 players" in r.get_data(as_text=True)
    loaded = _service(app).load(game_id)
    assert loaded.to_act == frozenset({0}) and len(loaded.seats) == 2
    assert game_id not in app.test_client().get("/games/open").get_data(as_text=True)
