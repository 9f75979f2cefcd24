"""The game page says how many of its component values are not from a published source, under
the game's own config (Lancaster with its Henry V modules), linking to the rules page's list,
and lists them in words, on the seat page and the public page; a game whose rules declare none
says nothing of them."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

from engine import REGISTRY as ENGINES
from pbem.app.service import GameService
from pbem.play import component_values
from tests.web.helpers import sqlite_app

HENRY_V = {"kings_court": True, "resentment": True, "laws_of_the_king": True}


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    with sqlite_app(tmp_path_factory.mktemp("provisional")) as app:
        yield app


def _text(page: Any) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page.get_data(as_text=True)))


@pytest.mark.parametrize("expansions", [{}, HENRY_V], ids=["base", "henry-v"])
def test_the_lancaster_page_lists_the_provisional_values_of_its_config(
    app: Flask, expansions: dict[str, bool]
) -> None:
    svc: GameService = app.extensions["pbem"]
    config: dict[str, Any] = {"expansions": expansions} if expansions else {}
    created = svc.create_game("lancaster", config, [{"name": n} for n in ("Ann", "Bob", "Cat")])
    listed = ENGINES["lancaster"].provisional_values({"players": 3, **config})
    assert listed
    seat = app.test_client()
    assert seat.get(f"/games/{created.id}?token={created.seats[0].token}").status_code == 303
    for page in (seat.get(f"/games/{created.id}"), app.test_client().get(f"/games/{created.id}")):
        assert page.status_code == 200
        body = page.get_data(as_text=True)
        seen = re.sub(r"\s+", " ", _text(page))
        sentence = f"{len(listed)} values of this game are not from a published source"
        assert sentence in seen
        assert re.search(r'<a href="/rules/lancaster#provisional">\s*' + sentence, body)
        assert "numbers on this board" not in seen
        data = component_values._data_of(ENGINES["lancaster"], {"players": 3, **config})
        assert data is not None
        for path, _ in listed:
            what, value = component_values.describe(data, path)
            assert what != path, path  # every value in words, not as its data path
            assert html.unescape(f"{what} {value}") in seen, (path, what, value)


def test_a_game_without_provisional_values_shows_no_such_section(app: Flask) -> None:
    svc: GameService = app.extensions["pbem"]
    created = svc.create_game("lancelot", {}, [{"name": "Ann"}, {"name": "Bob"}])
    page = app.test_client().get(f"/games/{created.id}")
    assert page.status_code == 200
    assert "not from a published source" not in _text(page)
