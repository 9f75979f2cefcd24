"""The JSON API on SQLite and PostgreSQL: a whole Lancelot game over HTTP, authentication,
status codes with messages a person can act on, undo, and the OpenAPI document."""

from __future__ import annotations

import json
from typing import Any

from click.testing import CliRunner
from flask import Flask
from flask.testing import FlaskClient

from pbem.app.service import GameService
from pbem.cli.main import main
from pbem.core.replay import verify
from tests.helpers import database_of
from tests.web.helpers import bearer, new_game


def act(client: FlaskClient, gid: str, token: str, text: str, version: int, **extra: Any) -> Any:
    return client.post(
        f"/api/v1/games/{gid}/actions",
        json={"action": text, "expected_version": version, **extra},
        headers=bearer(token),
    )


def test_a_lancelot_game_is_played_to_the_end_over_http(app: Flask, client: FlaskClient) -> None:
    created = new_game(client, "lancelot")
    gid = created["id"]
    tokens = [s["token"] for s in created["seats"]]
    game = client.get(f"/api/v1/games/{gid}").json
    assert game["legal"] == [] and game["seat"] is None  # public view: no token
    moves = 0
    while not game["finished"]:
        (seat,) = game["to_act"]
        mine = client.get(f"/api/v1/games/{gid}", headers=bearer(tokens[seat])).json
        assert mine["seat"] == seat and mine["legal"]
        # a fixed, varied choice: the game must end by the rules, not by a timeout
        move = mine["legal"][(moves * 7) % len(mine["legal"])]
        response = act(client, gid, tokens[seat], move, mine["version"])
        assert response.status_code == 201, response.json
        assert response.json["applied"][0]["canonical"] == move
        game = response.json
        moves += 1
        assert moves < 1000
    assert game["outcome"]["winners"]
    events = client.get(f"/api/v1/games/{gid}/events").json["events"]
    assert events[-1]["type"] == "GameFinished"
    assert events[-1]["data"]["seed"].isdigit()  # revealed at the end
    service: GameService = app.extensions["pbem"]
    with database_of(service).read() as session:
        report = verify(session, gid, service.registry)
    assert report.ok, report.problems
    assert report.events == game["version"]
    # and the command an auditor would run
    result = CliRunner().invoke(
        main, ["replay", gid, "--verify"], env={"PBEM_DATABASE_URL": database_of(service).url}
    )
    assert result.exit_code == 0, result.output
    assert f"final state hash {report.final_state_hash}" in result.output


def test_creating_a_game_explains_what_is_wrong(client: FlaskClient) -> None:
    cases = [
        ({"game": "hoard", "players": [{"name": "A"}, {"name": "B"}], "colour": "red"}, "colour"),
        ({"game": "hoard"}, "players: Missing data for required field"),
        ({"game": "chess", "players": [{"name": "A"}, {"name": "B"}]}, "no game called 'chess'"),
        ({"game": "hoard", "players": [{"name": "A"}]}, "played by 2, 3, 4 players"),
        ({"game": "hoard", "players": [{"name": "A", "age": 3}, {"name": "B"}]}, "age"),
        (
            {"game": "hoard", "config": {"rounds": 2.5}, "players": [{"name": "A"}, {"name": "B"}]},
            "rounds must be",
        ),
        (
            {
                "game": "lancelot",
                "config": {"target": 2.5},
                "players": [{"name": "A"}, {"name": "B"}],
            },
            "target",
        ),
        (
            {
                "game": "hoard",
                "players": [
                    {"name": "=?utf-8?q?x=0D=0ABcc:_evil@example.com?=", "email": "a@example.org"},
                    {"name": "B"},
                ],
            },
            "Player 1's name holds a MIME encoded word",
        ),
    ]
    for body, message in cases:
        response = client.post("/api/v1/games", json=body)
        assert response.status_code == 400, body
        assert message in response.json["message"], response.json
    response = client.post("/api/v1/games", data="game=hoard")
    assert response.status_code == 400
    assert "Content-Type: application/json" in response.json["message"]


def test_tokens_decide_who_may_act(client: FlaskClient) -> None:
    one, other = new_game(client), new_game(client)
    gid = one["id"]
    assert act(client, gid, "not-a-token", "keep", 2).status_code == 403
    assert act(client, gid, other["seats"][0]["token"], "keep", 2).status_code == 403
    missing = client.post(
        f"/api/v1/games/{gid}/actions", json={"action": "k", "expected_version": 2}
    )
    assert missing.status_code == 403
    assert "Authorization: Bearer" in missing.json["message"]
    basic = client.get(f"/api/v1/games/{gid}", headers={"Authorization": "Basic eDp5"})
    assert basic.status_code == 400
    assert client.get(f"/api/v1/games/{gid}", headers=bearer("wrong")).status_code == 403
    assert client.get("/api/v1/games/nosuchgame").status_code == 404


def test_action_errors_have_their_status_and_a_message(client: FlaskClient) -> None:
    created = new_game(client)
    gid, t0, t1 = created["id"], created["seats"][0]["token"], created["seats"][1]["token"]
    unreadable = act(client, gid, t0, "dance", 2)
    assert unreadable.status_code == 400
    assert unreadable.json["can_type"] == ["draw", "keep"]
    assert unreadable.json["code"] == "unreadable"
    assert act(client, gid, t1, "keep", 2).status_code == 422  # not seat 1's turn
    assert act(client, gid, t0, "keep", 2).status_code == 201
    stale = act(client, gid, t0, "keep", 2)
    assert stale.status_code == 409
    assert stale.json["current"]["version"] == 3 and "moved on" in stale.json["message"]
    assert stale.json["current"]["seat"] == 0
    bad = act(client, gid, t1, "keep", 3, extra=1)
    assert bad.status_code == 400 and "extra: Unknown field" in bad.json["message"]
    wrong_type = act(client, gid, t1, "keep", "3")
    assert wrong_type.status_code == 400 and "expected_version" in wrong_type.json["message"]
    big = client.post(
        f"/api/v1/games/{gid}/actions",
        data=json.dumps({"action": "k" * 70_000, "expected_version": 3}),
        content_type="application/json",
        headers=bearer(t1),
    )
    assert big.status_code == 413 and "too large" in big.json["message"]
    assert client.delete(f"/api/v1/games/{gid}").status_code == 405
    assert client.get(f"/api/v1/games/{gid}").json["version"] == 3


def test_a_retry_with_the_same_idempotency_key_gets_the_first_result(
    client: FlaskClient,
) -> None:
    created = new_game(client)
    gid, t0 = created["id"], created["seats"][0]["token"]
    answers = [act(client, gid, t0, "keep", 2, idempotency_key="abc") for _ in range(3)]
    assert [a.status_code for a in answers] == [201, 201, 201]
    assert [a.json["replayed"] for a in answers] == [False, True, True]
    assert {a.json["version"] for a in answers} == {3}
    events = client.get(f"/api/v1/games/{gid}/events").json["events"]
    assert [e["version"] for e in events] == [1, 2, 3]
    header = client.post(
        f"/api/v1/games/{gid}/actions",
        json={"action": "draw", "expected_version": 2},
        headers={**bearer(t0), "Idempotency-Key": "abc"},
    )
    assert header.status_code == 409  # same key, another payload
    long_key = client.post(
        f"/api/v1/games/{gid}/actions",
        json={"action": "draw", "expected_version": 3},
        headers={**bearer(t0), "Idempotency-Key": "k" * 201},
    )
    assert long_key.status_code == 400 and "1 to 200 printable" in long_key.json["message"]
    # PostgreSQL text cannot hold NUL: refused before the database, alike on both.
    nul_key = act(client, gid, t0, "draw", 3, idempotency_key="a\x00b")
    assert nul_key.status_code == 400 and "printable" in nul_key.json["message"]
    nul_text = act(client, gid, created["seats"][1]["token"], "keep\n\x00", 3)
    assert nul_text.status_code == 400 and "NUL" in nul_text.json["message"]
    assert client.get(f"/api/v1/games/{gid}").json["version"] == 3


def test_several_lines_stop_at_the_first_error_and_say_so(client: FlaskClient) -> None:
    created = new_game(client)
    gid, t0 = created["id"], created["seats"][0]["token"]
    response = act(client, gid, t0, "keep\nkeep", 2)
    assert response.status_code == 201
    assert [a["line"] for a in response.json["applied"]] == [1]
    assert response.json["error"]["line"] == 2
    assert "not your turn" in response.json["error"]["message"]


def test_events_and_state_at_a_version(client: FlaskClient) -> None:
    created = new_game(client)
    gid, t0 = created["id"], created["seats"][0]["token"]
    act(client, gid, t0, "keep", 2)
    events = client.get(f"/api/v1/games/{gid}/events?after=1").json
    assert [e["version"] for e in events["events"]] == [2, 3]
    assert events["version"] == 3
    past = client.get(f"/api/v1/games/{gid}/state?at=2", headers=bearer(t0)).json
    assert past["version"] == 2 and past["latest"] is False and past["legal"] == ["draw", "keep"]
    assert client.get(f"/api/v1/games/{gid}/state?at=99").status_code == 400
    assert client.get(f"/api/v1/games/{gid}/state").status_code == 400
    assert client.get(f"/api/v1/games/{gid}/events?after=-1").status_code == 400
    assert client.get(f"/api/v1/games/{gid}/events?aftr=1").status_code == 400


def test_undo_over_http(client: FlaskClient) -> None:
    created = new_game(client)
    gid = created["id"]
    t0, t1 = created["seats"][0]["token"], created["seats"][1]["token"]
    act(client, gid, t0, "keep", 2)
    own = client.post(f"/api/v1/games/{gid}/undo", json={}, headers=bearer(t0))
    assert own.status_code == 201 and own.json["status"] == "retracted"
    assert own.json["game"]["legal"] == ["draw", "keep"]
    act(client, gid, t0, "keep", 4)
    act(client, gid, t1, "keep", 5)
    asked = client.post(f"/api/v1/games/{gid}/undo", json={"to_version": 4}, headers=bearer(t0))
    assert asked.status_code == 201 and asked.json["status"] == "requested"
    request = asked.json["request"]
    url = f"/api/v1/games/{gid}/undo/{request}/decision"
    assert client.post(url, json={"accept": True}, headers=bearer(t0)).status_code == 422
    accepted = client.post(url, json={"accept": True}, headers=bearer(t1))
    assert accepted.status_code == 201 and accepted.json["status"] == "retracted"
    assert accepted.json["game"]["to_act"] == [0]
    assert client.post(url, json={"accept": True}, headers=bearer(t1)).status_code == 409
    huge = f"/api/v1/games/{gid}/undo/{10**30}/decision"
    missing = client.post(huge, json={"accept": True}, headers=bearer(t1))
    assert missing.status_code == 404 and "no undo request" in missing.json["message"]
    act(client, gid, t0, "draw", accepted.json["version"])
    refused = client.post(f"/api/v1/games/{gid}/undo", json={}, headers=bearer(t0))
    assert refused.status_code == 422 and "drew randomness" in refused.json["message"]


def test_resigning_over_http(client: FlaskClient) -> None:
    created = new_game(client)
    gid = created["id"]
    response = client.post(
        f"/api/v1/games/{gid}/resign", headers=bearer(created["seats"][0]["token"])
    )
    assert response.status_code == 201
    assert response.json["finished"] and response.json["outcome"]["winners"] == [1]


def test_the_openapi_document_is_generated_from_the_schemas(client: FlaskClient) -> None:
    doc = client.get("/api/v1/openapi.json").json
    assert doc["openapi"].startswith("3.")
    paths = doc["paths"]
    assert set(paths) >= {
        "/api/v1/games",
        "/api/v1/games/{game_id}",
        "/api/v1/games/{game_id}/actions",
        "/api/v1/games/{game_id}/events",
        "/api/v1/games/{game_id}/state",
        "/api/v1/games/{game_id}/undo",
        "/api/v1/games/{game_id}/undo/{request_id}/decision",
    }
    action = paths["/api/v1/games/{game_id}/actions"]["post"]
    assert set(action["responses"]) >= {"201", "400", "403", "404", "409", "422"}
    schemas = doc["components"]["schemas"]
    assert set(schemas["ActionIn"]["properties"]) == {
        "action",
        "expected_version",
        "idempotency_key",
    }
    assert schemas["ActionIn"]["additionalProperties"] is False
    assert doc["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"


def test_an_unexpected_failure_is_a_json_500_without_a_trace(
    app: Flask, client: FlaskClient, monkeypatch: Any
) -> None:
    service: GameService = app.extensions["pbem"]

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("secret internals: /etc/passwd")

    monkeypatch.setattr(service, "list_games", broken)
    response = client.get("/api/v1/games")
    assert response.status_code == 500
    assert "try again later" in response.json["message"]
    assert "secret internals" not in response.get_data(as_text=True)
    assert "Traceback" not in response.get_data(as_text=True)
