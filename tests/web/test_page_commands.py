"""Every player command of the mail on the seat's page, through Flask's test client: a
standing order set, seen and cleared; away and back; asking the others for an extension or
a pause and answering; the address's time zone and digest. Each answers at the top of the
page (a notice after the redirect, or the refusal in the page's alert), and each acts for
the seat this browser holds only: another seat, another game's session and an outsider are
refused, and the address's commands need the seat opened from a mail's link (the token
shown at the game's creation proves the seat, not the address)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem.app.service import GameService
from tests.web.helpers import sqlite_app, welcome

_n = iter(range(10_000))


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    with sqlite_app(tmp_path_factory.mktemp("commands")) as app:
        yield app


def _service(app: Flask) -> GameService:
    svc: GameService = app.extensions["pbem"]
    return svc


def timed_game(app: Flask, emails: list[str] | None = None, **kw: Any) -> Any:
    n = next(_n)
    emails = emails or [f"page{n}-{i}@example.org" for i in range(2)]
    seats = [{"name": name, "email": e} for name, e in zip(("Ann", "Bob"), emails, strict=True)]
    welcome(app.test_client(), seats)
    return _service(app).create_game("hoard", {}, seats, time_control="48h", **kw)


def by_token(app: Flask, game_id: str, token: str) -> FlaskClient:
    client = app.test_client()
    assert client.get(f"/games/{game_id}?token={token}").status_code == 303
    return client


def by_mail(app: Flask, game_id: str, seat: int, client: FlaskClient | None = None) -> FlaskClient:
    """A browser that opened the seat from the link of a mail to its address."""
    svc = _service(app)
    client = client or app.test_client()
    link = svc.seat_link(game_id, seat).removeprefix(svc.settings.base_url.rstrip("/"))
    assert client.get(link).status_code == 303
    return client


def notice(client: FlaskClient, game_id: str) -> str:
    """The notice at the top of the game page the redirect leads to."""
    page = client.get(f"/games/{game_id}").text
    found = re.search(r'<div class="notice done" role="status">([^<]*)</div>', page)
    assert found, "no notice at the top of the page"
    # above the board and every form of the page
    assert page.index('role="status">') < page.index('id="settings"')
    return found.group(1)


def alert(response: Any) -> str:
    found = re.search(
        r'<div class="alert" role="alert" id="alert"><strong>Not done:</strong> ([^<]*)</div>',
        response.text,
    )
    assert found, response.text[:400]
    assert response.text.index('id="alert"') < response.text.index('id="settings"')
    return found.group(1)


def order_of(app: Flask, game_id: str, seat: int) -> str | None:
    order: str | None = _service(app).seat_settings(game_id, seat)["standing_order"]
    return order


def test_a_standing_order_is_set_seen_and_cleared_on_the_page(app: Flask) -> None:
    g = timed_game(app)
    ann = by_token(app, g.id, g.seats[0].token)
    page = ann.get(f"/games/{g.id}").text
    assert "Standing order: none" in page and 'id="order"' in page
    made = ann.post(f"/games/{g.id}/standing-order", data={"order": "draw"})
    assert made.status_code == 303 and made.headers["Location"] == f"/games/{g.id}#content"
    assert "Standing order set" in notice(ann, g.id) and order_of(app, g.id, 0) == "draw"
    assert 'Standing order: <span class="mono">draw</span>' in ann.get(f"/games/{g.id}").text
    # Not legal now: refused at the top of the page, the text kept, nothing changed.
    version = _service(app).load(g.id).version
    bad = ann.post(f"/games/{g.id}/standing-order", data={"order": "fly away"})
    assert bad.status_code in (400, 422) and "standing order was not set" in alert(bad)
    assert 'value="fly away"' in bad.text
    assert _service(app).load(g.id).version == version and order_of(app, g.id, 0) == "draw"
    cleared = ann.post(f"/games/{g.id}/standing-order", data={"clear": "yes"})
    assert cleared.status_code == 303 and "cleared" in notice(ann, g.id)
    assert order_of(app, g.id, 0) is None
    # Bob's page never shows Ann's order.
    ann.post(f"/games/{g.id}/standing-order", data={"order": "draw"})
    bob = by_token(app, g.id, g.seats[1].token)
    assert "draw" not in bob.get(f"/games/{g.id}").text.split('id="settings"')[1]


def test_a_seat_page_acts_for_its_own_seat_and_game_only(app: Flask) -> None:
    g, other = timed_game(app), timed_game(app)
    outsider = app.test_client()
    elsewhere = by_token(app, other.id, other.seats[0].token)  # a session of another game
    before = _service(app).load(g.id).version
    for url, data in (
        ("standing-order", {"order": "draw"}),
        ("away", {"until": "2099-01-01"}),
        ("back", {}),
        ("clock-request", {"what": "pause"}),
        ("clock-request/answer", {"agree": "yes"}),
        ("time-zone", {"zone": "Europe/Paris"}),
        ("digest", {"digest": "daily"}),
    ):
        for client in (outsider, elsewhere):
            refused = client.post(f"/games/{g.id}/{url}", data=data)
            assert refused.status_code == 403 and "Only a player of this game" in refused.text
    assert _service(app).load(g.id).version == before
    assert _service(app).seat_settings(g.id, 0)["time_zone"] is None
    # Bob's page sets Bob's order, never Ann's.
    bob = by_token(app, g.id, g.seats[1].token)
    assert bob.post(f"/games/{g.id}/standing-order", data={"order": "pass"}).status_code == 303
    assert order_of(app, g.id, 1) == "pass" and order_of(app, g.id, 0) is None


def test_away_and_back_from_a_mail_link_act_in_every_game_of_the_address(app: Flask) -> None:
    emails = [f"away{next(_n)}-{i}@example.org" for i in range(2)]
    first, second = timed_game(app, emails), timed_game(app, emails)
    ann = by_mail(app, first.id, 0)
    gone = ann.post(f"/games/{first.id}/away", data={"until": "2099-01-01"})
    assert gone.status_code == 400 and "more than a year" in alert(gone)  # nothing recorded
    assert _service(app).seat_settings(first.id, 0)["away_until"] is None
    went = ann.post(f"/games/{first.id}/away", data={"until": _in_days(app, 3)})
    assert went.status_code == 303 and "in each of your games" in notice(ann, first.id)
    for game in (first, second):
        assert _service(app).seat_settings(game.id, 0)["away_until"] is not None
    assert "You are away until" in ann.get(f"/games/{first.id}").text
    assert ann.post(f"/games/{first.id}/back").status_code == 303
    assert "Welcome back" in notice(ann, first.id)
    for game in (first, second):
        assert _service(app).seat_settings(game.id, 0)["away_until"] is None


def test_with_the_creation_token_away_is_this_game_only_and_the_address_is_not_touched(
    app: Flask,
) -> None:
    emails = [f"token{next(_n)}-{i}@example.org" for i in range(2)]
    first, second = timed_game(app, emails), timed_game(app, emails)
    ann = by_token(app, first.id, first.seats[0].token)
    went = ann.post(f"/games/{first.id}/away", data={"until": _in_days(app, 3)})
    assert went.status_code == 303 and "in this game" in notice(ann, first.id)
    assert _service(app).seat_settings(first.id, 0)["away_until"] is not None
    assert _service(app).seat_settings(second.id, 0)["away_until"] is None
    page = ann.get(f"/games/{first.id}").text
    assert 'id="zone"' not in page and "open this page from the link in a mail" in page
    for url, data in (("time-zone", {"zone": "Europe/Paris"}), ("digest", {"digest": "daily"})):
        refused = ann.post(f"/games/{first.id}/{url}", data=data)
        assert refused.status_code == 403 and "belong to your e-mail address" in alert(refused)
    settings = _service(app).seat_settings(first.id, 0)
    assert settings["time_zone"] is None and settings["digest"] is False


def test_time_zone_and_digest_from_a_mail_link(app: Flask) -> None:
    g = timed_game(app)
    ann = by_mail(app, g.id, 0)
    bad = ann.post(f"/games/{g.id}/time-zone", data={"zone": "Mars/Olympus"})
    assert bad.status_code == 400 and "not a time zone I know" in alert(bad)
    assert 'value="Mars/Olympus"' in bad.text
    assert ann.post(f"/games/{g.id}/time-zone", data={"zone": "europe/paris"}).status_code == 303
    assert "Time zone set: Europe/Paris" in notice(ann, g.id)
    assert _service(app).time_zone(g.seats[0].email) == "Europe/Paris"
    assert ann.post(f"/games/{g.id}/digest", data={"digest": "daily"}).status_code == 303
    assert "Daily digest on" in notice(ann, g.id)
    assert _service(app).seat_settings(g.id, 0)["digest"] is True
    assert "Digest: daily" in ann.get(f"/games/{g.id}").text
    # Bob's address is not Ann's: his settings are untouched.
    assert _service(app).seat_settings(g.id, 1)["digest"] is False


def test_a_pause_asked_on_the_page_is_answered_on_the_others_page(app: Flask) -> None:
    g = timed_game(app)
    ann, bob = by_token(app, g.id, g.seats[0].token), by_token(app, g.id, g.seats[1].token)
    asked = ann.post(f"/games/{g.id}/clock-request", data={"what": "pause"})
    assert asked.status_code == 303 and "asked the others to pause" in notice(ann, g.id)
    again = ann.post(f"/games/{g.id}/clock-request", data={"what": "extend", "by": "1d"})
    assert again.status_code == 409 and "waiting for answers" in alert(again)
    own = ann.post(f"/games/{g.id}/clock-request/answer", data={"agree": "yes"})
    assert own.status_code == 409 and "your own request" in alert(own)
    page = bob.get(f"/games/{g.id}").text
    assert "Pause requested" in page and 'name="agree" value="yes"' in page
    agreed = bob.post(f"/games/{g.id}/clock-request/answer", data={"what": "pause", "agree": "yes"})
    assert agreed.status_code == 303 and "Granted" in notice(bob, g.id)
    assert _service(app).seat_settings(g.id, 0)["paused"] is True
    assert "The game is paused." in ann.get(f"/games/{g.id}").text


def test_a_refused_take_back_is_said_at_the_top_of_the_page(app: Flask) -> None:
    created = _service(app).create_game("lancelot", {}, [{"name": "Ann"}, {"name": "Bob"}])
    ann = by_token(app, created.id, created.seats[0].token)
    _service(app).submit(created.id, 0, "G7", expected_version=2, channel="api")
    stale = ann.post(f"/games/{created.id}/undo", data={"expected_version": "2"})
    assert stale.status_code == 409
    assert stale.text.index('id="undo-error"') < stale.text.index('class="lboard"')


def _in_days(app: Flask, days: int) -> str:
    return (_service(app).clock.now() + timedelta(days=days)).strftime("%Y-%m-%d")


SEAT_FORMS = (
    ("standing-order", {"order": "draw"}),
    ("away", {"until": "2026-12-24"}),
    ("back", {}),
    ("clock-request", {"what": "pause"}),
    ("clock-request/answer", {"agree": "yes"}),
    ("time-zone", {"zone": "Asia/Tokyo"}),
    ("digest", {"digest": "daily"}),
)


@pytest.mark.parametrize(("url", "data"), SEAT_FORMS)
def test_a_seat_form_sent_from_another_site_does_nothing(
    app: Flask, url: str, data: dict[str, str]
) -> None:
    g = timed_game(app)
    ann = by_mail(app, g.id, 0)  # the right session and a valid CSRF token, another origin
    before = (_service(app).load(g.id).version, _service(app).seat_settings(g.id, 0))
    for headers in ({"Sec-Fetch-Site": "cross-site"}, {"Origin": "http://evil.example"}):
        refused = ann.post(f"/games/{g.id}/{url}", data=data, headers=headers)
        assert refused.status_code == 403 and "sent from another site" in refused.text
    assert (_service(app).load(g.id).version, _service(app).seat_settings(g.id, 0)) == before
