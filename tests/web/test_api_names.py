"""The API's messages name players as the pages and mails do ("P0 (Red)"), never by a bare
seat number: a move out of turn names who the game waits for, a resigned seat's move names
that player."""

from __future__ import annotations

import re

from flask.testing import FlaskClient

from tests.web.helpers import bearer, new_game


def _act(client: FlaskClient, gid: str, token: str, text: str, version: int) -> dict:
    answer = client.post(
        f"/api/v1/games/{gid}/actions",
        json={"action": text, "expected_version": version},
        headers=bearer(token),
    )
    assert answer.status_code in (201, 403, 422), answer.json
    return answer.json  # type: ignore[no-any-return]


def _no_bare_seat(message: str) -> None:
    assert not re.search(r"\bseat \d", message, re.I), message


def test_not_your_turn_names_the_player_the_game_waits_for(client: FlaskClient) -> None:
    created = new_game(client, "lancelot", players=3)
    gid, tokens = created["id"], [s["token"] for s in created["seats"]]
    game = client.get(f"/api/v1/games/{gid}").json
    display = {p["seat"]: p["display"] for p in game["players"]}
    (mover,) = game["to_act"]
    other = (mover + 1) % 3
    answer = _act(client, gid, tokens[other], game["legal"][0] if game["legal"] else "A1", 2)
    message = answer.get("message") or answer["error"]["message"]
    assert "not your turn" in message
    assert f"waiting for {display[mover]}." in message, message
    _no_bare_seat(message)


def test_a_resigned_seat_is_named_when_it_tries_to_move(client: FlaskClient) -> None:
    created = new_game(client, "lancelot", players=3)
    gid, tokens = created["id"], [s["token"] for s in created["seats"]]
    game = client.get(f"/api/v1/games/{gid}").json
    display = {p["seat"]: p["display"] for p in game["players"]}
    resigned = client.post(f"/api/v1/games/{gid}/resign", headers=bearer(tokens[2]))
    assert resigned.status_code in (200, 201), resigned.json
    version = client.get(f"/api/v1/games/{gid}").json["version"]
    answer = _act(client, gid, tokens[2], "A1", version)
    message = answer.get("message") or answer["error"]["message"]
    assert f"{display[2]} has resigned" in message, message
    _no_bare_seat(message)
