"""/new for Lancaster: the laws to play (base, The New Laws instead, or combined group by group,
five selects used only when combining) and how many values of the game are not from a
published source, per choice of Henry V modules, linking to the rules page's list.

A hostile or malformed laws choice, from the form or the API, is refused with a clear error
and creates nothing. (Creating games that play The New Laws needs the engine's rules 2.1.0:
those tests are in ``test_new_laws_creation.py``.)"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

from engine import REGISTRY as ENGINES
from pbem.app.service import GameService
from tests.web.helpers import sqlite_app

PLAYERS = {"name0": "Ann", "name1": "Bob", "name2": "Cat"}


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    with sqlite_app(tmp_path_factory.mktemp("newlaws-form")) as app:
        yield app


def _text(body: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", body)))


def test_the_form_offers_the_laws_and_five_law_groups(app: Flask) -> None:
    page = app.test_client().get("/new").get_data(as_text=True)
    for key in ("base", "replace", "combine"):
        assert f'name="laws" value="{key}"' in page
    assert re.search(r'name="laws" value="base" checked', page)  # the base laws by default
    for group in range(5):
        select = re.search(
            rf'<select id="law_group{group}" name="law_group{group}">(.*?)</select>', page, re.S
        )
        assert select, group
        assert re.findall(r'value="(\w+)"', select.group(1)) == ["base", "new", "random"]
        assert 'value="random" selected' in select.group(1)
    # The selects are in the page without script (pbem.js hides them unless combining).
    assert 'id="law-groups"' in page and "hidden" not in re.search(
        r'<div class="law-groups" id="law-groups"[^>]*>', page
    ).group(0)  # type: ignore[union-attr]


def test_the_form_says_how_many_values_are_not_from_a_published_source_per_module_choice(
    app: Flask,
) -> None:
    rules = ENGINES["lancaster"]
    page = app.test_client().get("/new").get_data(as_text=True)
    seen = _text(page)
    base = len(rules.provisional_values({"players": 2}))
    assert re.search(
        rf'<a href="/rules/lancaster#provisional">{base} values of this game are not from a '
        "published source</a>",
        page,
    )
    table = re.search(r'<details class="provisional-counts".*?</details>', page, re.S)
    assert table
    rows = re.findall(r"<tr><td>(.*?)</td><td>(\d+)</td>", html.unescape(table.group(0)))
    assert len(rows) == len(rules.module_combinations())
    for (label, count), combo in zip(rows, rules.module_combinations(), strict=True):
        config: dict[str, Any] = {"players": 2}
        if combo:
            config["expansions"] = dict.fromkeys(combo, True)
        assert int(count) == len(rules.provisional_values(config)), (label, combo)
    assert "The King's Resentment" in seen


def test_a_form_sent_back_gives_the_count_of_the_config_chosen(app: Flask) -> None:
    # An error elsewhere (no second player) brings the form back with the modules ticked.
    answer = app.test_client().post(
        "/new", data={"game": "lancaster", "name0": "Ann", "resentment": "1"}
    )
    assert answer.status_code == 400
    chosen = len(
        ENGINES["lancaster"].provisional_values({"players": 2, "expansions": {"resentment": True}})
    )
    assert f"{chosen} values of this game are not from a published source" in _text(
        answer.get_data(as_text=True)
    )


HOSTILE_LAWS = [
    "all",
    "<script>alert(1)</script>",
    "replace; drop table games",
    "x" * 5000,
    "",
    "REPLACE",
]


@pytest.mark.parametrize("laws", HOSTILE_LAWS, ids=range(len(HOSTILE_LAWS)))
def test_a_hostile_laws_choice_on_the_form_is_refused_by_its_field_and_creates_nothing(
    app: Flask, laws: str
) -> None:
    svc: GameService = app.extensions["pbem"]
    before = len(svc.list_games())
    answer = app.test_client().post("/new", data={"game": "lancaster", **PLAYERS, "laws": laws})
    page = answer.get_data(as_text=True)
    assert answer.status_code == 400
    error = re.search(r'<p class="field-error" id="laws-error">(.*?)</p>', page, re.S)
    assert error, page
    assert html.unescape(error.group(1)) == "Choose one of the sets of laws listed."
    assert "<script>alert" not in page and "x" * 200 not in page  # never echoed
    assert len(svc.list_games()) == before


@pytest.mark.parametrize(
    "groups", [["base", "new", "evil", "random", "new"], ["", "new", "new", "new", "<b>"]]
)
def test_a_hostile_law_group_is_refused_when_combining_and_creates_nothing(
    app: Flask, groups: list[str]
) -> None:
    svc: GameService = app.extensions["pbem"]
    before = len(svc.list_games())
    form = {f"law_group{g}": c for g, c in enumerate(groups)}
    answer = app.test_client().post(
        "/new", data={"game": "lancaster", **PLAYERS, "laws": "combine", **form}
    )
    page = answer.get_data(as_text=True)
    assert answer.status_code == 400
    error = re.search(r'<p class="field-error" id="laws-error">(.*?)</p>', page, re.S)
    assert error, page
    bad = [str(g) for g, c in enumerate(groups) if c not in ("base", "new", "random")]
    assert (
        f"{', '.join(bad)}, choose the base laws, The New Laws or drawn at random" in error.group(1)
    )
    assert re.search(r'name="laws" value="combine" checked', page)  # the form as it was sent
    assert len(svc.list_games()) == before


def test_hostile_law_groups_are_ignored_unless_combining(app: Flask) -> None:
    # The base laws chosen: the selects (shown without script) are not part of the choice.
    svc: GameService = app.extensions["pbem"]
    answer = app.test_client().post(
        "/new", data={"game": "lancaster", **PLAYERS, "laws": "base", "law_group0": "evil"}
    )
    assert answer.status_code == 200, answer.get_data(as_text=True)
    (game_id,) = set(re.findall(r"/games/(\w+)\?token=", answer.get_data(as_text=True)))
    config = svc.raw_events(game_id)[0].payload.config  # type: ignore[attr-defined]
    assert "new_laws" not in config


@pytest.mark.parametrize(
    "new_laws",
    [
        "sometimes",
        ["base", "new"],
        ["base", "new", "random", "new", "evil"],
        {"group0": "new"},
        7,
        True,
        ["base"] * 500,
    ],
    ids=["word", "short-list", "bad-group", "mapping", "number", "bool", "long-list"],
)
def test_a_hostile_new_laws_value_in_the_api_is_a_400_and_creates_nothing(
    app: Flask, new_laws: Any
) -> None:
    svc: GameService = app.extensions["pbem"]
    before = len(svc.list_games())
    answer = app.test_client().post(
        "/api/v1/games",
        json={
            "game": "lancaster",
            "config": {"new_laws": new_laws},
            "players": [{"name": "Ann"}, {"name": "Bob"}],
        },
    )
    assert answer.status_code == 400, answer.get_json()
    message = answer.get_json()["message"]
    assert "new_laws" in message and "The config is not valid for lancaster" in message
    assert len(message) < 600  # says what is wrong, not the whole value sent back
    assert len(svc.list_games()) == before
