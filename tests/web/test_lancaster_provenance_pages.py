"""Provenance players can see (issue 23, Build 5).

``/rules/lancaster`` is the rules in our own words, then the notation, then a section generated
from the latest release listing every value still provisional, in words. A game created with
``data`` overrides shows what it changes from the printed game on its page and its seat page;
its creation event records the normalised overrides, read back through the service and the
API's event log."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

from engine import REGISTRY as ENGINES
from pbem.app.service import GameService
from pbem.core import events as ev
from pbem.core.resources import document
from pbem.play.component_values import describe, overridden, provisional, sections
from tests.web.helpers import sqlite_app

PLAYERS = [{"name": n} for n in ("Ann", "Bob", "Cat")]
EVERY_MODULE = {"kings_court": True, "resentment": True, "laws_of_the_king": True}
#: an owner's corrections, as typed (not normalised: a reward's parts in any order)
OVERRIDES: dict[str, Any] = {
    "counties": {"G": {"reward": {"power": 5}}, "C": {"reward": {"squires": 1, "gold": 2}}},
    "castle": {"2": {"reward": {"gold": 3}}},
}


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    with sqlite_app(tmp_path_factory.mktemp("provenance")) as app:
        yield app


def _text(body: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", body)))


def _first_heading(name: str) -> str:
    return next(
        line.lstrip("# ").strip() for line in document(name).splitlines() if line.startswith("# ")
    )


# -- /rules/lancaster ---------------------------------------------------------------------------


def test_the_rules_page_has_the_rules_then_the_notation_then_the_provisional_values(
    app: Flask,
) -> None:
    body = app.test_client().get("/rules/lancaster").get_data(as_text=True)
    rules_at = body.index(f"<h1>{_first_heading('lancaster-rules')}</h1>")
    notation_at = body.index(f"<h1>{_first_heading('lancaster-notation')}</h1>")
    values_at = body.index('<h1 id="provisional">Values not from a published source</h1>')
    assert rules_at < notation_at < values_at


def test_the_rules_page_lists_every_provisional_value_of_the_latest_release_in_words(
    app: Flask,
) -> None:
    latest = ENGINES["lancaster"]
    seen = _text(app.test_client().get("/rules/lancaster").get_data(as_text=True))
    listed = sections(latest)
    assert listed[0].when == "In every game"
    # Every value the engine calls provisional, under the base game and each module set.
    expected: dict[str, str] = {}
    for combo in latest.module_combinations():
        config = {"players": 3, **({"expansions": dict.fromkeys(combo, True)} if combo else {})}
        expected.update(latest.provisional_values(config))
    shown = {v.path for section in listed for v in section.values}
    assert shown == set(expected)
    for section in listed:
        for v in section.values:
            assert v.what != v.path  # in words, not the data path alone
            assert f"{v.what} {v.value} {v.path}" in seen, v
    # e.g. the dishonor track, in words, with its values from the engine
    assert "The King's Resentment: the dishonor track's penalties per space" in seen
    assert "1/0, 2/1, 3/1" in seen


def test_a_rules_page_of_a_game_without_component_data_has_no_such_section(
    app: Flask,
) -> None:
    # Lancelot has no component data: its page has no such section.
    body = app.test_client().get("/rules/lancelot").get_data(as_text=True)
    assert 'id="provisional"' not in body


# -- the game page and the seat page -----------------------------------------------------------


def _seat_and_public(app: Flask, game_id: str, token: str) -> list[str]:
    seat = app.test_client()
    assert seat.get(f"/games/{game_id}?token={token}").status_code == 303
    return [
        seat.get(f"/games/{game_id}").get_data(as_text=True),
        app.test_client().get(f"/games/{game_id}").get_data(as_text=True),
    ]


def test_a_game_with_overrides_shows_them_on_its_seat_page_and_its_game_page(app: Flask) -> None:
    svc: GameService = app.extensions["pbem"]
    created = svc.create_game("lancaster", {"data": OVERRIDES}, PLAYERS)
    for body in _seat_and_public(app, created.id, created.seats[0].token):
        seen = _text(body)
        assert "This game changes these values from the printed game:" in seen
        assert "York (county C): its reward: 2 gold + 1 squire" in seen
        assert "(instead of 1 new knight (strength 1) + 2 voting markers)" in seen
        assert "Somerset (county G): its reward: 5 power points (instead of 4 power points)" in seen
        assert "Castle space 2: its reward: 3 gold (instead of 2 gold)" in seen
        assert "counties.G" not in seen  # plain words only


def test_an_overridden_provisional_value_is_no_longer_counted(app: Flask) -> None:
    svc: GameService = app.extensions["pbem"]
    created = svc.create_game("lancaster", {"data": OVERRIDES}, PLAYERS)
    plain = len(ENGINES["lancaster"].provisional_values({"players": 3}))
    # Somerset's reward and castle space 2 were provisional; the owner's values replace them.
    left = len(ENGINES["lancaster"].provisional_values({"players": 3, "data": OVERRIDES}))
    assert left == plain - 2
    for body in _seat_and_public(app, created.id, created.seats[0].token):
        assert f"{left} values of this game are not from a published source" in _text(body)


def test_a_game_without_overrides_says_nothing_of_them(app: Flask) -> None:
    svc: GameService = app.extensions["pbem"]
    created = svc.create_game("lancaster", {"expansions": EVERY_MODULE}, PLAYERS)
    for body in _seat_and_public(app, created.id, created.seats[0].token):
        assert "changes these values" not in body
        assert 'id="law-sets"' not in body  # the base laws: nothing to say of law groups


def test_the_overrides_are_worded_from_the_games_own_dataset() -> None:
    latest = ENGINES["lancaster"]
    config = latest.validate_config({"players": 3, "data": OVERRIDES})
    words = {v.path: v for v in overridden(latest, config)}
    assert set(words) == {"counties.C.reward", "counties.G.reward", "castle.2.reward"}
    assert words["counties.G.reward"].printed == "4 power points"
    assert not any(v.path == "counties.G.reward" for v in provisional(latest, config))
    # A path with no words of ours is shown as itself, never dropped.
    assert describe(latest.base, "nonsense.path") == ("nonsense.path", "?")


# -- the creation event -------------------------------------------------------------------------


def test_the_creation_event_records_the_normalised_overrides(app: Flask) -> None:
    svc: GameService = app.extensions["pbem"]
    created = svc.create_game("lancaster", {"data": OVERRIDES}, PLAYERS)
    first = svc.raw_events(created.id)[0].payload
    assert isinstance(first, ev.GameCreated)
    normalised = ENGINES["lancaster"].validate_config({"players": 3, "data": OVERRIDES})["data"]
    assert first.config["data"] == normalised
    # normalised: each reward's parts sorted by name, as the engine reads them back
    assert list(first.config["data"]["counties"]["C"]["reward"]) == ["gold", "squires"]


def test_the_api_creates_with_overrides_and_its_event_log_shows_them(app: Flask) -> None:
    client = app.test_client()
    answer = client.post(
        "/api/v1/games",
        json={"game": "lancaster", "config": {"data": OVERRIDES}, "players": PLAYERS},
    )
    assert answer.status_code == 201, answer.get_json()
    game_id = answer.get_json()["id"]
    log = client.get(f"/api/v1/games/{game_id}/events").get_json()["events"]
    assert log[0]["type"] == ev.GAME_CREATED and log[0]["version"] == 1
    recorded = log[0]["data"]["config"]
    assert (
        recorded["data"]
        == ENGINES["lancaster"].validate_config({"players": 3, "data": OVERRIDES})["data"]
    )
    assert recorded["players"] == 3


def test_a_malformed_override_is_refused_with_its_path_and_nothing_is_created(app: Flask) -> None:
    svc: GameService = app.extensions["pbem"]
    before = len(svc.list_games())
    answer = app.test_client().post(
        "/api/v1/games",
        json={
            "game": "lancaster",
            "config": {"data": {"counties": {"G": {"reward": {"power": "lots"}}}}},
            "players": PLAYERS,
        },
    )
    assert answer.status_code == 400
    assert "counties.G.reward.power" in answer.get_json()["message"]
    assert len(svc.list_games()) == before
