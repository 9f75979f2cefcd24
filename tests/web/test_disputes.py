"""Disputes through the JSON API, the admin API, the seat page's forms and the audit page, on
SQLite and PostgreSQL: opened, answered, resolved; bad input refused with a message and
nothing changed; the evidence as each caller may see it."""

from __future__ import annotations

import html
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from tests.web.helpers import bearer, new_game, sqlite_app


def _play(client: FlaskClient, game: dict[str, Any], seat: int, text: str) -> int:
    gid = game["id"]
    version = client.get(f"/api/v1/games/{gid}").json["version"]  # type: ignore[index]
    response = client.post(
        f"/api/v1/games/{gid}/actions",
        json={"action": text, "expected_version": version},
        headers=bearer(game["seats"][seat]["token"]),
    )
    assert response.status_code == 201, response.json
    return int(response.json["version"])  # type: ignore[index]


def _count(client: FlaskClient, gid: str) -> int:
    return len(client.get(f"/api/v1/games/{gid}/events").json["events"])  # type: ignore[index]


def test_a_dispute_through_the_api_is_answered_and_upheld_by_consent(client: FlaskClient) -> None:
    game = new_game(client, players=3)
    gid, seats = game["id"], game["seats"]
    _play(client, game, 0, "keep")
    _play(client, game, 1, "keep")
    opened = client.post(
        f"/api/v1/games/{gid}/disputes",
        json={"versions": "3-4", "text": "my keep was meant as draw"},
        headers=bearer(seats[0]["token"]),
    )
    assert opened.status_code == 201, opened.json
    assert opened.json == {
        "version": 5,
        "dispute": 5,
        "status": "open",
        "retracted": [],
        "revealed": [],
    }
    listed = client.get(f"/api/v1/games/{gid}/disputes").json["disputes"]  # type: ignore[index]
    assert [(d["dispute"], d["by"], d["versions"], d["status"]) for d in listed] == [
        (5, "P0", [3, 4], "open")
    ]
    for seat, status in ((1, "agreed"), (2, "upheld")):
        answer = client.post(
            f"/api/v1/games/{gid}/disputes/5/answer",
            json={"agree": True},
            headers=bearer(seats[seat]["token"]),
        )
        assert answer.status_code == 201, answer.json
        assert answer.json["status"] == status  # type: ignore[index]
    assert answer.json["retracted"] == [3, 4]  # type: ignore[index]
    doc = client.get(f"/api/v1/games/{gid}").json
    assert doc["to_act"] == [0]  # type: ignore[index]


def test_bad_dispute_requests_are_refused_with_a_message_and_change_nothing(
    client: FlaskClient,
) -> None:
    game = new_game(client)
    gid, token = game["id"], game["seats"][0]["token"]
    _play(client, game, 0, "keep")
    count = _count(client, gid)
    cases: list[tuple[Any, dict[str, str], int, str]] = [
        ({"versions": "three", "text": "x"}, bearer(token), 400, "as a number, or a range"),
        ({"versions": "5-3", "text": "x"}, bearer(token), 400, "must not be after the last"),
        ({"versions": "2", "text": "x"}, bearer(token), 422, "no move in effect at version 2"),
        ({"versions": "3"}, bearer(token), 400, "text"),
        ({"versions": "3", "text": "x", "extra": 1}, bearer(token), 400, "extra"),
        ({"versions": "3", "text": "x"}, {}, 403, "seat token"),
        ({"versions": "3", "text": "x"}, bearer(game["admin_token"]), 403, "not a seat token"),
    ]
    for body, headers, status, said in cases:
        response = client.post(f"/api/v1/games/{gid}/disputes", json=body, headers=headers)
        assert response.status_code == status, (body, response.json)
        assert said in json.dumps(response.json), (body, response.json)
    bad_answer = client.post(
        f"/api/v1/games/{gid}/disputes/3/answer", json={"agree": True}, headers=bearer(token)
    )
    assert bad_answer.status_code == 404
    assert "no dispute 3" in bad_answer.json["message"]  # type: ignore[index]
    assert _count(client, gid) == count


def test_the_administrator_sees_the_evidence_and_dismisses_through_the_admin_api(
    client: FlaskClient,
) -> None:
    game = new_game(client)
    gid, seats, admin = game["id"], game["seats"], game["admin_token"]
    _play(client, game, 0, "keep")
    client.post(
        f"/api/v1/games/{gid}/disputes",
        json={"versions": "3", "text": "P0 keeps too often"},
        headers=bearer(seats[1]["token"]),
    )
    forbidden = client.get(f"/api/v1/games/{gid}/admin/disputes", headers=bearer(seats[1]["token"]))
    assert forbidden.status_code == 403
    report = client.get(f"/api/v1/games/{gid}/admin/disputes", headers=bearer(admin)).json
    [step] = report["disputes"][0]["steps"]  # type: ignore[index]
    assert (step["evidence"], step["canonical"], step["channel"]) == ("full", "keep", "api")
    assert step["seen"]["kind"] == "page" and step["seen"]["version"] == 2
    assert step["deadline"] == "no time control"
    assert "keep" in step["legal"] and "draw" in step["legal"]
    # The seat that disputed sees the public record of another seat's move; the mover all.
    as_disputer = client.get(f"/api/v1/games/{gid}/audit", headers=bearer(seats[1]["token"]))
    assert as_disputer.json["disputes"][0]["steps"][0]["evidence"].startswith("public")  # type: ignore[index]
    as_mover = client.get(f"/api/v1/games/{gid}/audit?version=3", headers=bearer(seats[0]["token"]))
    assert as_mover.json["steps"][0]["evidence"] == "full"  # type: ignore[index]
    not_a_move = client.get(f"/api/v1/games/{gid}/audit?version=2", headers=bearer(admin))
    assert not_a_move.status_code == 404
    refused = client.post(
        f"/api/v1/games/{gid}/admin/disputes/4/resolve",
        json={"uphold": "no"},
        headers=bearer(admin),
    )
    assert refused.status_code == 400
    dismissed = client.post(
        f"/api/v1/games/{gid}/admin/disputes/4/resolve",
        json={"uphold": False, "reason": "keeping is allowed"},
        headers=bearer(admin),
    )
    assert dismissed.status_code == 201, dismissed.json
    assert dismissed.json["status"] == "dismissed"  # type: ignore[index]
    listed = client.get(f"/api/v1/games/{gid}/disputes").json["disputes"]  # type: ignore[index]
    assert (listed[0]["status"], listed[0]["reason"]) == ("dismissed", "keeping is allowed")
    audit_page = client.get(f"/games/{gid}/audit?view=public").get_data(as_text=True)
    assert 'Resolved at version <a href="#v5">5</a>: keeping is allowed.' in audit_page
    # The audit page says the administrator dismissed it (through the API), not the opener.
    page = client.get(f"/games/{gid}/audit?view=public").get_data(as_text=True)
    row = re.search(r'<tr id="v5".*?</tr>', page, re.S)
    assert row is not None
    cells = [html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in row[0].split("</td>")]
    assert cells[2:4] == ["the administrator", "api"]


def _text(page: Any) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page.get_data(as_text=True)))


def _seat_client(app: Flask, gid: str, token: str) -> FlaskClient:
    seat_client = app.test_client()
    assert seat_client.get(f"/games/{gid}?token={token}").status_code == 303
    return seat_client


def test_a_dispute_from_the_seat_page_form_is_agreed_on_the_other_seat_page(
    app: Flask, client: FlaskClient
) -> None:
    game = new_game(client)
    gid, seats = game["id"], game["seats"]
    _play(client, game, 0, "keep")
    _play(client, game, 1, "keep")
    ann, bob = _seat_client(app, gid, seats[0]["token"]), _seat_client(app, gid, seats[1]["token"])
    page = ann.get(f"/games/{gid}")
    assert 'id="dispute"' in page.get_data(as_text=True)

    # A version that is no move: the page again, the error said, what was typed kept.
    wrong = ann.post(f"/games/{gid}/disputes", data={"versions": "2", "text": "the start"})
    assert wrong.status_code == 422
    assert "no move in effect at version 2" in _text(wrong)
    assert "the start" in wrong.get_data(as_text=True)
    stranger = app.test_client().post(f"/games/{gid}/disputes", data={"versions": "3", "text": "x"})
    assert stranger.status_code == 403

    opened = ann.post(
        f"/games/{gid}/disputes", data={"versions": "3", "text": "I typed keep twice"}
    )
    assert opened.status_code == 303
    bob_page = _text(bob.get(f"/games/{gid}"))
    assert "Dispute 5 : P0 disputes version 3: “I typed keep twice”" in " ".join(bob_page.split())
    assert "Agree: take them back" in bob_page
    assert "Agree: take them back" not in _text(ann.get(f"/games/{gid}"))  # not for the opener
    assert "Agreed: nobody yet." in " ".join(bob_page.split())
    agreed = bob.post(f"/games/{gid}/disputes/5/answer", data={"agree": "yes"})
    assert agreed.status_code == 303
    # Bob's agreement upheld it: the audit page names him for the resolution and the
    # retraction, not Ann who opened the dispute.
    audit_html = client.get(f"/games/{gid}/audit?view=public").get_data(as_text=True)
    for version in (7, 8):
        row = re.search(rf'<tr id="v{version}".*?</tr>', audit_html, re.S)
        assert row is not None
        cells = [html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in row[0].split("</td>")]
        assert cells[2] == "P1", (version, cells)
    doc = client.get(f"/api/v1/games/{gid}").json
    assert doc["to_act"] == [0]  # type: ignore[index]
    assert client.get(f"/api/v1/games/{gid}/disputes").json["disputes"][0]["status"] == "upheld"  # type: ignore[index]

    audit = _text(ann.get(f"/games/{gid}/audit"))
    assert "Dispute 5 — upheld" in audit
    assert "In front of the player" in audit  # Ann's own move: the whole evidence
    assert "Legal actions then" in audit
    public = _text(app.test_client().get(f"/games/{gid}/audit"))
    assert "Dispute 5 — upheld" in public and "Legal actions then" not in public


def test_the_audit_page_shows_the_administrator_everything_once_given_the_admin_token(
    app: Flask, client: FlaskClient
) -> None:
    game = new_game(client)
    gid, seats = game["id"], game["seats"]
    _play(client, game, 0, "keep")
    bob = _seat_client(app, gid, seats[1]["token"])
    assert bob.post(f"/games/{gid}/disputes", data={"versions": "3", "text": "odd"}).status_code
    assert "Legal actions then" not in _text(bob.get(f"/games/{gid}/audit"))  # P0's move
    wrong = app.test_client().get(f"/games/{gid}/audit?admin={seats[0]['token']}")
    assert wrong.status_code == 403 and "not the game's admin token" in _text(wrong)
    operator = app.test_client()
    exchanged = operator.get(f"/games/{gid}/audit?admin={game['admin_token']}")
    assert exchanged.status_code == 303 and "admin=" not in exchanged.headers["Location"]
    page = _text(operator.get(f"/games/{gid}/audit"))
    assert "You are the game's administrator" in page
    assert "Legal actions then" in page and "In front of the player" in page


def test_the_audit_page_of_a_log_that_does_not_read_still_answers_without_evidence(
    tmp_path: Path,
) -> None:
    with sqlite_app(tmp_path) as app:
        svc = app.extensions["pbem"]
        created = svc.create_game("lancelot", {}, [{"name": "Ann"}, {"name": "Bob"}])
        svc.submit(created.id, 0, "E5", expected_version=2, channel="web")
        with sqlite3.connect(tmp_path / "pbem.db") as db:
            db.execute(
                "UPDATE events SET data = ? WHERE game_id = ? AND version = 3",
                ('{"seat": "x"}', created.id),
            )
        page = app.test_client().get(f"/games/{created.id}/audit")
        assert page.status_code == 200
        text = _text(page)
        assert "The record does not check" in text
        assert "The evidence cannot be assembled" in text


def test_a_dispute_across_a_draw_offers_no_agreement_and_a_refusal_shows_at_the_top(
    app: Flask, client: FlaskClient
) -> None:
    game = new_game(client)
    gid, seats = game["id"], game["seats"]
    _play(client, game, 0, "draw")  # 3: random, irreversible
    ann, bob = _seat_client(app, gid, seats[0]["token"]), _seat_client(app, gid, seats[1]["token"])
    opened = bob.post(f"/games/{gid}/disputes", data={"versions": "3", "text": "drew twice"})
    assert opened.status_code == 303
    [listed] = client.get(f"/api/v1/games/{gid}/disputes").json["disputes"]  # type: ignore[index]
    assert listed["administrator_only"] is True
    ann_page = " ".join(_text(ann.get(f"/games/{gid}")).split())
    assert "Agree: take them back" not in ann_page
    assert "only the game's administrator can uphold this dispute" in ann_page
    assert "Disagree: the administrator decides" in ann_page
    # A stale form's agreement is refused where it is seen: above the board, not far below.
    refused = ann.post(f"/games/{gid}/disputes/4/answer", data={"agree": "yes"})
    assert refused.status_code == 422
    body = refused.get_data(as_text=True)
    assert 'id="dispute-error"' in body
    assert body.index('id="dispute-error"') < body.index('id="disputes"')
    assert "Only the game's administrator can uphold this dispute" in html.unescape(body)
    upheld = client.post(
        f"/api/v1/games/{gid}/admin/disputes/4/resolve",
        json={"uphold": True, "reason": "a double draw"},
        headers=bearer(game["admin_token"]),
    )
    assert upheld.status_code == 201, upheld.json
    # The administrator decided: the audit page says so for the resolution and retraction.
    audit_html = client.get(f"/games/{gid}/audit?view=public").get_data(as_text=True)
    for version in (5, 6):
        row = re.search(rf'<tr id="v{version}".*?</tr>', audit_html, re.S)
        assert row is not None
        cells = [html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in row[0].split("</td>")]
        assert cells[2:4] == ["the administrator", "api"], (version, cells)
