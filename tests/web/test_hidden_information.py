"""No response to one seat ever contains another seat's hidden values.

A Hoard game (secret gems per seat, random draws, secret stakes revealed together) is played
with seeded choices over HTTP. After every version, every response a seat can get — the game,
the log, the state at every earlier version, its own action's answer and a stale answer — is
searched for the gems other seats hold at that version and for the seed. Spectators see no
gem that is still hidden at all.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem.app.service import GameService
from tests.helpers import database_of
from tests.web.helpers import bearer, new_game

# PostgreSQL under -m slow: what a response holds is the rules' view of a seat, the same
# whatever stores the log.
pytestmark = pytest.mark.postgres_in_slow


def _hidden_from(service: GameService, gid: str, seat: int | None) -> set[str]:
    """Gems held (and not revealed) by seats other than ``seat`` at the current version."""
    state = service.load(gid).state
    return {g for s, purse in enumerate(state.purses) if s != seat for g in purse}


def _responses(
    client: FlaskClient,
    gid: str,
    token: str | None,
    version: int,
    states: dict[int, str] | None = None,
) -> list[str]:
    """What a seat (a spectator: no token) can get at ``version``. ``states``: the answers
    for the state at each earlier version, fetched once each and kept (that state does not
    change with the versions after it) to be searched again for what is hidden later; all
    fetched afresh when not given."""
    headers = bearer(token) if token else {}
    texts = [
        client.get(f"/api/v1/games/{gid}", headers=headers).get_data(as_text=True),
        client.get(f"/api/v1/games/{gid}/events", headers=headers).get_data(as_text=True),
    ]
    kept = {} if states is None else states
    for v in range(1, version + 1):
        if v not in kept:
            answer = client.get(f"/api/v1/games/{gid}/state?at={v}", headers=headers)
            kept[v] = answer.get_data(as_text=True)
        texts.append(kept[v])
    if token:
        stale = client.post(
            f"/api/v1/games/{gid}/actions",
            json={"action": "pass", "expected_version": 1},
            headers=headers,
        )
        assert stale.status_code in (409, 422)
        texts.append(stale.get_data(as_text=True))
    return texts


def test_no_response_to_a_seat_holds_another_seats_hidden_values(
    app: Flask, client: FlaskClient
) -> None:
    service: GameService = app.extensions["pbem"]
    created = new_game(client, "hoard", players=3, rounds=3)
    gid = created["id"]
    tokens = [s["token"] for s in created["seats"]]
    seed = _seed(service, gid)
    rnd = random.Random(1234)
    checked_secrets = 0
    # Each seat's answers for the states of past versions, searched again at every later
    # version for what is hidden then (a future draw must not show in a past state); once
    # the game ends every one is fetched again.
    states: dict[int | None, dict[int, str]] = {seat: {} for seat in [None, 0, 1, 2]}
    while True:
        game = client.get(f"/api/v1/games/{gid}").json
        version = game["version"]
        finished = game["finished"]
        for seat in [None, 0, 1, 2]:
            hidden = _hidden_from(service, gid, seat)
            checked_secrets += len(hidden)
            token = tokens[seat] if seat is not None else None
            kept = None if finished else states[seat]
            for text in _responses(client, gid, token, version, kept):
                leaked = [g for g in hidden if g in text]
                assert not leaked, (version, seat, leaked)
                if not finished:
                    assert seed not in text, (version, seat)
        if finished:
            break
        seat = rnd.choice(game["to_act"])
        mine = client.get(f"/api/v1/games/{gid}", headers=bearer(tokens[seat])).json
        move = rnd.choice(mine["legal"])
        answer = client.post(
            f"/api/v1/games/{gid}/actions",
            json={"action": move, "expected_version": version},
            headers=bearer(tokens[seat]),
        )
        assert answer.status_code == 201
        others = _hidden_from(service, gid, seat)
        assert not [g for g in others if g in answer.get_data(as_text=True)]
    assert checked_secrets > 20  # gems were really drawn and hidden along the way
    # at the end the seed is revealed to everyone, so the game can be re-run
    events = client.get(f"/api/v1/games/{gid}/events").json["events"]
    assert events[-1]["data"]["seed"] == seed


def _seed(service: GameService, gid: str) -> str:
    from pbem.core.models import GameSecret

    with database_of(service).read() as s:
        game = s.get(GameSecret, gid)  # the seed is kept outside the read models
        assert game is not None
        return game.seed


def test_a_secret_stake_shows_only_as_seat_acted_until_the_reveal(
    client: FlaskClient,
) -> None:
    created = new_game(client, "hoard", players=2, rounds=1)
    gid = created["id"]
    t0, t1 = created["seats"][0]["token"], created["seats"][1]["token"]

    def post(token: str, text: str, version: int) -> Any:
        r = client.post(
            f"/api/v1/games/{gid}/actions",
            json={"action": text, "expected_version": version},
            headers=bearer(token),
        )
        assert r.status_code == 201, r.json
        return r.json

    post(t0, "draw", 2)
    post(t1, "keep", 3)
    gem = client.get(f"/api/v1/games/{gid}", headers=bearer(t0)).json["view"]["my_purse"][0]
    post(t0, f"stake {gem}", 4)
    seen_by_1 = client.get(f"/api/v1/games/{gid}/events?after=4", headers=bearer(t1)).json
    (stake,) = seen_by_1["events"]
    assert stake["data"] == {
        "seat": 0,
        "hidden": True,
        "summary": "P0 acted",
        "log": ["P0 committed."],
        "engine_log": ["Seat 0 committed."],
        "channel": "api",
        "received_at": stake["data"]["received_at"],
    }
    assert stake["text"] == "P0 acted in secret — P0 committed."
    seen_by_0 = client.get(f"/api/v1/games/{gid}/events?after=4", headers=bearer(t0)).json
    assert seen_by_0["events"][0]["data"]["canonical"] == f"stake {gem}"
    post(t1, "pass", 5)  # the last stake: the reveal
    revealed = client.get(f"/api/v1/games/{gid}/events?after=4", headers=bearer(t1)).json
    assert revealed["events"][0]["data"]["canonical"] == f"stake {gem}"
    assert json.dumps(revealed).count(gem) >= 1
    # The last stake reveals itself at once, to the seat that staked first as to everyone.
    for token in (t0, None):
        seen = client.get(
            f"/api/v1/games/{gid}/events?after=5", headers=bearer(token) if token else {}
        ).json
        last = seen["events"][0]
        assert (last["version"], last["data"]["canonical"]) == (6, "pass"), last
        assert f"Stakes revealed: P0: {gem}, P1: pass." in last["data"]["log"]
        assert last["data"]["engine_log"][-1] == f"Stakes revealed: seat 0: {gem}, seat 1: pass."
