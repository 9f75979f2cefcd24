"""The clock on the JSON API, on SQLite and PostgreSQL: the admin token extends, pauses,
resumes and changes the time control (any other token: 403 and nothing changes); a seat
token sets a standing order, goes away and comes back (in its game), and asks or answers a
request."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from pbem.app.service import GameService
from tests.web.helpers import bearer, welcome

_n = iter(range(10_000))


def timed_game(client: FlaskClient, time_control: Any = "48h") -> Any:
    n = next(_n)
    seats = [{"name": f"P{i}", "email": f"clock{n}-{i}@example.org"} for i in range(2)]
    welcome(client, seats)
    svc: GameService = client.application.extensions["pbem"]
    return svc.create_game("hoard", {}, seats, time_control=time_control)


def deadlines(client: FlaskClient, game: Any) -> list[dict[str, Any]]:
    response = client.get(
        f"/api/v1/games/{game.id}/admin/deadlines", headers=bearer(game.admin_token)
    )
    assert response.status_code == 200, response.json
    rows: list[dict[str, Any]] = response.json["deadlines"]
    return rows


def test_the_admin_token_extends_pauses_resumes_and_sets_the_time_control(
    client: FlaskClient,
) -> None:
    g = timed_game(client)
    admin = bearer(g.admin_token)
    due = deadlines(client, g)[0]["due_at"]
    extended = client.post(
        f"/api/v1/games/{g.id}/admin/extend", json={"seat": 0, "by": "1d"}, headers=admin
    )
    assert extended.status_code == 201, extended.json
    assert extended.json["deadlines"][0]["due_at"] > due
    assert "extended by 1 day" in extended.json["done"]
    paused = client.post(f"/api/v1/games/{g.id}/admin/pause", headers=admin)
    assert paused.status_code == 201 and paused.json["deadlines"][0]["status"] == "paused"
    assert client.post(f"/api/v1/games/{g.id}/admin/pause", headers=admin).status_code == 409
    resumed = client.post(f"/api/v1/games/{g.id}/admin/resume", headers=admin)
    assert resumed.status_code == 201 and resumed.json["deadlines"][0]["status"] == "running"
    changed = client.post(
        f"/api/v1/games/{g.id}/admin/time-control", json={"time_control": "fast"}, headers=admin
    )
    assert changed.status_code == 201, changed.json
    bad = client.post(
        f"/api/v1/games/{g.id}/admin/time-control", json={"time_control": "soon"}, headers=admin
    )
    assert bad.status_code == 400 and "soon" in bad.json["message"]
    nobody = client.post(
        f"/api/v1/games/{g.id}/admin/extend", json={"seat": 1, "by": "1h"}, headers=admin
    )
    assert nobody.status_code == 409 and "owes no decision" in nobody.json["message"]
    unknown_field = client.post(
        f"/api/v1/games/{g.id}/admin/extend", json={"seat": 0, "by": "1h", "x": 1}, headers=admin
    )
    assert unknown_field.status_code == 400


def test_any_other_token_is_refused_and_changes_nothing(client: FlaskClient) -> None:
    g = timed_game(client)
    other = timed_game(client)
    svc: GameService = client.application.extensions["pbem"]
    version = svc.load(g.id).version
    before = deadlines(client, g)
    for headers in ({}, bearer(g.seats[0].token), bearer(other.admin_token)):
        for path, body in (
            ("extend", {"seat": 0, "by": "1d"}),
            ("pause", None),
            ("resume", None),
            ("time-control", {"time_control": "fast"}),
        ):
            response = client.post(f"/api/v1/games/{g.id}/admin/{path}", json=body, headers=headers)
            assert response.status_code == 403, (path, headers, response.json)
        assert (
            client.get(f"/api/v1/games/{g.id}/admin/deadlines", headers=headers).status_code == 403
        )
    assert svc.load(g.id).version == version
    assert deadlines(client, g) == before


def test_a_seat_sets_a_standing_order_and_goes_away(client: FlaskClient) -> None:
    g = timed_game(client)
    seat0, seat1 = bearer(g.seats[0].token), bearer(g.seats[1].token)
    refused = client.post(
        f"/api/v1/games/{g.id}/standing-order", json={"text": "pass"}, headers=seat0
    )
    assert refused.status_code == 422, refused.json
    ok = client.post(f"/api/v1/games/{g.id}/standing-order", json={"text": "draw"}, headers=seat0)
    assert ok.status_code == 201 and ok.json["checked"] is True
    assert ok.json["deadlines"][0]["standing_order"] is True
    kept = client.post(f"/api/v1/games/{g.id}/standing-order", json={"text": "pass"}, headers=seat1)
    assert kept.status_code == 201 and kept.json["checked"] is False
    # Bob is answered with his own order's flag, not with whether Ann has one.
    rows = {row["seat"]: row for row in kept.json["deadlines"]}
    assert rows[1]["standing_order"] is True and "standing_order" not in rows[0]
    past = client.post(f"/api/v1/games/{g.id}/away", json={"until": "2001-01-01"}, headers=seat0)
    assert past.status_code == 400 and "past" in past.json["message"]
    garbled = client.post(f"/api/v1/games/{g.id}/away", json={"until": "soon"}, headers=seat0)
    assert garbled.status_code == 400 and "2026-12-24" in garbled.json["message"]
    svc: GameService = client.application.extensions["pbem"]
    soon = svc.clock.now().date().isoformat()
    until = f"{int(soon[:4]) + 1}{soon[4:]}"  # a year on: the allowance (14 days) caps it
    away = client.post(f"/api/v1/games/{g.id}/away", json={"until": until}, headers=seat0)
    assert away.status_code == 201, away.json
    # This game only: a seat token does not prove the address (its other game is not named).
    [mine] = away.json["games"]
    assert mine["allowance_left"] == 0 and mine["game_id"] == g.id
    assert deadlines(client, g)[0]["away_until"] == mine["until"]
    back = client.post(f"/api/v1/games/{g.id}/back", headers=seat0)
    assert back.status_code == 201
    [here] = back.json["games"]
    assert here["game_id"] == g.id and here["allowance_left"] > 0
    assert client.post(f"/api/v1/games/{g.id}/back", headers=seat0).status_code == 409


def test_a_request_granted_by_consent(client: FlaskClient) -> None:
    g = timed_game(client)
    seat0, seat1 = bearer(g.seats[0].token), bearer(g.seats[1].token)
    due = deadlines(client, g)[0]["due_at"]
    asked = client.post(
        f"/api/v1/games/{g.id}/clock-requests", json={"what": "extend", "by": "6h"}, headers=seat0
    )
    assert asked.status_code == 201 and asked.json["status"] == "requested"
    assert asked.json["deadlines"][0]["due_at"] == due
    granted = client.post(
        f"/api/v1/games/{g.id}/clock-requests/answer", json={"agree": True}, headers=seat1
    )
    assert granted.status_code == 201 and granted.json["status"] == "granted"
    assert granted.json["deadlines"][0]["due_at"] > due
    none = client.post(
        f"/api/v1/games/{g.id}/clock-requests/answer", json={"agree": True}, headers=seat1
    )
    assert none.status_code == 409
    wrong = client.post(
        f"/api/v1/games/{g.id}/clock-requests", json={"what": "pause", "by": "6h"}, headers=seat0
    )
    assert wrong.status_code == 400


def test_a_standing_order_is_seen_by_its_seat_alone(client: FlaskClient) -> None:
    g = timed_game(client)
    seat0, seat1 = bearer(g.seats[0].token), bearer(g.seats[1].token)
    made = client.post(f"/api/v1/games/{g.id}/standing-order", json={"text": "draw"}, headers=seat0)
    assert made.status_code == 201

    def log_as(headers: dict[str, str]) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = client.get(
            f"/api/v1/games/{g.id}/events", headers=headers
        ).json["events"]
        return events

    mine = [e for e in log_as(seat0) if e["type"] == "StandingOrderSet"]
    assert [e["data"]["text"] for e in mine] == ["draw"]
    # Another seat, or the public, is not told that a standing order exists at all
    # (docs/deadlines.md): not its move, not even the event.
    for viewer in (seat1, {}):
        seen = log_as(viewer)
        assert seen and all(e["type"] != "StandingOrderSet" for e in seen)
        assert mine[0]["version"] not in {e["version"] for e in seen}
    full = client.get(f"/api/v1/games/{g.id}/admin/log", headers=bearer(g.admin_token))
    assert (
        next(e for e in full.json["events"] if e["type"] == "StandingOrderSet")["data"]["text"]
        == "draw"
    )
