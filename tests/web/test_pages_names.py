"""Players are named on the pages exactly as in the mails and the API (``pbem.core.naming``):
"Ann (Red)" in the status line, the engine's prompt and the log; a 2-player Lancaster game's
ally colour as "Yellow (Ann's ally)"; an undo request that lapsed as a sentence, like the
other undo events; Lancaster's buttons saying what a choice gives.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem.app.service import GameService
from tests.web.helpers import sqlite_app


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    with sqlite_app(tmp_path_factory.mktemp("names")) as app:
        yield app


def _service(app: Flask) -> GameService:
    svc: GameService = app.extensions["pbem"]
    return svc


def _seat_client(app: Flask, game_id: str, token: str) -> FlaskClient:
    client = app.test_client()
    assert client.get(f"/games/{game_id}?token={token}").status_code == 303
    return client


def _text(page: Any) -> str:
    """The page's words, tags dropped and entities read (as a person sees them)."""
    return html.unescape(re.sub(r"<[^>]+>", "", page.get_data(as_text=True)))


def _play(svc: GameService, game_id: str, seat: int, text: str | None = None) -> None:
    loaded = svc.load(game_id)
    move = text or loaded.legal(seat)[0]
    svc.submit(game_id, seat, move, expected_version=loaded.version, channel="api")


def test_the_pages_name_players_as_the_api_does(app: Flask) -> None:
    svc = _service(app)
    created = svc.create_game("lancaster", {}, [{"name": n} for n in ("Ann", "Bob", "Cat")])
    for seat in range(3):  # the extension tiles (simultaneous)
        _play(svc, created.id, seat)
    api = app.test_client().get(f"/api/v1/games/{created.id}").get_json()
    display = {p["seat"]: p["display"] for p in api["players"]}
    assert display[0].startswith("Ann (") and display[0].endswith(")")
    loaded = svc.load(created.id)
    waiting = [s for s in range(3) if s not in loaded.to_act]
    client = _seat_client(app, created.id, created.seats[waiting[0]].token)
    seen = _text(client.get(f"/games/{created.id}"))
    assert f"You are {display[waiting[0]]}." in seen
    # The engine's prompt names the player to act as the mails do, never by colour alone.
    (mover,) = loaded.to_act
    assert f"Waiting for {display[mover]} to place a knight" in seen, seen
    for page in (
        client.get(f"/games/{created.id}"),
        client.get(f"/games/{created.id}/history"),
        client.get(f"/games/{created.id}/audit"),
    ):
        words = _text(page)
        assert all(name in words for name in display.values())
        assert "seat 0 (" not in words and not re.search(r"for (Red|Blue|Yellow)\b", words)


def test_an_ally_colour_is_named_after_the_player_who_plays_it(app: Flask) -> None:
    svc = _service(app)
    created = svc.create_game("lancaster", {}, [{"name": "Ann"}, {"name": "Bob"}])
    names = svc.load(created.id).names
    assert names.allies, "a 2-player Lancaster game plays allied colours"
    client = _seat_client(app, created.id, created.seats[0].token)
    seen = _text(client.get(f"/games/{created.id}"))
    for label, owner in names.allies:
        assert f"{label} ({names.people[owner]}'s ally)" in seen
        assert names.ally(label, owner) in seen


def test_an_undo_request_that_lapsed_reads_as_a_sentence(app: Flask) -> None:
    svc = _service(app)
    created = svc.create_game("lancelot", {}, [{"name": "Ann"}, {"name": "Bob"}])
    gid = created.id
    _play(svc, gid, 0)
    _play(svc, gid, 1)
    _play(svc, gid, 0)
    # Bob asks to take back his move (Ann moved since: she must agree), then plays on.
    undo = svc.undo(gid, 1, channel="api")
    assert undo is not None
    _play(svc, gid, 1)
    events = svc.events(gid, 0, None)
    (lapsed,) = [e for e in events if e["type"] == "UndoLapsed"]
    bob = svc.load(gid).names.of(1)
    client = _seat_client(app, gid, created.seats[0].token)
    for url in (f"/games/{gid}", f"/games/{gid}/history"):
        words = _text(client.get(url))
        assert "UndoLapsed" not in words  # never the bare event type
        assert f"{bob}'s undo request" in words and "lapsed" in words, words
        assert lapsed["text"][1:] in words  # the service's own sentence
    # The audit page names the type beside the sentence, as for every event.
    assert f"UndoLapsed: {bob}'s undo request" in _text(client.get(f"/games/{gid}/audit"))


def test_lancaster_buttons_say_what_a_choice_gives(app: Flask) -> None:
    svc = _service(app)
    created = svc.create_game("lancaster", {}, [{"name": n} for n in ("Ann", "Bob", "Cat")])
    client = _seat_client(app, created.id, created.seats[0].token)
    page = client.get(f"/games/{created.id}").get_data(as_text=True)
    buttons = dict(re.findall(r'value="(extension \d)"[^>]*>([^<]+)</button>', page))
    castle = svc.load(created.id).view(0)["players"][0]["castle"]
    assert len(buttons) == 6
    for n in range(1, 7):
        label = html.unescape(buttons[f"extension {n}"])
        assert label.startswith(f"Space {n}: {castle[n - 1]['reward']}"), label
