"""The administrator's page (``/games/<id>/admin``) through Flask's test client: opened only
with that game's admin link (another game's admin link, a seat's session and a visitor are
refused and change nothing); from it the administrator extends a deadline, pauses and
resumes, changes the time control, resigns a seat, ends the game, and upholds or dismisses a
dispute seen with its whole evidence, each said at the top of the page."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem.app.service import GameService
from tests.web.helpers import sqlite_app, welcome

_n = iter(range(10_000))


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    with sqlite_app(tmp_path_factory.mktemp("admin")) as app:
        yield app


def _service(app: Flask) -> GameService:
    svc: GameService = app.extensions["pbem"]
    return svc


def timed_game(app: Flask, players: str = "AB") -> Any:
    n = next(_n)
    seats = [{"name": name, "email": f"adm{n}-{i}@example.org"} for i, name in enumerate(players)]
    welcome(app.test_client(), seats)
    return _service(app).create_game("hoard", {}, seats, time_control="48h")


def admin_of(app: Flask, game: Any) -> FlaskClient:
    client = app.test_client()
    opened = client.get(f"/games/{game.id}/admin?admin={game.admin_token}")
    assert opened.status_code == 303 and opened.headers["Location"] == f"/games/{game.id}/admin"
    assert game.admin_token not in client.get(f"/games/{game.id}/admin").text
    return client


def notice(client: FlaskClient, game_id: str) -> str:
    page = client.get(f"/games/{game_id}/admin").text
    found = re.search(r'<div class="notice done" role="status">([^<]*)</div>', page)
    assert found, "no notice at the top of the page"
    assert page.index('role="status"') < page.index('id="decide"')
    return found.group(1)


def status_of(app: Flask, game_id: str, seat: int) -> str:
    row = next(d for d in _service(app).deadlines(game_id) if d["seat"] == seat)
    return str(row["status"])


def test_only_the_games_admin_link_opens_the_page_and_its_forms(app: Flask) -> None:
    g, other = timed_game(app), timed_game(app)
    outsider = app.test_client()
    seat = app.test_client()
    assert seat.get(f"/games/{g.id}?token={g.seats[0].token}").status_code == 303
    wrong = app.test_client()
    # another game's admin link is refused as this game's
    assert wrong.get(f"/games/{g.id}/admin?admin={other.admin_token}").status_code == 403
    assert wrong.get(f"/games/{other.id}/admin?admin={other.admin_token}").status_code == 303
    before = _service(app).load(g.id).version
    for client in (outsider, seat, wrong):
        assert client.get(f"/games/{g.id}/admin").status_code == 403
        for url, data in (
            ("pause", {}),
            ("extend", {"seat": "0", "by": "1d"}),
            ("time-control", {"time_control": "fast"}),
            ("resign", {"seat": "1"}),
            ("end", {"confirm": "yes"}),
            ("disputes/4/resolve", {"decision": "uphold"}),
        ):
            refused = client.post(f"/games/{g.id}/admin/{url}", data=data)
            assert refused.status_code == 403, (url, refused.status_code)
            assert "open the admin link shown when the game was created" in refused.text
    assert _service(app).load(g.id).version == before


def test_the_administrator_extends_pauses_resumes_and_changes_the_time_control(
    app: Flask,
) -> None:
    g = timed_game(app)
    admin = admin_of(app, g)
    page = admin.get(f"/games/{g.id}/admin").text
    assert "Seats and deadlines" in page and 'id="pause"' in page
    due = _service(app).deadlines(g.id)[0]["due_at"]
    bad = admin.post(f"/games/{g.id}/admin/extend", data={"seat": "0", "by": "soon"})
    assert bad.status_code == 400 and 'id="alert"' in bad.text
    assert bad.text.index('id="alert"') < bad.text.index('id="decide"')
    assert _service(app).deadlines(g.id)[0]["due_at"] == due
    extended = admin.post(f"/games/{g.id}/admin/extend", data={"seat": "0", "by": "1d"})
    assert extended.status_code == 303 and "extended by 1 day" in notice(admin, g.id)
    assert _service(app).deadlines(g.id)[0]["due_at"] > due
    assert admin.post(f"/games/{g.id}/admin/pause").status_code == 303
    assert "paused" in notice(admin, g.id) and status_of(app, g.id, 0) == "paused"
    assert 'id="resume"' in admin.get(f"/games/{g.id}/admin").text
    again = admin.post(f"/games/{g.id}/admin/pause")
    assert again.status_code == 409 and "already paused" in again.text
    assert admin.post(f"/games/{g.id}/admin/resume").status_code == 303
    assert "resumed" in notice(admin, g.id) and status_of(app, g.id, 0) == "running"
    changed = admin.post(f"/games/{g.id}/admin/time-control", data={"time_control": "fast"})
    assert changed.status_code == 303 and "next decision" in notice(admin, g.id)
    wrong = admin.post(f"/games/{g.id}/admin/time-control", data={"time_control": "soon"})
    assert wrong.status_code == 400 and "soon" in wrong.text


def test_the_administrator_resigns_a_seat_and_ends_the_game(app: Flask) -> None:
    g = timed_game(app, "ABC")
    admin = admin_of(app, g)
    resigned = admin.post(f"/games/{g.id}/admin/resign", data={"seat": "1"})
    assert resigned.status_code == 303 and "is resigned" in notice(admin, g.id)
    assert _service(app).seat_info(g.id, 1).resigned  # type: ignore[union-attr]
    unticked = admin.post(f"/games/{g.id}/admin/end", data={})
    assert unticked.status_code == 400 and not _service(app).game_status(g.id)["finished"]
    ended = admin.post(f"/games/{g.id}/admin/end", data={"confirm": "yes"})
    assert ended.status_code == 303 and "seed is revealed" in notice(admin, g.id)
    assert _service(app).game_status(g.id)["finished"]
    # The game's page links its administrator's page for this browser only.
    assert 'id="admin-page"' in admin.get(f"/games/{g.id}").text
    assert 'id="admin-page"' not in app.test_client().get(f"/games/{g.id}").text


def test_a_dispute_is_seen_with_its_evidence_and_dismissed_then_one_upheld(app: Flask) -> None:
    g = timed_game(app)
    svc = _service(app)
    svc.submit(g.id, 0, "keep", expected_version=svc.load(g.id).version, channel="api")
    moved = svc.load(g.id).version
    svc.open_dispute(g.id, 1, moved, moved, "A kept too soon", channel="api")
    admin = admin_of(app, g)
    page = admin.get(f"/games/{g.id}/admin").text
    assert "A kept too soon" in page and "Legal actions then" in page  # the whole evidence
    unexplained = admin.post(
        f"/games/{g.id}/admin/disputes/1/resolve", data={"decision": "dismiss"}
    )
    assert unexplained.status_code == 400 and "Say why" in unexplained.text
    dispute = svc.disputes_of(g.id)[0]["dispute"]
    dismissed = admin.post(
        f"/games/{g.id}/admin/disputes/{dispute}/resolve",
        data={"decision": "dismiss", "reason": "A may keep"},
    )
    assert dismissed.status_code == 303 and "dismissed" in notice(admin, g.id)
    assert svc.disputes_of(g.id)[0]["status"] == "dismissed"
    # (a seat whose dispute was dismissed waits a decision's time to open another)
    h = timed_game(app)
    svc.submit(h.id, 0, "keep", expected_version=svc.load(h.id).version, channel="api")
    moved = svc.load(h.id).version
    second = svc.open_dispute(h.id, 1, moved, moved, "Really", channel="api").dispute
    admin = admin_of(app, h)
    upheld = admin.post(
        f"/games/{h.id}/admin/disputes/{second}/resolve", data={"decision": "uphold"}
    )
    assert upheld.status_code == 303 and "upheld" in notice(admin, h.id)
    assert any(e.type == "ActionsRetracted" for e in svc.raw_events(h.id))


@pytest.mark.parametrize(
    ("url", "data"),
    [
        ("pause", {}),
        ("extend", {"seat": "0", "by": "1d"}),
        ("time-control", {"time_control": "fast"}),
        ("resign", {"seat": "1"}),
        ("end", {"confirm": "yes"}),
    ],
)
def test_an_admin_form_sent_from_another_site_does_nothing(
    app: Flask, url: str, data: dict[str, str]
) -> None:
    g = timed_game(app, "ABC")
    admin = admin_of(app, g)
    before = _service(app).load(g.id).version
    refused = admin.post(
        f"/games/{g.id}/admin/{url}", data=data, headers={"Sec-Fetch-Site": "cross-site"}
    )
    assert refused.status_code == 403 and "sent from another site" in refused.text
    assert _service(app).load(g.id).version == before


def test_a_private_games_admin_page_is_there_for_its_admin_link_only(app: Flask) -> None:
    n = next(_n)
    seats = [{"name": name, "email": f"priv{n}-{i}@example.org"} for i, name in enumerate("AB")]
    welcome(app.test_client(), seats)
    g = _service(app).create_game("hoard", {}, seats, time_control="48h", private=True)
    stranger = app.test_client().get(f"/games/{g.id}/admin")
    assert stranger.status_code == 404 and "There is no game" in stranger.text
    admin = admin_of(app, g)
    assert "Seats and deadlines" in admin.get(f"/games/{g.id}/admin").text
