"""The admin token printed at creation guards game administration: resign a seat, end the
game, read the whole log. A seat token, another game's admin token or none is refused and
changes nothing."""

from __future__ import annotations

from flask.testing import FlaskClient

from tests.web.helpers import bearer, new_game


def test_the_admin_resigns_a_seat_and_the_last_player_left_wins(client: FlaskClient) -> None:
    created = new_game(client, "lancelot", players=3)
    gid, admin = created["id"], created["admin_token"]
    response = client.post(
        f"/api/v1/games/{gid}/admin/resign", json={"seat": 1}, headers=bearer(admin)
    )
    assert response.status_code == 200, response.json
    assert response.json["finished"] is False
    game = client.get(f"/api/v1/games/{gid}").json
    assert [p["resigned"] for p in game["players"]] == [False, True, False]
    client.post(f"/api/v1/games/{gid}/admin/resign", json={"seat": 0}, headers=bearer(admin))
    game = client.get(f"/api/v1/games/{gid}").json
    assert game["finished"] is True and game["outcome"]["winners"] == [2]


def test_the_admin_ends_the_game_and_its_seed_is_revealed(client: FlaskClient) -> None:
    created = new_game(client, "lancelot", players=2)
    gid, admin = created["id"], created["admin_token"]
    response = client.post(f"/api/v1/games/{gid}/admin/end", headers=bearer(admin))
    assert response.status_code == 200 and response.json["finished"] is True
    game = client.get(f"/api/v1/games/{gid}").json
    assert game["finished"] is True and game["to_act"] == []
    log = client.get(f"/api/v1/games/{gid}/admin/log", headers=bearer(admin)).json["events"]
    assert log[-1]["type"] == "GameFinished" and log[-1]["data"]["seed"].isdigit()
    again = client.post(f"/api/v1/games/{gid}/admin/end", headers=bearer(admin))
    assert again.status_code == 409


def test_the_full_log_shows_what_seats_cannot_see(client: FlaskClient) -> None:
    created = new_game(client, "hoard", players=2)
    gid, admin = created["id"], created["admin_token"]
    log = client.get(f"/api/v1/games/{gid}/admin/log", headers=bearer(admin)).json["events"]
    assert [s["email"] for s in log[0]["data"]["seats"]] == ["p0@example.org", "p1@example.org"]
    public = client.get(f"/api/v1/games/{gid}/events").json["events"]
    seats = public[0]["data"]["seats"]
    assert all(s["email"] is None for s in seats)


def test_administration_without_the_admin_token_is_refused_and_changes_nothing(
    client: FlaskClient,
) -> None:
    created = new_game(client, "lancelot", players=2)
    other = new_game(client, "lancelot", players=2)
    gid = created["id"]
    for headers in ({}, bearer(created["seats"][0]["token"]), bearer(other["admin_token"])):
        assert client.post(f"/api/v1/games/{gid}/admin/end", headers=headers).status_code == 403
        resign = client.post(f"/api/v1/games/{gid}/admin/resign", json={"seat": 1}, headers=headers)
        assert resign.status_code == 403
        assert client.get(f"/api/v1/games/{gid}/admin/log", headers=headers).status_code == 403
    game = client.get(f"/api/v1/games/{gid}").json
    assert game["version"] == 2 and not game["finished"]
    assert not any(p["resigned"] for p in game["players"])
    missing = client.post(
        f"/api/v1/games/{gid}/admin/resign",
        json={"seat": "one"},
        headers=bearer(created["admin_token"]),
    )
    assert missing.status_code == 400 and "seat" in missing.json["message"]
