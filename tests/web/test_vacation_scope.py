"""Who may go away or come back for an address, on SQLite and PostgreSQL: a seat token proves
one seat of one game, and whoever creates a game naming an address is handed that seat's
token. So ``/away`` and ``/back`` act in the token's own game only, and no answer names
another game of the address; across the address's games, only its own mail acts."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from flask.testing import FlaskClient

from pbem.app.service import GameService
from tests.web.helpers import bearer, welcome

DI = "di.vacation@example.org"


def _service(client: FlaskClient) -> GameService:
    service: GameService = client.application.extensions["pbem"]
    return service


def _create(client: FlaskClient, players: list[dict[str, str]], **extra: Any) -> dict[str, Any]:
    made = client.post("/api/v1/games", json={"game": "hoard", "players": players, **extra})
    assert made.status_code == 201, made.json
    created: dict[str, Any] = made.json
    return created


def _away_until(client: FlaskClient, game: dict[str, Any], seat: int) -> str | None:
    rows = _service(client).deadlines(game["id"])
    found: str | None = next(r["away_until"] for r in rows if r["seat"] == seat)
    return found


def test_a_stranger_holding_a_seat_token_of_the_address_cannot_act_in_its_other_games(
    client: FlaskClient,
) -> None:
    svc = _service(client)
    players = [{"name": "Di", "email": DI}, {"name": "Ed", "email": "ed.vacation@example.org"}]
    welcome(client, players)
    # Di is away in her private game X (she said so by mail: it is her own address).
    x = _create(client, players, private=True, time_control="48h")
    until = svc.clock.now() + timedelta(days=3)
    svc.away(DI, until, channel="email")
    away_in_x = _away_until(client, x, 0)
    assert away_in_x is not None
    x_version = svc.load(x["id"]).version

    # Mallory creates game Y naming Di's address: she is handed Di's seat token for Y.
    y = _create(
        client,
        [{"name": "Di", "email": DI}, {"name": "Mallory", "email": "mallory@evil.example"}],
        time_control="48h",
    )
    di_in_y = bearer(y["seats"][0]["token"])
    answers = [
        client.post(f"/api/v1/games/{y['id']}/back", headers=di_in_y),
        client.post(
            f"/api/v1/games/{y['id']}/away",
            json={"until": (until + timedelta(days=9)).date().isoformat()},
            headers=di_in_y,
        ),
        client.post(f"/api/v1/games/{y['id']}/back", headers=di_in_y),
        client.post(f"/api/v1/games/{y['id']}/back", headers=di_in_y),
    ]
    assert [a.status_code for a in answers] == [409, 201, 201, 409], [a.json for a in answers]
    # Each answer is about Y alone: X is not named, not even in a refusal.
    for answer in answers:
        assert x["id"] not in json.dumps(answer.json), answer.json
    assert [g["game_id"] for g in answers[1].json["games"]] == [y["id"]]
    assert "not away in this game" in answers[0].json["message"]

    # Di's vacation in X stands, and nothing was recorded there.
    assert _away_until(client, x, 0) == away_in_x
    assert svc.load(x["id"]).version == x_version


def test_a_seat_goes_away_and_comes_back_in_its_own_game(client: FlaskClient) -> None:
    svc = _service(client)
    players = [{"name": "Fay", "email": "fay.vacation@example.org"}, {"name": "Gus"}]
    welcome(client, players[:1])
    game = _create(client, players, time_control="48h")
    fay, gus = bearer(game["seats"][0]["token"]), bearer(game["seats"][1]["token"])
    soon = (svc.clock.now() + timedelta(days=2)).date().isoformat()
    away = client.post(f"/api/v1/games/{game['id']}/away", json={"until": soon}, headers=fay)
    assert away.status_code == 201, away.json
    [mine] = away.json["games"]
    assert (mine["game_id"], mine["seat"], mine["note"]) == (game["id"], 0, "away")
    assert _away_until(client, game, 0) == mine["until"]
    # A seat without an address may go away too: the vacation is this game's.
    assert client.post(
        f"/api/v1/games/{game['id']}/away", json={"until": soon}, headers=gus
    ).status_code == (201)
    back = client.post(f"/api/v1/games/{game['id']}/back", headers=fay)
    assert back.status_code == 201 and back.json["games"][0]["note"] == "back"
    ended = _away_until(client, game, 0)  # the vacation ends now, not at its day
    assert ended is not None and ended < mine["until"]
    untimed = _create(client, players)
    refused = client.post(
        f"/api/v1/games/{untimed['id']}/away",
        json={"until": soon},
        headers=bearer(untimed["seats"][0]["token"]),
    )
    assert refused.status_code == 409 and "no time control" in refused.json["message"]
