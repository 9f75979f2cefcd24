"""A finished game's page: who won, worded for the viewer ("You won", "You shared the win",
the winner's name for the others and the public), the final scores with their breakdown,
the record checked (chain, seed) with the seed shown, and a download that the offline
verifier (``pbem.audit.verify``) accepts: the seat's own bundle, the public's for a
spectator, each holding no other seat's secret choice not yet revealed."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem.app.service import GameService
from pbem.audit.verify import verify_bytes
from tests.service.helpers import REGISTRY
from tests.web.helpers import sqlite_app


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    with sqlite_app(tmp_path_factory.mktemp("end")) as app:
        yield app


def _service(app: Flask) -> GameService:
    svc: GameService = app.extensions["pbem"]
    return svc


def seat_client(app: Flask, game_id: str, token: str) -> FlaskClient:
    client = app.test_client()
    assert client.get(f"/games/{game_id}?token={token}").status_code == 303
    return client


def played_out(app: Flask, seed: int, rounds: int = 1) -> Any:
    """A game of Hoard played to its end by random legal moves."""
    svc = _service(app)
    created = svc.create_game("hoard", {"rounds": rounds}, [{"name": "Ann"}, {"name": "Bob"}])
    rnd = random.Random(seed)
    while not (loaded := svc.load(created.id)).finished:
        seat = min(loaded.to_act)
        move = rnd.choice(loaded.legal(seat))
        svc.submit(created.id, seat, move, expected_version=loaded.version, channel="api")
    return created


def test_the_end_says_who_won_to_each_viewer_with_the_scores_and_the_check(app: Flask) -> None:
    seen: set[str] = set()
    for seed in range(40):
        created = played_out(app, seed)
        outcome = _service(app).load(created.id).outcome
        assert outcome is not None
        winners = outcome["winners"]
        for seat in (0, 1):
            page = seat_client(app, created.id, created.seats[seat].token).get(
                f"/games/{created.id}"
            )
            text = page.text
            if winners == [seat]:
                assert "You won." in text
                seen.add("won")
            elif seat in winners:
                assert "You shared the win with" in text
                seen.add("shared")
            else:
                other = "Ann" if winners == [0] else "Bob"
                assert f"{other}" in text and " won." in text and "You won" not in text
                seen.add("lost")
            assert 'id="outcome"' in text and "Final scores" in text
            assert "Points" in text  # Hoard's breakdown, a column of the table
            assert "The record checks" in text and "Seed, revealed" in text
        public = app.test_client().get(f"/games/{created.id}").text
        assert "You won" not in public and ("won." in public or "shared the win" in public)
        if seen >= {"won", "shared", "lost"}:
            break
    assert seen >= {"won", "lost"}, seen


def test_the_download_is_the_verifiers_format_and_holds_only_what_the_seat_may_see(
    app: Flask,
) -> None:
    svc = _service(app)
    # A game still on, a secret stake of Bob's not yet revealed: Ann's bundle has only its
    # commitment, and it checks.
    created = svc.create_game("hoard", {"rounds": 2}, [{"name": "Ann"}, {"name": "Bob"}])
    gid = created.id
    for seat, move in ((0, "draw"), (1, "draw")):
        svc.submit(gid, seat, move, expected_version=svc.load(gid).version, channel="api")
    loaded = svc.load(gid)
    stake = next(m for m in loaded.legal(1) if m.startswith("stake"))
    svc.submit(gid, 1, stake, expected_version=loaded.version, channel="api")
    ann = seat_client(app, gid, created.seats[0].token)
    got = ann.get(f"/games/{gid}/export.json")
    assert got.status_code == 200 and "attachment" in got.headers["Content-Disposition"]
    bundle = json.loads(got.data)
    assert bundle["format"] == "pbem-export-2" and bundle["seen_by"] == "seat 0"
    assert stake.split()[-1] not in got.text  # Bob's gem is not in Ann's file
    report = verify_bytes(got.data, REGISTRY)
    assert report.ok, report.problems
    assert report.sealed >= 1
    # A spectator gets no record: its events hold the players' addresses and typed moves.
    public = app.test_client().get(f"/games/{gid}/export.json")
    assert public.status_code == 403 and "e-mail addresses" in public.text
    assert "@" not in public.text and stake.split()[-1] not in public.text
    assert "Download" not in app.test_client().get(f"/games/{gid}").text
    # A forged byte is caught by the verifier: the check can fail.
    forged = got.data.replace(b'"draw"', b'"keep"', 1)
    assert not verify_bytes(forged, REGISTRY).ok
    # Finished: the seat's download re-runs the whole game from the revealed seed.
    done = played_out(app, 3)
    bob = seat_client(app, done.id, done.seats[1].token)
    final = verify_bytes(bob.get(f"/games/{done.id}/export.json").data, REGISTRY)
    assert final.ok and final.replayed, final.problems


def test_lancasters_points_come_first_then_what_they_were_counted_from() -> None:
    from pbem.core.naming import Names
    from web.pages.outcome import the_end

    names = Names(("Ann", "Bob"), ("Red", "Blue"))
    parts = [
        {"castle": 8, "during_game": 18, "knighthood": 8, "knighthood_strength": 2, "total": 34},
        {"castle": 4, "during_game": 31, "knighthood": 4, "knighthood_strength": 2, "total": 39},
    ]
    end = the_end({"scores": [34, 39], "winners": [1], "breakdown": parts}, 0, names)
    assert end["columns"] == ["During the game", "Knighthood", "Castle", "Knighthood strength"]
    assert end["points"] == 3 and end["rows"][0]["parts"] == [18, 8, 8, 2]
    # Parts that do not add up to the total are not called points: every figure alike.
    parts[0]["total"] = 35
    end = the_end({"scores": [35, 39], "winners": [1], "breakdown": parts}, 0, names)
    assert end["points"] == 0 and end["columns"][0] == "Castle"
