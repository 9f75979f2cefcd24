"""A game's API requests answered from one read (who is asking, the game's row, its seats) and
from the descriptions worked out once per version and seat, on SQLite and PostgreSQL: the
answers are those the game's state gives each asker, whichever cache holds what; a seat's
description is never another's; a new event is seen at once; a token that opens no seat is
refused as before."""

from __future__ import annotations

from typing import Any

from flask import Flask

from pbem.app.service import GameService
from pbem.core.cache import Answers
from pbem.play.views import describe
from tests.web.helpers import bearer, new_game


def _service(app: Flask) -> GameService:
    svc: GameService = app.extensions["pbem"]
    return svc


def _fresh(app: Flask, game_id: str, seat: int | None) -> dict[str, Any]:
    """The description worked out from the log, with no cache."""
    svc = _service(app)
    svc.cache.clear()
    svc.answers.clear()
    return describe(svc.load(game_id), seat)


def test_each_asker_gets_its_own_description_from_any_cache(app: Flask) -> None:
    client = app.test_client()
    created = new_game(client, "hoard", 2)
    gid, tokens = created["id"], [s["token"] for s in created["seats"]]
    moved = client.post(
        f"/api/v1/games/{gid}/actions",
        json={"action": "draw", "expected_version": created["version"]},
        headers=bearer(tokens[0]),
    )
    assert moved.status_code == 201, moved.json
    askers: list[tuple[int | None, dict[str, str]]] = [
        (0, bearer(tokens[0])),
        (1, bearer(tokens[1])),
        (None, {}),
        (None, bearer(created["admin_token"])),
    ]
    for seat, headers in askers * 2:  # the second time from the remembered answers
        got = client.get(f"/api/v1/games/{gid}", headers=headers)
        assert got.status_code == 200
        assert got.json == _fresh(app, gid, seat) | {"seat": seat}
        # and again with every cache warm, each asker in turn
        assert client.get(f"/api/v1/games/{gid}", headers=headers).json == got.json
    # Seat 0 drew a gem: only seat 0's description shows its purse, however often asked.
    mine = client.get(f"/api/v1/games/{gid}", headers=bearer(tokens[0])).json
    theirs = client.get(f"/api/v1/games/{gid}", headers=bearer(tokens[1])).json
    public = client.get(f"/api/v1/games/{gid}").json
    assert mine["view"]["my_purse"] and mine["view"]["my_purse"] != theirs["view"]["my_purse"]
    assert "my_purse" not in public["view"]


def test_a_new_event_is_seen_at_once(app: Flask) -> None:
    client = app.test_client()
    created = new_game(client, "hoard", 2)
    gid, tokens = created["id"], [s["token"] for s in created["seats"]]
    before = client.get(f"/api/v1/games/{gid}", headers=bearer(tokens[1])).json
    # Another process (the service itself here, not this door) appends an event.
    _service(app).submit(gid, 0, "draw", expected_version=before["version"], channel="api")
    after = client.get(f"/api/v1/games/{gid}", headers=bearer(tokens[1])).json
    assert after["version"] == before["version"] + 1
    assert after == describe(_service(app).load(gid), 1)


def test_tokens_that_open_no_seat_are_refused_as_before(app: Flask) -> None:
    client = app.test_client()
    created = new_game(client, "hoard", 2)
    other = new_game(client, "hoard", 2)
    gid = created["id"]
    play = {"action": "draw", "expected_version": created["version"]}
    # The admin token sees the public view, but cannot play.
    assert (
        client.get(f"/api/v1/games/{gid}", headers=bearer(created["admin_token"])).json["seat"]
        is None
    )
    refused = client.post(
        f"/api/v1/games/{gid}/actions", json=play, headers=bearer(created["admin_token"])
    )
    assert refused.status_code == 403
    # Another game's seat token, an unknown one, none: refused, and nothing changed.
    for headers in (bearer(other["seats"][0]["token"]), bearer("nope")):
        assert client.get(f"/api/v1/games/{gid}", headers=headers).status_code == 403
        assert (
            client.post(f"/api/v1/games/{gid}/actions", json=play, headers=headers).status_code
            == 403
        )
    assert client.post(f"/api/v1/games/{gid}/actions", json=play).status_code == 403
    # A replaced token is told so (401), on reading as on playing.
    old = created["seats"][0]["token"]
    _service(app).rotate_token(gid, 0)
    assert client.get(f"/api/v1/games/{gid}", headers=bearer(old)).status_code == 401
    assert (
        client.post(f"/api/v1/games/{gid}/actions", json=play, headers=bearer(old)).status_code
        == 401
    )
    assert _service(app).load(gid).version == created["version"]


def test_answers_are_keyed_by_the_chain_and_the_asker() -> None:
    answers = Answers(max_entries=2)
    answers.put("g", 3, "h3", 0, {"mine": [1]})
    assert answers.get("g", 3, "h3", 0) == {"mine": [1]}
    assert answers.get("g", 3, "h3", 1) is None  # another seat
    assert answers.get("g", 3, "other", 0) is None  # another chain
    assert answers.get("g", 4, "h3", 0) is None  # another version
    copy = answers.get("g", 3, "h3", 0)
    copy["mine"].append(2)  # each asker's copy is its own
    assert answers.get("g", 3, "h3", 0) == {"mine": [1]}
    answers.put("g", 4, "h4", 0, "b")
    answers.put("g", 5, "h5", 0, "c")  # the least recently asked is dropped
    assert answers.get("g", 3, "h3", 0) is None
    assert answers.get("g", 5, "h5", 0) == "c"
