"""The game page lists the component values that are not from a published source, under the
game's own config (Lancaster with its Henry V modules), on the seat page and the public page;
a game whose rules declare none shows no such section."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

from engine import REGISTRY as ENGINES
from pbem.service import GameService
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
        seen = re.sub(r"\s+", " ", _text(page))
        assert "Provisional values in this game" in seen
        assert f"{len(listed)} numbers on this board are not from a published source" in seen
        for path, value in listed:
            assert f"{path} {value}" in seen, (path, value)


def test_a_game_without_provisional_values_shows_no_such_section(app: Flask) -> None:
    svc: GameService = app.extensions["pbem"]
    created = svc.create_game("lancelot", {}, [{"name": "Ann"}, {"name": "Bob"}])
    page = app.test_client().get(f"/games/{created.id}")
    assert page.status_code == 200
    assert "Provisional values" not in _text(page)
