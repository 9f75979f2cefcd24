"""The seat page of a Lancaster game under rules 2.0.0 (Lancaster as printed): what a player
sees of the 2-player allies, and the buttons of Surrey's choices."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from engine.lancaster import LANCASTER
from pbem.app.service import GameService
from tests.engine.lancaster.helpers import RED, Game
from tests.engine.lancaster.test_printed_rules import _rewards
from tests.web.helpers import sqlite_app


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    with sqlite_app(tmp_path_factory.mktemp("printed")) as app:
        yield app


def _seat_client(app: Flask, game_id: str, token: str) -> FlaskClient:
    client = app.test_client()
    assert client.get(f"/games/{game_id}?token={token}").status_code == 303
    return client


def _text(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def test_the_two_player_page_shows_each_allys_knights_and_its_own_castle(app: Flask) -> None:
    # Before the fix the page named the allies and nothing else: where an ally's knights
    # were (court, board, reserve) and what its small castle gives (decision 12, as
    # printed) were in no part of the page.
    svc: GameService = app.extensions["pbem"]
    created = svc.create_game("lancaster", {"players": 2}, [{"name": "Ann"}, {"name": "Bob"}])
    gid = created.id
    loaded = svc.load(gid)
    assert loaded.rules.version == LANCASTER.version  # the latest: printed, 2.x
    for seat in (0, 1):
        loaded = svc.load(gid)
        svc.submit(gid, seat, "extension 1", expected_version=loaded.version, channel="cli")
    loaded = svc.load(gid)
    first = min(loaded.to_act)
    svc.submit(
        gid, first, "ally knight 2 to castle 2", expected_version=loaded.version, channel="cli"
    )
    ally = "Yellow" if first == 0 else "Green"
    owner = "Ann" if first == 0 else "Bob"
    page = _seat_client(app, gid, created.seats[1 - first].token).get(f"/games/{gid}").text
    card = re.search(
        rf'<div class="card player ally" id="ally-{ally.lower()}".*?</details>', page, re.S
    )
    assert card, page
    text = _text(card.group(0))
    assert f"{ally} ({owner}'s ally)" in text
    assert "At court none" in text
    assert "On the board knight 2 in castle 2" in text
    assert "In reserve knights 1, 1, 1, 2, 3, 4" in text
    assert "Castle of the ally (2 spaces; no squires to pay, never extended)" in text
    assert "1 new knight (strength 1) upgrade a knight — knight 2" in text


def _buttons(g: Game, seat: int) -> dict[str, str]:
    """Every button of the seat's choices (``Rules.choices``): the text it plays -> its label."""
    return {o.text: o.label for o in g.rules.choices(g.state, seat).all_options()}


def test_surreys_buttons_say_what_the_holder_takes_and_who_starts() -> None:
    # Before the fix each of Surrey's choices was a button "Start player Blue", the same
    # label in the nobleman's, the reward's and the both's group: read alone (a screen
    # reader, a narrow screen) a button did not say what it took.
    g = _rewards((RED, "knight 1 to I"), gold=3, stop=True)
    assert g.head == ("county", 8)
    buttons = _buttons(g, RED)
    assert buttons["reward start player Blue"] == "Take the reward: 2 gold + 2 squires; Blue starts"
    assert buttons["noble start player Red"] == "Take the nobleman; Red starts"
    assert buttons["both start player Yellow"] == (
        "Pay 3 gold for both: the nobleman and the reward; Yellow starts"
    )
    assert len(set(buttons.values())) == len(buttons) == 9


def test_surreys_card_says_its_holder_names_the_start_player_at_once(app: Flask) -> None:
    # Before the fix Surrey's card on the page read "Reward 2 gold + 2 squires" and nothing
    # of the start player its holder names besides (decision 6), which the mail's board says.
    svc: GameService = app.extensions["pbem"]
    created = svc.create_game("lancaster", {"players": 3}, [{"name": n} for n in "ABC"])
    page = _seat_client(app, created.id, created.seats[0].token).get(f"/games/{created.id}")
    card = re.search(r'<div class="card county" data-county="I">.*?</dl>', page.text, re.S)
    assert card, page.text
    assert (
        "Reward 2 gold + 2 squires; its holder also names the start player, who starts at once"
    ) in _text(card.group(0))
