"""/new lets the organiser choose Lancaster's Henry V modules: the game is created with them,
and a set the rules refuse (Laws of the King without both others) comes back with the rules'
own words next to the field, the boxes as ticked, and nothing created."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

import pytest
from flask import Flask

from pbem.app.service import GameService
from pbem.core import events as ev
from tests.web.helpers import sqlite_app


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    with sqlite_app(tmp_path_factory.mktemp("newgame")) as app:
        yield app


PLAYERS = {"name0": "Ann", "name1": "Bob", "name2": "Cat"}


def _created_config(svc: GameService, page: str) -> dict:
    (game_id,) = set(re.findall(r"/games/(\w+)\?token=", page))
    created = svc.raw_events(game_id)[0].payload
    assert isinstance(created, ev.GameCreated)
    return dict(created.config)


def test_the_form_offers_the_henry_v_modules(app: Flask) -> None:
    page = app.test_client().get("/new").get_data(as_text=True)
    for key in ("kings_court", "resentment", "laws_of_the_king"):
        assert f'name="{key}"' in page


@pytest.mark.parametrize(
    "ticked",
    [("kings_court",), ("resentment",), ("kings_court", "resentment", "laws_of_the_king")],
)
def test_a_lancaster_game_is_created_with_the_modules_ticked(
    app: Flask, ticked: tuple[str, ...]
) -> None:
    svc: GameService = app.extensions["pbem"]
    answer = app.test_client().post(
        "/new", data={"game": "lancaster", **PLAYERS, **dict.fromkeys(ticked, "1")}
    )
    assert answer.status_code == 200, answer.get_data(as_text=True)
    config = _created_config(svc, answer.get_data(as_text=True))
    assert {k for k, on in config["expansions"].items() if on} == set(ticked)


def test_laws_of_the_king_alone_is_refused_by_its_field_and_nothing_is_created(
    app: Flask,
) -> None:
    svc: GameService = app.extensions["pbem"]
    before = len(svc.list_games())
    answer = app.test_client().post(
        "/new", data={"game": "lancaster", **PLAYERS, "kings_court": "1", "laws_of_the_king": "1"}
    )
    page = answer.get_data(as_text=True)
    assert answer.status_code == 400
    error = re.search(r'<p class="field-error" id="expansions-error">(.*?)</p>', page, re.S)
    assert error, page
    assert "Laws of the King can be played only with both" in html.unescape(error.group(1))
    assert re.search(r'name="kings_court" value="1" checked', page)  # kept as ticked
    assert re.search(r'name="laws_of_the_king" value="1" checked', page)
    assert not re.search(r'name="resentment" value="1" checked', page)
    assert len(svc.list_games()) == before
