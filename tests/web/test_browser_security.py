"""Another site cannot act through a visitor's browser: every page form needs its CSRF token
and this site's origin, a link cannot swap the seat a browser holds without the person
saying so, every answer carries the security headers, and the session cookie is encrypted,
expires, and closes with a rotated token. On SQLite and PostgreSQL."""

from __future__ import annotations

import base64
import contextlib
import re
import time
import zlib
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem.app.service import GameService
from tests.form_client import FormClient
from tests.helpers import database_of
from web import create_app

HEADERS = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
TEMPLATES = Path(__file__).resolve().parents[2] / "web" / "templates"
EVIL = "http://evil.example"


def _service(app: Flask) -> GameService:
    svc: GameService = app.extensions["pbem"]
    return svc


def _game(app: Flask, *, private: bool = False) -> Any:
    players = [{"name": "Ann"}, {"name": "Bob"}]
    return _service(app).create_game("lancelot", {}, players, private=private)


def _browser(app: Flask) -> FlaskClient:
    """A client that sends only what a browser's form sends: no token of its own making."""
    return FlaskClient(app, app.response_class, use_cookies=True)


def _holding(app: Flask, game_id: str, token: str, client: FlaskClient | None = None) -> Any:
    client = client or _browser(app)
    opened = client.get(f"/games/{game_id}?token={token}")
    assert opened.status_code == 303, opened.text
    return client


def _token_of(page: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert found, "the page has no form with a CSRF token"
    return found[1]


def _page_token(client: FlaskClient, game_id: str) -> str:
    return _token_of(client.get(f"/games/{game_id}").text)


def _version(app: Flask, game_id: str) -> int:
    return _service(app).load(game_id).version


def _seat_shown(client: FlaskClient, game_id: str) -> str:
    page = client.get(f"/games/{game_id}").text
    found = re.search(r"You are <strong>([^<]+)</strong>", page)
    return found[1] if found else "spectator"


# -- CSRF tokens ---------------------------------------------------------------------------


def test_every_post_form_of_the_templates_carries_a_csrf_token() -> None:
    sources = [p.read_text() for p in TEMPLATES.rglob("*.html")]
    sources += [
        Path(__file__).resolve().parents[2].joinpath("web", m).read_text()
        for m in (
            "pages/devmail.py",
            "inbound.py",
        )
    ]
    forms = [f for s in sources for f in re.findall(r'<form method="post".*?</form>', s, re.S)]
    assert len(forms) >= 11
    assert all('name="csrf_token" value="{{ csrf_token() }}"' in f for f in forms), forms


@pytest.mark.parametrize(
    "form",
    ["move", "dispute", "take back", "forget the seat", "leave the browser", "new game"],
)
def test_a_page_form_without_its_token_is_refused_and_changes_nothing(
    app: Flask, form: str
) -> None:
    created = _game(app)
    gid = created.id
    svc = _service(app)
    svc.submit(gid, 0, "G7", expected_version=2, channel="api")
    ann = _holding(app, gid, created.seats[0].token)
    posts = {
        "move": (f"/games/{gid}", {"choice": "H7", "expected_version": "3"}),
        "dispute": (f"/games/{gid}/disputes", {"versions": "3", "text": "not mine"}),
        "take back": (f"/games/{gid}/undo", {"expected_version": "3"}),
        "forget the seat": (f"/games/{gid}/leave", {}),
        "leave the browser": ("/leave", {}),
        "new game": ("/new", {"game": "lancelot", "name0": "Ann", "name1": "Bob"}),
    }
    path, data = posts[form]
    if form == "move":
        ann = _holding(app, gid, created.seats[1].token, _browser(app))
    games = len(svc.list_games(1000))
    for token in (None, "forged", _token_of(_browser(app).get("/new").text)):
        # No token, a made-up one, and one from another browser's session.
        sent = data if token is None else {**data, "csrf_token": token}
        refused = ann.post(path, data=sent)
        assert refused.status_code == 400, (form, token, refused.text)
        assert "did not come from this site" in refused.text
        assert _version(app, gid) == 3 and len(svc.list_games(1000)) == games
        assert _seat_shown(ann, gid) != "spectator"
    # The page's own token: the same post goes through.
    done = ann.post(path, data={**data, "csrf_token": _page_token(ann, gid)})
    assert done.status_code in (200, 303), done.text


def test_the_api_and_the_webhook_need_no_csrf_token(app: Flask) -> None:
    created = _game(app)
    client = _browser(app)
    moved = client.post(
        f"/api/v1/games/{created.id}/actions",
        json={"action": "G7", "expected_version": 2},
        headers={"Authorization": f"Bearer {created.seats[0].token}", "Origin": EVIL},
    )
    assert moved.status_code in (200, 201), moved.json
    # The API reads no cookie: a browser holding a seat acts through it only with the token.
    seat = _holding(app, created.id, created.seats[1].token)
    cookie_only = seat.post(
        f"/api/v1/games/{created.id}/actions", json={"action": "H7", "expected_version": 3}
    )
    assert cookie_only.status_code in (401, 403) and _version(app, created.id) == 3
    # The webhook answers for itself (closed here: no secret configured), never as a form.
    hook = client.post("/inbound/email", data=b"x", headers={"Origin": EVIL})
    assert hook.status_code == 404 and hook.json["code"] == "not_configured"  # type: ignore[index]


# -- Origin and Sec-Fetch-Site ----------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": EVIL},
        {"Origin": "null"},
        {"Origin": "http://localhost:8080"},  # another port of the same host
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},  # a sibling subdomain
        {"Sec-Fetch-Site": "cross-site", "Origin": "http://localhost"},
    ],
)
def test_a_move_posted_from_another_origin_is_refused_even_with_the_token(
    app: Flask, headers: dict[str, str]
) -> None:
    created = _game(app)
    ann = _holding(app, created.id, created.seats[0].token)
    data = {"choice": "G7", "expected_version": "2", "csrf_token": _page_token(ann, created.id)}
    refused = ann.post(f"/games/{created.id}", data=data, headers=headers)
    assert refused.status_code == 403
    assert "sent from another site, so nothing was done" in refused.text
    assert _version(app, created.id) == 2


def test_a_head_request_changes_nothing_even_with_a_form_in_its_body(app: Flask) -> None:
    # HEAD is a safe method, so the CSRF check lets it by: it must do no more than GET.
    svc = _service(app)
    games = len(svc.list_games(1000))
    form = {"game": "lancelot", "name0": "Ann", "name1": "Bob", "time_control": "none"}
    assert _browser(app).head("/new", data=form).status_code == 200
    assert len(svc.list_games(1000)) == games


def test_a_refused_game_form_leads_back_to_the_game_and_tells_what_to_do(app: Flask) -> None:
    created = _game(app)
    gid = created.id
    ann = _holding(app, gid, created.seats[0].token)
    data = {"choice": "G7", "expected_version": "2"}
    stale = ann.post(f"/games/{gid}", data={**data, "csrf_token": "forged"})
    cross = ann.post(
        f"/games/{gid}",
        data={**data, "csrf_token": _page_token(ann, gid)},
        headers={"Sec-Fetch-Site": "cross-site"},
    )
    for refused in (stale, cross):
        # Not "this page cannot be shown": a form was refused, and the way back is the game's
        # page (reloading the answer to a post would send the stale form again).
        assert "<h1>Nothing was done</h1>" in refused.text, refused.text
        assert f'href="/games/{gid}"' in refused.text
    assert "Open the game&#39;s page again" in stale.text and "Reload" not in stale.text
    # Away from a game (the new-game form), the way back is that form.
    new = ann.post("/new", data={"game": "lancelot", "csrf_token": "forged"})
    assert "<h1>Nothing was done</h1>" in new.text and 'href="/new"' in new.text
    # A post-only address offers no link that would only answer 405.
    leave = ann.post("/leave", data={"csrf_token": "forged"})
    assert "<h1>Nothing was done</h1>" in leave.text and 'href="/leave"' not in leave.text


@pytest.mark.parametrize(
    "headers",
    [
        {},  # not a browser's request: the token is the whole check
        {"Origin": "http://localhost"},
        {"Sec-Fetch-Site": "same-origin", "Origin": "http://localhost"},
        {"Sec-Fetch-Site": "same-origin"},
    ],
)
def test_a_move_from_the_page_itself_is_played(app: Flask, headers: dict[str, str]) -> None:
    created = _game(app)
    ann = _holding(app, created.id, created.seats[0].token)
    data = {"choice": "G7", "expected_version": "2", "csrf_token": _page_token(ann, created.id)}
    played = ann.post(f"/games/{created.id}", data=data, headers=headers)
    assert played.status_code == 303, played.text
    assert _version(app, created.id) == 3


def test_the_configured_base_url_is_this_sites_origin_behind_a_proxy(app: Flask) -> None:
    created = _game(app)
    ann = _holding(app, created.id, created.seats[0].token)
    base = _service(app).settings.base_url.rstrip("/")
    data = {"choice": "G7", "expected_version": "2", "csrf_token": _page_token(ann, created.id)}
    played = ann.post(f"/games/{created.id}", data=data, headers={"Origin": base})
    assert played.status_code == 303 and _version(app, created.id) == 3


# -- The seat-link exchange -------------------------------------------------------------------


@pytest.mark.parametrize("private", [False, True])
def test_a_link_to_another_seat_asks_before_replacing_the_seat_held(
    app: Flask, private: bool
) -> None:
    created = _game(app, private=private)
    gid = created.id
    ann = _holding(app, gid, created.seats[0].token)
    # Another site makes the browser open Bob's link: the seat is not swapped.
    asked = ann.get(f"/games/{gid}?token={created.seats[1].token}")
    assert asked.status_code == 200 and "Change seats in game" in asked.text
    assert asked.headers["Cache-Control"] == "no-store"
    # same-origin: no Referer to other sites (no-referrer posts its form with "Origin: null")
    assert asked.headers["Referrer-Policy"] == "same-origin"
    assert _seat_shown(ann, gid) == "Ann (Red)"
    # Nor by a cross-site post of the confirmation, nor one without the page's token.
    form = {"token": created.seats[1].token, "csrf_token": _token_of(asked.text)}
    assert ann.post(f"/games/{gid}/seat", data=form, headers={"Origin": EVIL}).status_code == 403
    assert ann.post(f"/games/{gid}/seat", data={"token": form["token"]}).status_code == 400
    assert _seat_shown(ann, gid) == "Ann (Red)"
    # The person confirms on the page: now the browser holds Bob's seat.
    taken = ann.post(f"/games/{gid}/seat", data=form)
    assert taken.status_code == 303 and taken.headers["Location"] == f"/games/{gid}"
    assert _seat_shown(ann, gid) == "Bob (Blue)"
    # A link to the seat already held, or a first seat, needs no question.
    assert ann.get(f"/games/{gid}?token={created.seats[1].token}").status_code == 303
    assert _browser(app).get(f"/games/{gid}?token={created.seats[0].token}").status_code == 303


def test_a_confirmation_with_a_wrong_credential_takes_no_seat(app: Flask) -> None:
    created = _game(app)
    ann = _holding(app, created.id, created.seats[0].token)
    form = {"token": "not-a-token", "csrf_token": _page_token(ann, created.id)}
    refused = ann.post(f"/games/{created.id}/seat", data=form)
    assert refused.status_code in (401, 403, 404)
    assert _seat_shown(ann, created.id) == "Ann (Red)"


def _holding_admin(client: FlaskClient, game_id: str, token: str) -> None:
    with client.session_transaction() as held:
        held["admin"] = {**held.get("admin", {}), game_id: token}


def _admin_held(client: FlaskClient, game_id: str) -> str | None:
    with client.session_transaction() as held:
        found: str | None = held.get("admin", {}).get(game_id)
    return found


@pytest.mark.parametrize("page", ["", "/audit"])
@pytest.mark.parametrize("private", [False, True])
def test_an_admin_link_asks_before_replacing_the_admin_token_held(
    app: Flask, private: bool, page: str
) -> None:
    created = _game(app, private=private)
    gid, admin = created.id, created.admin_token
    if not private or page == "":
        # A browser holding nothing for the game takes the admin link as before.
        fresh = _browser(app)
        assert fresh.get(f"/games/{gid}{page}?admin={admin}").status_code == 303
        assert _admin_held(fresh, gid) == admin
    browser = _holding(app, gid, created.seats[0].token)
    _holding_admin(browser, gid, "the-token-this-browser-holds")
    # Another site makes the browser open the game's admin link: nothing is replaced.
    asked = browser.get(f"/games/{gid}{page}?admin={admin}")
    assert asked.status_code == 200 and "Use this admin link" in asked.text, asked.text
    assert asked.headers["Cache-Control"] == "no-store"
    # same-origin: no Referer to other sites (no-referrer posts its form with "Origin: null")
    assert asked.headers["Referrer-Policy"] == "same-origin"
    assert _admin_held(browser, gid) == "the-token-this-browser-holds"
    # Nor by a cross-site post of the confirmation, one without the page's token, or a
    # wrong admin token.
    form = {"admin": admin, "csrf_token": _token_of(asked.text), "page": page.strip("/")}
    post = browser.post
    assert post(f"/games/{gid}/admin", data=form, headers={"Origin": EVIL}).status_code == 403
    assert post(f"/games/{gid}/admin", data={"admin": admin}).status_code == 400
    assert post(f"/games/{gid}/admin", data={**form, "admin": "wrong"}).status_code in (403, 404)
    assert _admin_held(browser, gid) == "the-token-this-browser-holds"
    # The person confirms on the page: the browser holds the admin token, its seat kept.
    taken = post(f"/games/{gid}/admin", data=form)
    assert taken.status_code == 303 and taken.headers["Location"] == f"/games/{gid}{page}"
    assert _admin_held(browser, gid) == admin
    assert _seat_shown(browser, gid) == "Ann (Red)"
    # The link of the admin token already held needs no question.
    assert browser.get(f"/games/{gid}{page}?admin={admin}").status_code == 303


# -- Headers on every answer ------------------------------------------------------------------


def _path_for(rule: Any, game_id: str) -> str:
    values = {
        "game_id": game_id,
        "dispute": "1",
        "undo_request": "1",
        "proposal": "1",
        "request_id": "1",
        "filename": "pbem.css",
        "game": "lancaster",
        "name": "none.eml",
        "key": "k",
        "token": "t",
        "subscription": "1",
        "version": "1",  # a message of table talk
    }
    path = str(rule.rule)
    for argument in rule.arguments:
        path = re.sub(rf"<(?:[a-z]+:)?{argument}>", values[argument], path)
    return path


def _check_headers(answer: Any, what: str) -> None:
    for name, value in HEADERS.items():
        assert answer.headers.get(name) == value, (what, name, answer.headers)
    csp = answer.headers.get("Content-Security-Policy", "")
    for directive in ("script-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"):
        assert directive in csp, (what, csp)
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp, (what, csp)


def test_every_route_answers_with_the_security_headers(app: Flask, tmp_path: Path) -> None:
    created = _game(app)
    # The development pages too: an app of the same service with them on, on loopback.
    settings = _service(app).settings.with_changes(dev_pages=True, var_dir=str(tmp_path))
    dev = create_app(settings, _service(app), host="127.0.0.1")
    seen = 0
    for each in (app, dev):
        seat = _holding(each, created.id, created.seats[0].token)
        for rule in each.url_map.iter_rules():
            path = _path_for(rule, created.id)
            for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
                for client in (seat, _browser(each)):
                    answer = client.open(path, method=method)
                    answer.close()  # a static file's answer holds the file open
                    assert answer.status_code < 500, (method, path, answer.text)
                    _check_headers(answer, f"{method} {path}")
                    seen += 1
        # Errors: a page and an API address that do not exist, a method not allowed.
        for method, path in (
            ("GET", "/no/such/page"),
            ("GET", "/api/v1/nothing"),
            ("GET", "/games/nosuchgame"),
            ("PUT", "/new"),
        ):
            answer = _browser(each).open(path, method=method)
            assert answer.status_code in (404, 405), (method, path)
            _check_headers(answer, f"{method} {path}")
    assert seen > 100


def test_an_unexpected_error_answers_with_the_security_headers(tmp_path: Path) -> None:
    from tests.web.helpers import sqlite_app

    with sqlite_app(tmp_path) as app:

        @app.get("/boom")
        def boom() -> str:
            raise RuntimeError("a bug")

        answer = app.test_client().get("/boom")
        assert answer.status_code == 500
        _check_headers(answer, "GET /boom")


# -- The session cookie -----------------------------------------------------------------------


def _cookie(client: FlaskClient) -> str:
    cookie = client.get_cookie("session")
    assert cookie is not None
    return cookie.value


def test_the_session_cookie_holds_no_readable_token_and_lasts_the_days_set(app: Flask) -> None:
    created = _game(app)
    token = created.seats[0].token
    client = _browser(app)
    opened = client.get(f"/games/{created.id}?token={token}")
    value = _cookie(client)
    assert token not in value
    # Flask's signed cookie is base64 of JSON (zlib-compressed if it starts with "."): none
    # of its parts decode to anything holding the token.
    for part in value.lstrip(".").split("."):
        raw = base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
        with contextlib.suppress(zlib.error):
            raw = zlib.decompress(raw)
        assert token.encode() not in raw
    days = _service(app).settings.session_days
    assert days == 14
    set_cookie = opened.headers["Set-Cookie"]
    assert "HttpOnly" in set_cookie and "SameSite=Lax" in set_cookie
    expires = parsedate_to_datetime(re.search(r"Expires=([^;]+)", set_cookie)[1])  # type: ignore[index]
    lasts = expires - datetime.now(UTC)
    assert timedelta(days=days) - timedelta(minutes=5) < lasts <= timedelta(days=days)


def test_a_cookie_older_than_the_session_lifetime_opens_nothing(app: Flask) -> None:
    from cryptography.fernet import Fernet
    from flask.json.tag import TaggedJSONSerializer

    from web.session_cookie import cookie_key

    created = _game(app)
    old = _holding(app, created.id, created.seats[0].token)
    assert _seat_shown(old, created.id) == "Ann (Red)"
    days = _service(app).settings.session_days
    contents = TaggedJSONSerializer().dumps(
        {"seats": {created.id: {"token": created.seats[0].token}}, "_permanent": True}
    )
    fernet = Fernet(cookie_key(str(app.secret_key)))
    for age, seat in ((timedelta(days=days - 1), "Ann (Red)"), (timedelta(days=days + 1), None)):
        sealed = fernet.encrypt_at_time(contents.encode(), int(time.time() - age.total_seconds()))
        client = _browser(app)
        client.set_cookie("session", sealed.decode())
        assert _seat_shown(client, created.id) == (seat or "spectator")


def test_a_rotated_token_closes_the_page_in_every_browser_holding_it(app: Flask) -> None:
    from pbem.seats.credentials import replace_seat_token

    created = _game(app)
    svc = _service(app)
    ann = _holding(app, created.id, created.seats[0].token)
    assert _seat_shown(ann, created.id) == "Ann (Red)"
    with database_of(svc).write() as session:
        new = replace_seat_token(session, created.id, 0, "2030-01-01T00:00:00Z")
    assert _seat_shown(ann, created.id) == "spectator"
    refused = ann.post(
        f"/games/{created.id}",
        data={
            "choice": "G7",
            "expected_version": "2",
            "csrf_token": _token_of(ann.get("/new").text),
        },
    )
    assert refused.status_code == 403 and _version(app, created.id) == 2
    assert _seat_shown(_holding(app, created.id, new), created.id) == "Ann (Red)"


def test_leaving_the_browser_forgets_every_seat_and_admin_token(app: Flask) -> None:
    first, second = _game(app), _game(app)
    client = _holding(app, first.id, first.seats[0].token)
    _holding(app, second.id, second.seats[1].token, client)
    page = client.get(f"/games/{first.id}").text
    assert 'id="leave-browser"' in page
    left = client.post("/leave", data={"csrf_token": _token_of(page)})
    assert left.status_code == 303
    assert _seat_shown(client, first.id) == _seat_shown(client, second.id) == "spectator"
    assert 'id="leave-browser"' not in client.get(f"/games/{first.id}").text


def test_a_browser_holding_only_an_admin_link_can_sign_out_from_the_games_list(
    app: Flask,
) -> None:
    created = _game(app)
    client = _browser(app)
    assert client.get(f"/games/{created.id}?admin={created.admin_token}").status_code == 303
    index = client.get("/").text
    # Named for what it does, seats and admin links alike, on the page every visit reaches.
    assert 'id="leave-browser"' in index and "Sign out of this browser" in index
    assert client.post("/leave", data={"csrf_token": _token_of(index)}).status_code == 303
    with client.session_transaction() as held:
        assert not held.get("admin") and not held.get("seats")
    # A browser holding nothing is offered nothing to sign out of.
    assert 'id="leave-browser"' not in client.get("/").text


def test_the_suites_form_client_is_the_default_test_client(app: Flask) -> None:
    # The other suites' page posts carry the page's token through it (tests/form_client.py).
    assert isinstance(app.test_client(), FormClient)


def test_the_session_lifetime_is_a_setting_and_a_wrong_one_stops_the_service(
    app: Flask, tmp_path: Path
) -> None:
    from pbem.app.config import SettingsError, load_settings

    created = _game(app)
    settings = _service(app).settings.with_changes(session_days=2)
    client = _browser(create_app(settings, _service(app)))
    opened = client.get(f"/games/{created.id}?token={created.seats[0].token}")
    expires = parsedate_to_datetime(re.search(r"Expires=([^;]+)", opened.headers["Set-Cookie"])[1])  # type: ignore[index]
    assert timedelta(days=2) - timedelta(minutes=5) < expires - datetime.now(UTC)
    assert expires - datetime.now(UTC) <= timedelta(days=2)
    for wrong in ("0", "400"):
        env = {"PBEM_VAR_DIR": str(tmp_path), "PBEM_SESSION_DAYS": wrong}
        with pytest.raises(SettingsError, match="session_days must be from 1 to 366"):
            load_settings(env=env)
