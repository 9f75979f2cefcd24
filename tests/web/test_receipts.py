"""Checking a receipt over the web, on SQLite and PostgreSQL: the JSON endpoint (described in
the OpenAPI document) and the page, for anyone of a public game; a malformed receipt is a 400
that says what to send and changes nothing."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from pbem.app.service import GameService
from tests.web.helpers import bearer, new_game


def _service(app: Flask) -> GameService:
    svc: GameService = app.extensions["pbem"]
    return svc


def _staked_and_revealed(app: Flask, client: FlaskClient) -> tuple[str, int, str, str]:
    """A hoard game whose secret stakes are revealed: (game, the stake's version, its hash,
    its salt as the staker sees it in its own log)."""
    made = new_game(client, rounds=2)
    gid, tokens = made["id"], [s["token"] for s in made["seats"]]
    svc = _service(app)

    def act(seat: int, action: str) -> None:
        version = svc.load(gid).version
        body = {"action": action, "expected_version": version}
        got = client.post(f"/api/v1/games/{gid}/actions", json=body, headers=bearer(tokens[seat]))
        assert got.status_code == 201, got.json

    act(0, "draw")
    act(1, "draw")
    act(0, f"stake {svc.load(gid).view(0)['my_purse'][0]}")
    own = client.get(f"/api/v1/games/{gid}/events", headers=bearer(tokens[0])).json["events"][-1]
    salt = own["data"]["nonce"]
    act(1, "pass")
    return gid, own["version"], own["hash"], salt


def test_the_receipt_endpoint_answers_anyone_of_a_public_game(
    app: Flask, client: FlaskClient
) -> None:
    gid, version, hash_, salt = _staked_and_revealed(app, client)
    url = f"/api/v1/games/{gid}/receipt"
    got = client.get(url, query_string={"version": version, "hash": hash_})
    assert got.status_code == 200 and got.json["ok"] and got.json["matches"]
    assert got.json["chain_hash"] == hash_ and got.json["vote"] is None
    voted = client.get(url, query_string={"version": version, "hash": hash_, "salt": salt})
    assert voted.json["ok"] and voted.json["vote"]["status"] == "matches"
    other = ("0" if salt[0] != "0" else "1") + salt[1:]
    wrong = client.get(url, query_string={"version": version, "hash": hash_, "salt": other})
    assert wrong.status_code == 200 and not wrong.json["ok"]
    assert wrong.json["vote"]["status"] == "does not match"
    earlier = client.get(url, query_string={"version": version - 1, "hash": hash_})
    assert earlier.status_code == 200 and not earlier.json["matches"]
    for query, says in (
        ({"version": version, "hash": "xyz"}, "64 hexadecimal"),
        ({"version": version}, "hash"),
        ({"version": 0, "hash": hash_}, "version"),
        ({"version": version, "hash": hash_, "salt": "nope"}, "32 hexadecimal"),
        ({"version": 999, "hash": hash_}, "does not exist"),
    ):
        bad = client.get(url, query_string=query)
        assert bad.status_code == 400, (query, bad.json)
        assert says in str(bad.json), (query, bad.json)
    spec = client.get("/api/v1/openapi.json").json
    assert "/api/v1/games/{game_id}/receipt" in spec["paths"]


def test_the_receipt_page_checks_a_mails_receipt_and_a_salt(
    app: Flask, client: FlaskClient
) -> None:
    gid, version, hash_, salt = _staked_and_revealed(app, client)
    form = client.get(f"/games/{gid}/receipt")
    assert form.status_code == 200 and 'name="hash"' in form.text
    assert f"/games/{gid}/receipt" in client.get(f"/games/{gid}/audit").text
    page = client.get(
        f"/games/{gid}/receipt", query_string={"version": version, "hash": hash_, "salt": salt}
    )
    assert page.status_code == 200
    assert f"✔ Version {version} of game {gid} has this hash" in page.text
    assert "is the one committed to before the reveal" in page.text
    bad = client.get(f"/games/{gid}/receipt", query_string={"version": "x", "hash": hash_})
    assert bad.status_code == 400 and "whole number" in bad.text


def test_the_receipt_endpoint_says_a_vote_before_its_reveal_is_pending(
    app: Flask, client: FlaskClient
) -> None:
    made = new_game(client, rounds=2)
    gid, tokens = made["id"], [s["token"] for s in made["seats"]]
    svc = _service(app)
    for seat, action in ((0, "draw"), (1, "draw")):
        body = {"action": action, "expected_version": svc.load(gid).version}
        got = client.post(f"/api/v1/games/{gid}/actions", json=body, headers=bearer(tokens[seat]))
        assert got.status_code == 201, got.json
    body = {
        "action": f"stake {svc.load(gid).view(0)['my_purse'][0]}",
        "expected_version": svc.load(gid).version,
    }
    assert (
        client.post(
            f"/api/v1/games/{gid}/actions", json=body, headers=bearer(tokens[0])
        ).status_code
        == 201
    )
    own = client.get(f"/api/v1/games/{gid}/events", headers=bearer(tokens[0])).json["events"][-1]
    query = {"version": own["version"], "hash": own["hash"], "salt": own["data"]["nonce"]}
    got = client.get(f"/api/v1/games/{gid}/receipt", query_string=query)
    assert got.status_code == 200 and got.json["matches"]
    assert got.json["ok"] and got.json["vote"]["status"] == "pending"
    page = client.get(f"/games/{gid}/receipt", query_string=query)
    assert "✘" not in page.text and "not revealed yet" in page.text
