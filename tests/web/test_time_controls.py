"""Choosing a time control when a game is created (the JSON API and /new), on SQLite and
PostgreSQL: a preset, a duration, an object, none; a bad one is refused with what to change
and creates nothing. The seat page shows the seat's deadline ("in …" from the service's
clock) and every page the game's time control."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem.app.bootstrap import build_service
from pbem.app.service import GameService
from pbem.clock import events as ce
from pbem.core.db import Database
from pbem.core.time_source import ManualClock
from tests.service.helpers import REGISTRY
from tests.settings import make_settings
from web import create_app

START = datetime(2026, 11, 23, 10, 0, tzinfo=UTC)  # a Monday


@pytest.fixture(scope="module")
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture(scope="module")
def app(database: Database, tmp_path_factory: pytest.TempPathFactory, clock: ManualClock) -> Flask:
    settings = make_settings(database.url, tmp_path_factory.mktemp("var"))
    service = build_service(settings, db=database, registry=REGISTRY, listeners=[], clock=clock)
    return create_app(service=service)


def _service(app: Flask) -> GameService:
    svc: GameService = app.extensions["pbem"]
    return svc


def _create(client: FlaskClient, **body: Any) -> Any:
    players = [{"name": "Ann"}, {"name": "Bob"}]
    return client.post("/api/v1/games", json={"game": "lancelot", "players": players, **body})


def _page(app: Flask, game_id: str, token: str | None = None) -> str:
    client = app.test_client()
    if token is not None:
        assert client.get(f"/games/{game_id}?token={token}").status_code == 303
    answer = client.get(f"/games/{game_id}")
    assert answer.status_code == 200
    return answer.get_data(as_text=True)


def _clock_paragraph(html: str) -> str:
    found = re.search(r'<p class="clock" id="clock">(.*?)</p>', html, re.S)
    assert found is not None, html
    return re.sub(r"<[^>]+>", "", found.group(1)).strip()


def test_a_preset_gives_the_seat_to_act_a_deadline_on_its_page(
    app: Flask, clock: ManualClock
) -> None:
    clock.set(START)
    made = _create(app.test_client(), time_control="standard")
    assert made.status_code == 201, made.json
    gid, seats = made.json["id"], made.json["seats"]
    clock.set(START + timedelta(hours=20))
    ann = _clock_paragraph(_page(app, gid, seats[0]["token"]))
    assert ann.startswith("Deadline: Wed 25 Nov 2026 10:00 UTC (in 1 day 4 hours)"), ann
    assert ann.endswith("Time control: 2 days per move."), ann
    bob = _clock_paragraph(_page(app, gid, seats[1]["token"]))  # not his turn: no deadline
    assert bob == "Time control: 2 days per move."
    assert _clock_paragraph(_page(app, gid)) == "Time control: 2 days per move."


@pytest.mark.parametrize(
    ("given", "described"),
    [
        ("90m", "1 hour 30 minutes per move"),
        (
            {"kind": "clock", "initial": "3d", "increment": "12h", "cap": "5d", "grace": "1h"},
            "clock: 3 days, +12 hours per move, at most 5 days, 1 hour grace",
        ),
        ({"preset": "fast", "on_deadline": "wait"}, "12 hours per move; a late move waits"),
        (None, "no time limit"),
    ],
)
def test_a_duration_an_object_or_nothing(app: Flask, given: Any, described: str) -> None:
    body = {} if given is None else {"time_control": given}
    made = _create(app.test_client(), **body)
    assert made.status_code == 201, made.json
    paragraph = _clock_paragraph(_page(app, made.json["id"], made.json["seats"][0]["token"]))
    assert described in paragraph, paragraph
    if given is None:
        assert paragraph.startswith("Deadline: none set")


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("48 parsecs", "neither a preset (none, relaxed, standard, fast, demo) nor a duration"),
        ({"kind": "fixed"}, "a fixed time control needs per_decision"),
        ({"preset": "blitz"}, "unknown preset 'blitz'"),
        ({"per_decison": "1h"}, "unknown field 'per_decison'"),
        (12, "give a preset's name, a duration per move, or an object"),
        ({"preset": "standard", "time_zone": "Mars/Olympus"}, "is not a time zone"),
    ],
)
def test_a_bad_time_control_is_a_400_saying_what_to_change(
    app: Flask, given: Any, said: str
) -> None:
    before = len(_service(app).list_games(1000))
    answer = _create(app.test_client(), time_control=given)
    assert answer.status_code == 400, answer.json
    assert said in answer.json["message"], answer.json
    assert answer.json["message"].startswith("The time control cannot be used")
    assert len(_service(app).list_games(1000)) == before


def test_the_seat_page_says_when_the_clock_is_paused_or_the_game_waits(
    app: Flask, clock: ManualClock
) -> None:
    clock.set(START)
    made = _create(app.test_client(), time_control={"preset": "fast", "on_deadline": "wait"})
    gid, token = made.json["id"], made.json["seats"][0]["token"]
    service = _service(app)
    with service.parts.transactions.on(gid) as work:
        paused = ce.GamePaused(by="administrator", by_seat=None, channel="cli", channel_ref=None)
        work.append([paused], work.state)
    assert _clock_paragraph(_page(app, gid, token)).startswith("Deadline: clock paused")
    with service.parts.transactions.on(gid) as work:
        resumed = ce.GameResumed(by="administrator", by_seat=None, channel="cli", channel_ref=None)
        work.append([resumed], work.state)
    clock.set(START + timedelta(hours=13))
    with service.parts.transactions.on(gid) as work:
        missed = ce.DeadlineMissed(
            seat=0, due_at="2026-11-23T22:00:00.000000Z", move=False, reason="waiting"
        )
        work.append([missed], work.state)
    paragraph = _clock_paragraph(_page(app, gid, token))
    assert paragraph.startswith("Deadline: deadline passed; waiting for the administrator")


def test_new_offers_the_presets_and_refuses_another_value(app: Flask) -> None:
    client = app.test_client()
    form = client.get("/new").get_data(as_text=True)
    select = re.search(r'<select id="time_control".*?</select>', form, re.S)
    assert select is not None
    options = re.findall(r'<option value="(\w+)"', select.group(0))
    assert options == ["none", "relaxed", "standard", "fast", "demo"]
    assert "<strong>fast</strong>: 12 hours per move." in form
    assert "<strong>demo</strong>: 3 minutes per move" in form
    before = len(_service(app).list_games(1000))
    data = {"game": "lancelot", "name0": "Ann", "name1": "Bob", "time_control": "48 parsecs"}
    refused = client.post("/new", data=data)
    assert refused.status_code == 400
    error = re.search(r'id="time_control-error">(.*?)<', refused.get_data(as_text=True), re.S)
    assert error is not None and "Choose one of the time controls listed" in error.group(1)
    assert "neither a preset" in error.group(1)
    assert len(_service(app).list_games(1000)) == before
    made = client.post("/new", data={**data, "time_control": "fast"})
    assert made.status_code == 200, made.get_data(as_text=True)
    gid = re.findall(r"/games/(\w+)\?token=", made.get_data(as_text=True))[0]
    assert "Time control: 12 hours per move" in _page(app, gid)
    plain = client.post("/new", data={k: v for k, v in data.items() if k != "time_control"})
    assert plain.status_code == 200
    gid = re.findall(r"/games/(\w+)\?token=", plain.get_data(as_text=True))[0]
    assert "Time control: no time limit" in _page(app, gid)


def test_the_seat_page_gives_the_deadline_in_the_players_time_zone(
    app: Flask, clock: ManualClock
) -> None:
    clock.set(START)
    address = "zoned-ann@example.org"
    players = [{"name": "Ann", "email": address}, {"name": "Bob"}]
    made = app.test_client().post(
        "/api/v1/games",
        json={"game": "lancelot", "players": players, "time_control": "standard"},
    )
    assert made.status_code == 201, made.json
    gid, seats = made.json["id"], made.json["seats"]
    service = _service(app)
    service.accept_invitation(gid, 0, channel="api")  # an invited seat is not yet timed
    service.set_time_zone(address.upper(), "America/New_York")
    clock.set(START + timedelta(hours=20))
    ann = _clock_paragraph(_page(app, gid, seats[0]["token"]))
    assert ann.startswith(
        "Deadline: Wed 25 Nov 2026 10:00 UTC (05:00 America/New_York), in 1 day 4 hours"
    ), ann
