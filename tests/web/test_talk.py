"""Table talk through the JSON API, the admin API, the seat page's conversation panel and the
administrator's page, on SQLite and PostgreSQL: who may read and write (a seat of the game
only: not another seat's messages, not another game's token, not a spectator, not a form
without the page's CSRF token or from another site), bad input refused with a message and
nothing changed, and a private message's words in no response, page, history, audit or
export of a seat it is not for."""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from tests.web.helpers import bearer, welcome

_games = iter(range(100_000))


def new_game(client: FlaskClient, players: int = 2) -> Any:
    """A Hoard game of players P0, P1 … at addresses of its own (the limits on creations
    count each address's games)."""
    n = next(_games)
    seats = [{"name": f"P{i}", "email": f"talk{n}-{i}@example.org"} for i in range(players)]
    welcome(client, seats)
    made = client.application.extensions["pbem"].create_game("hoard", {}, seats)
    return {
        "id": made.id,
        "admin_token": made.admin_token,
        "seats": [{"token": seat.token} for seat in made.seats],
    }


SECRET = "let us both vote against the Duke"


def _talk(client: FlaskClient, gid: str, token: str, **body: Any) -> Any:
    return client.post(f"/api/v1/games/{gid}/talk", json=body, headers=bearer(token))


def _version(client: FlaskClient, gid: str) -> int:
    return int(client.get(f"/api/v1/games/{gid}").json["version"])  # type: ignore[index]


def _holding(app: Flask, gid: str, token: str) -> FlaskClient:
    browser = app.test_client()
    assert browser.get(f"/games/{gid}?token={token}").status_code == 303
    return browser


def test_a_seat_writes_and_reads_table_talk_through_the_api(client: FlaskClient) -> None:
    game = new_game(client, players=3)
    gid, tokens = game["id"], [s["token"] for s in game["seats"]]
    sent = _talk(client, gid, tokens[0], text=SECRET, to=[1])
    assert sent.status_code == 201, sent.json
    assert sent.json["recipients"] == [1]  # type: ignore[index]
    public = _talk(client, gid, tokens[2], text="hello all")
    assert public.status_code == 201 and public.json["recipients"] == []  # type: ignore[index]
    for seat, sees in ((0, True), (1, True), (2, False)):
        listed = client.get(f"/api/v1/games/{gid}/talk", headers=bearer(tokens[seat]))
        assert listed.status_code == 200
        texts = [m["text"] for m in listed.json["messages"]]  # type: ignore[index]
        assert (SECRET in texts) is sees and "hello all" in texts
    mine = client.get(f"/api/v1/games/{gid}/talk", headers=bearer(tokens[0])).json
    first = mine["messages"][0]  # type: ignore[index]
    assert (first["from"], first["to"], first["to_names"], first["mine"]) == (
        "P0",
        [1],
        ["P1"],
        True,
    )
    # The OpenAPI document describes both.
    spec = client.get("/api/v1/openapi.json").json
    assert "/api/v1/games/{game_id}/talk" in spec["paths"]  # type: ignore[index]


def test_a_move_on_the_version_before_a_message_is_not_stale(client: FlaskClient) -> None:
    game = new_game(client)
    gid, tokens = game["id"], [s["token"] for s in game["seats"]]
    seen = _version(client, gid)
    assert _talk(client, gid, tokens[1], text="your move").status_code == 201
    moved = client.post(
        f"/api/v1/games/{gid}/actions",
        json={"action": "keep", "expected_version": seen},
        headers=bearer(tokens[0]),
    )
    assert moved.status_code == 201, moved.json


def test_only_a_seat_of_the_game_may_write_or_read(client: FlaskClient) -> None:
    game, other = new_game(client), new_game(client)
    gid = game["id"]
    version = _version(client, gid)
    no_token = client.post(f"/api/v1/games/{gid}/talk", json={"text": "hi"})
    assert no_token.status_code == 403
    assert client.get(f"/api/v1/games/{gid}/talk").status_code == 403
    foreign = _talk(client, gid, other["seats"][0]["token"], text="hi")
    assert foreign.status_code == 403
    forged = _talk(client, gid, "not-a-token", text="hi")
    assert forged.status_code == 403
    admin = _talk(client, gid, game["admin_token"], text="hi")
    assert admin.status_code == 403
    assert _version(client, gid) == version


def test_bad_messages_are_refused_with_a_message_and_change_nothing(client: FlaskClient) -> None:
    game = new_game(client)
    gid, token = game["id"], game["seats"][0]["token"]
    version = _version(client, gid)
    cases: list[tuple[dict[str, Any], int, str]] = [
        ({"text": "   "}, 400, "empty"),
        ({"text": "x" * 1001}, 400, "at most 1000 characters"),
        ({"text": "visit evil.example"}, 400, "address"),
        ({"text": "hi", "to": [9]}, 400, "no seat 9"),
        ({"text": "hi", "to": [0]}, 400, "other player"),
        ({"text": "hi", "to": "everyone"}, 400, "Not a valid list"),
        ({"text": "hi", "extra": 1}, 400, "extra"),
    ]
    for body, status, words in cases:
        answer = _talk(client, gid, token, **body)
        assert answer.status_code == status, (body, answer.json)
        assert words in answer.get_data(as_text=True)
    assert _version(client, gid) == version


def test_the_administrator_hides_a_message_through_the_admin_api(client: FlaskClient) -> None:
    game = new_game(client)
    gid, tokens, admin = game["id"], [s["token"] for s in game["seats"]], game["admin_token"]
    version = _talk(client, gid, tokens[0], text="rude words").json["version"]  # type: ignore[index]
    path = f"/api/v1/games/{gid}/admin/talk/{version}/hide"
    refused = client.post(path, json={"reason": "x"}, headers=bearer(tokens[1]))
    assert refused.status_code == 403
    assert client.post(path, json={}, headers=bearer(admin)).status_code == 400
    hidden = client.post(path, json={"reason": "insults"}, headers=bearer(admin))
    assert hidden.status_code == 201, hidden.json
    listed = client.get(f"/api/v1/games/{gid}/talk", headers=bearer(tokens[1])).json
    [message] = listed["messages"]  # type: ignore[index]
    assert message["text"] == "hidden by the administrator: insults" and message["hidden"]
    everything = client.get(f"/api/v1/games/{gid}/admin/talk", headers=bearer(admin)).json
    assert everything["messages"][0]["text"] == "rude words"  # type: ignore[index]
    assert (
        client.get(f"/api/v1/games/{gid}/admin/talk", headers=bearer(tokens[0])).status_code == 403
    )


def test_the_seat_pages_panel_writes_to_everyone_or_to_chosen_players(app: Flask) -> None:
    client = app.test_client()
    game = new_game(client, players=3)
    gid, tokens = game["id"], [s["token"] for s in game["seats"]]
    ann = _holding(app, gid, tokens[0])
    page = ann.get(f"/games/{gid}").text
    assert 'id="talk-form"' in page and "No messages yet." in page
    sent = ann.post(f"/games/{gid}/talk", data={"text": SECRET, "whom": "selected", "to": ["1"]})
    assert sent.status_code == 303
    assert "was sent" in ann.get(f"/games/{gid}").text
    ann.post(f"/games/{gid}/talk", data={"text": "to the table", "whom": "everyone"})
    bob = _holding(app, gid, tokens[1])
    cat = _holding(app, gid, tokens[2])
    assert SECRET in bob.get(f"/games/{gid}").text
    cat_page = cat.get(f"/games/{gid}").text
    assert SECRET not in cat_page and "to the table" in cat_page
    # Refused: nobody chosen; too long (the words kept in the form).
    refused = ann.post(f"/games/{gid}/talk", data={"text": "hm", "whom": "selected"})
    assert refused.status_code == 400 and "Choose the players" in refused.text
    long = "y" * 1001
    refused = ann.post(f"/games/{gid}/talk", data={"text": long, "whom": "everyone"})
    assert refused.status_code == 400 and "at most 1000" in refused.text and long in refused.text


def test_a_spectator_and_a_cross_site_form_write_nothing(app: Flask) -> None:
    client = app.test_client()
    game = new_game(client)
    gid, token = game["id"], game["seats"][0]["token"]
    version = _version(client, gid)
    visitor = app.test_client()
    page = visitor.get(f"/games/{gid}").text
    assert 'id="talk-form"' not in page
    assert visitor.post(f"/games/{gid}/talk", data={"text": "hi"}).status_code == 403
    ann = _holding(app, gid, token)
    # Without the page's token (a plain browser form from elsewhere), and from another origin.
    plain = FlaskClient(app, app.response_class, use_cookies=True)
    assert plain.get(f"/games/{gid}?token={token}").status_code == 303
    assert plain.post(f"/games/{gid}/talk", data={"text": "hi"}).status_code == 400
    other_site = ann.post(
        f"/games/{gid}/talk", data={"text": "hi"}, headers={"Origin": "https://evil.example"}
    )
    assert other_site.status_code == 403
    assert _version(client, gid) == version


def test_a_private_message_is_on_no_page_of_a_seat_it_is_not_for(app: Flask) -> None:
    client = app.test_client()
    game = new_game(client, players=3)
    gid, tokens = game["id"], [s["token"] for s in game["seats"]]
    assert _talk(client, gid, tokens[0], text=SECRET, to=[1]).status_code == 201
    assert _talk(client, gid, tokens[0], text="said to all").status_code == 201
    cat = _holding(app, gid, tokens[2])
    visitor = app.test_client()
    for who, browser in (("Cat", cat), ("a visitor", visitor)):
        for path in (
            f"/games/{gid}",
            f"/games/{gid}/history",
            f"/games/{gid}/audit",
            f"/games/{gid}/export.json",
            f"/games/{gid}?view=public",
            f"/games/{gid}/status.json",
        ):
            text = browser.get(path).get_data(as_text=True)
            assert SECRET not in text, (who, path)
            assert "P1" not in text or "to P1" not in text, (who, path)
    for headers in (bearer(tokens[2]), {}):
        events = client.get(f"/api/v1/games/{gid}/events", headers=headers).get_data(as_text=True)
        assert SECRET not in events
    # A visitor reads no table talk at all, not even what was said to every seat.
    assert "said to all" not in visitor.get(f"/games/{gid}").text
    assert "said to all" not in client.get(f"/api/v1/games/{gid}/events").get_data(as_text=True)
    # Bob, its recipient, reads it in the history too.
    bob = _holding(app, gid, tokens[1])
    assert SECRET in bob.get(f"/games/{gid}/history").text


def test_the_administrator_page_hides_a_message_with_a_reason(app: Flask) -> None:
    client = app.test_client()
    game = new_game(client)
    gid, tokens = game["id"], [s["token"] for s in game["seats"]]
    version = _talk(client, gid, tokens[0], text="rude words", to=[1]).json["version"]  # type: ignore[index]
    admin = app.test_client()
    assert admin.get(f"/games/{gid}/admin?admin={game['admin_token']}").status_code in (200, 303)
    page = admin.get(f"/games/{gid}/admin").text
    assert "rude words" in page and "Hide this message" in page
    # A seat's browser may not.
    bob = _holding(app, gid, tokens[1])
    assert (
        bob.post(f"/games/{gid}/admin/talk/{version}/hide", data={"reason": "x"}).status_code == 403
    )
    done = admin.post(f"/games/{gid}/admin/talk/{version}/hide", data={"reason": "insults"})
    assert done.status_code == 303
    bob_page = bob.get(f"/games/{gid}").text
    assert "hidden by the administrator: insults" in bob_page and "rude words" not in bob_page
