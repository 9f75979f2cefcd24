"""The seat page of a Lancaster game with all Henry V modules, played through the service:
the King's Court and the King's Resentment are on the page, the seat's own seals and dishonor
are marked hidden from others, and other seats' seals and dishonor read "hidden" there, as
their own views give them."""

from __future__ import annotations

import html
import random
import re
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem.app.service import GameService
from tests.web.helpers import sqlite_app

ALL_MODULES = {"kings_court": True, "resentment": True, "laws_of_the_king": True}


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    with sqlite_app(tmp_path_factory.mktemp("henry")) as app:
        yield app


def _seat_client(app: Flask, game_id: str, token: str) -> FlaskClient:
    client = app.test_client()
    assert client.get(f"/games/{game_id}?token={token}").status_code == 303
    return client


def _player_card(page: str, seat: int) -> str:
    card = re.search(rf'<div class="card player" id="player-{seat}".*?</dl>', page, re.S)
    assert card, page
    return card.group(0)


def _value(card: str, resource: str) -> str:
    found = re.search(rf'<dd data-resource="{resource}">(.*?)</dd>', card, re.S)
    assert found, card
    return html.unescape(re.sub(r"<[^>]+>", "", found.group(1))).strip()


def _played_to_votes(app: Flask) -> tuple[str, list[FlaskClient], Any]:
    """A seeded game played by random legal moves until a vote is counted, a lord sits in
    an office queue or the treasury and the tower holds a knight."""
    svc: GameService = app.extensions["pbem"]
    created = svc.create_game(
        "lancaster",
        {"expansions": ALL_MODULES},
        [{"name": n} for n in ("Ann", "Bob", "Cat")],
    )
    gid = created.id
    clients = [_seat_client(app, gid, s.token) for s in created.seats]
    rnd = random.Random(5)
    for _ in range(400):
        loaded = svc.load(gid)
        view = loaded.view(0)
        court = view["court"]
        if (
            view["votes"]
            and court["in_treasury"]
            and any(o["applicant"] or o["holder"] for o in court["offices"])
            and view["resentment"]["tower"]
        ):
            return gid, clients, loaded
        seat = rnd.choice(sorted(loaded.to_act))
        move = rnd.choice(loaded.legal(seat))
        answer = clients[seat].post(
            f"/games/{gid}", data={"choice": move, "expected_version": str(loaded.version)}
        )
        assert answer.status_code == 303, answer.text[:2000]
    raise AssertionError("the game never reached placed lords and a counted vote")


def test_the_seat_page_shows_the_court_the_resentment_and_only_its_own_secrets(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A seeded game: the service draws its seed here, so every run plays the same game.
    monkeypatch.setattr(secrets, "randbits", lambda bits: 20261123)
    gid, clients, loaded = _played_to_votes(app)
    for seat, client in enumerate(clients):
        page = client.get(f"/games/{gid}").text
        text = html.unescape(page)
        view = loaded.view(seat)
        assert "King's Court" in text and "King's Resentment" in text
        for office in view["court"]["offices"]:
            assert office["title"] in text
        treasury = view["court"]["treasury"]
        assert f"{treasury['gold']} gold · lords inside: " in text
        lords = ", ".join(f"{c}'s lord" for c in view["court"]["in_treasury"]) or "none"
        assert f"lords inside: {lords}" in text
        # An office granting no seal names its privilege alone, never "0 seals".
        assert "0 regal seals" not in text and "0 seals" not in text
        resentment = view["resentment"]
        assert f"strength {resentment['tower_strength']} / 7" in text
        assert re.search(r"next penalties: −\d+ / −\d+", text)
        vote = view["votes"][0]
        assert f"({vote['yes']} for, {vote['no']} against)" in text
        assert " yes, " not in text.split("<h3>Votes</h3>")[1].split("</ul>")[0]
        mine = _player_card(page, seat)
        me = view["players"][seat]
        for key in ("seals", "dishonor"):
            assert _value(mine, key) == f"{me[key]} (hidden from others)"
        assert "Lord</dt>" in mine and "Bishops</dt>" in mine
        for other in range(3):
            if other == seat:
                continue
            # The other seat's own view holds its values; this seat's view and page do not.
            assert view["players"][other]["seals"] is None
            assert view["players"][other]["dishonor"] is None
            card = _player_card(page, other)
            for key in ("seals", "dishonor"):
                assert _value(card, key) == "hidden"


def test_a_base_game_page_has_no_henry_v_sections(app: Flask) -> None:
    svc: GameService = app.extensions["pbem"]
    created = svc.create_game("lancaster", {}, [{"name": n} for n in ("Ann", "Bob", "Cat")])
    page = _seat_client(app, created.id, created.seats[0].token).get(f"/games/{created.id}")
    text = html.unescape(page.text)
    assert "King's Court" not in text and "King's Resentment" not in text
    assert "Seals</dt>" not in text and "Dishonor</dt>" not in text
