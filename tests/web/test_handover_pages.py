"""Substitutes on the pages and the API (Flask's test client, SQLite): the administrator's
form and API, a seat's proposal and the others' buttons and API, the newcomer's link (it
asks, the button accepts), and afterwards the old player's session, token and link refused
while the newcomer's page opens. Who may not: a visitor, a seat of another game, another
game's admin, the seat replaced itself."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import col, select

from pbem.app.service import GameService
from pbem.clock import events as ce
from pbem.mail.models import OutboxMail
from tests.helpers import database_of
from tests.mail.helpers import text_part
from tests.web.helpers import bearer, sqlite_app, welcome

_n = iter(range(10_000))


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    with sqlite_app(tmp_path_factory.mktemp("handover")) as app:
        yield app


def _service(app: Flask) -> GameService:
    svc: GameService = app.extensions["pbem"]
    return svc


def timed_game(app: Flask, players: int = 3) -> Any:
    n = next(_n)
    names = ["Ann", "Bob", "Cy", "Di"][:players]
    seats = [{"name": name, "email": f"ho{n}-{i}@example.org"} for i, name in enumerate(names)]
    welcome(app.test_client(), seats)
    return _service(app).create_game("hoard", {"players": players}, seats, time_control="48h")


def missed(app: Flask, game_id: str, seat: int, times: int = 2) -> None:
    """The seat missed ``times`` deadlines (as the sweep records them, the game waiting)."""
    service = _service(app)
    for i in range(times):
        with service.parts.transactions.on(game_id) as work:
            due = f"2026-03-0{i + 2}T09:00:00.000000Z"
            work.append(
                [ce.DeadlineMissed(seat=seat, due_at=due, move=False, reason="waiting")],
                work.state,
                lapse=False,
            )


def seat_client(app: Flask, game: Any, seat: int) -> FlaskClient:
    client = app.test_client()
    assert client.get(f"/games/{game.id}?token={game.seats[seat].token}").status_code == 303
    return client


def accept_path(app: Flask, game_id: str) -> str:
    with database_of(_service(app)).read() as session:
        mail = session.exec(
            select(OutboxMail)
            .where(OutboxMail.game_id == game_id, OutboxMail.kind == "substitute")
            .order_by(col(OutboxMail.created_at).desc())
        ).first()
        assert mail is not None, "the newcomer is invited"
        text = text_part(mail.message)
    found = re.search(rf"(/handover/{game_id}\?link=[a-z0-9]+)", text)
    assert found
    return found.group(1)


def test_the_administrator_hands_a_seat_over_on_the_admin_page(app: Flask) -> None:
    g, other = timed_game(app), timed_game(app)
    service = _service(app)
    old = seat_client(app, g, 1)
    # Visitors, seats and another game's admin are refused, and nothing changes.
    wrong = app.test_client()
    assert wrong.get(f"/games/{other.id}/admin?admin={other.admin_token}").status_code == 303
    before = service.load(g.id).version
    form = {"seat": "1", "name": "Dan", "email": "dan@example.org"}
    for client in (app.test_client(), seat_client(app, g, 0), wrong):
        refused = client.post(f"/games/{g.id}/admin/substitute", data=form)
        assert refused.status_code == 403
    assert service.load(g.id).version == before

    admin = app.test_client()
    assert admin.get(f"/games/{g.id}/admin?admin={g.admin_token}").status_code == 303
    page = admin.get(f"/games/{g.id}/admin").text
    assert "Hand a seat to a substitute" in page
    bad = admin.post(f"/games/{g.id}/admin/substitute", data={**form, "email": "nope"})
    assert bad.status_code == 400 and "plain e-mail address" in bad.text
    done = admin.post(f"/games/{g.id}/admin/substitute", data=form)
    assert done.status_code == 303
    assert "Dan is invited" in admin.get(f"/games/{g.id}/admin").text

    # The newcomer's link asks; the button accepts and opens the seat.
    path = accept_path(app, g.id)
    newcomer = app.test_client()
    asked = newcomer.get(path)
    assert asked.status_code == 200 and 'id="take-over"' in asked.text
    assert "played until now by Bob" in asked.text
    assert service.seat_info(g.id, 1).name == "Bob"  # opening the link changes nothing
    link = path.partition("link=")[2]
    taken = newcomer.post(f"/handover/{g.id}", data={"link": link})
    assert taken.status_code == 303 and "?link=" in taken.headers["Location"]
    location = taken.headers["Location"].removeprefix(service.settings.base_url.rstrip("/"))
    assert newcomer.get(location).status_code == 303
    page = newcomer.get(f"/games/{g.id}").text
    assert "Dan" in page and service.seat_info(g.id, 1).name == "Dan"
    # The old player's session no longer opens the seat; their token is refused as replaced.
    refused = old.post(f"/games/{g.id}/undo", data={"expected_version": "9"})
    assert refused.status_code == 403 and "no longer opens it" in refused.text
    assert "handed to another player" in refused.text
    reopened = app.test_client().get(f"/games/{g.id}?token={g.seats[1].token}")
    assert reopened.status_code == 401 and "replaced" in reopened.text
    again = app.test_client().post(f"/handover/{g.id}", data={"link": link})
    assert again.status_code == 403 and "revoked" in again.text
    # The audit page names both players with the versions each played.
    audit = app.test_client().get(f"/games/{g.id}/audit").text
    assert "Who played which versions" in audit
    assert re.search(r"<strong>Bob</strong>, versions 1 to \d+", audit)
    assert re.search(r"<strong>Dan</strong>, from version \d+", audit)
    assert "dan@example.org" not in audit


def test_the_other_seats_agree_on_the_page_and_by_the_api(app: Flask) -> None:
    g, other = timed_game(app), timed_game(app)
    service = _service(app)
    proposer = seat_client(app, g, 1)
    form = {"seat": "0", "name": "Dan", "email": "dan@example.org"}
    early = proposer.post(f"/games/{g.id}/substitute", data=form)
    assert early.status_code == 403 and "missed 0 deadlines" in early.text
    missed(app, g.id, 0)
    # A visitor, and a seat of another game, cannot propose.
    assert app.test_client().post(f"/games/{g.id}/substitute", data=form).status_code == 403
    api = app.test_client()
    body = {"seat": 0, "name": "Dan", "email": "dan@example.org"}
    crossed = api.post(
        f"/api/v1/games/{g.id}/substitute", json=body, headers=bearer(other.seats[1].token)
    )
    assert crossed.status_code == 403
    made = proposer.post(f"/games/{g.id}/substitute", data=form)
    assert made.status_code == 303
    waiting = service.substitute_waiting(g.id)
    assert waiting is not None and waiting["waiting"] == [2]
    # Every seat's page shows it; only the seat asked has the buttons.
    replaced = seat_client(app, g, 0)
    assert "proposes <strong>Dan</strong>" in replaced.get(f"/games/{g.id}").text
    assert 'id="substitute-agree"' not in replaced.get(f"/games/{g.id}").text
    blocked = replaced.post(
        f"/games/{g.id}/substitute/{waiting['proposal']}/decision", data={"agree": "no"}
    )
    assert blocked.status_code == 403 and "does not decide" in blocked.text
    assert "dan@example.org" not in app.test_client().get(f"/games/{g.id}").text
    # The API: anyone who may see the game reads the proposal, without the address.
    read = api.get(f"/api/v1/games/{g.id}/substitute")
    assert read.status_code == 200 and read.json["substitute"]["new_name"] == "Dan"
    assert "dan@example.org" not in read.text
    # A visitor (page or API, no token) and another game's seat cannot decide.
    decision = f"/games/{g.id}/substitute/{waiting['proposal']}/decision"
    assert app.test_client().post(decision, data={"agree": "yes"}).status_code == 403
    assert api.post("/api/v1" + decision, json={"agree": True}).status_code in (401, 403)
    assert (
        api.post(
            "/api/v1" + decision, json={"agree": True}, headers=bearer(other.seats[2].token)
        ).status_code
        == 403
    )
    assert service.substitute_waiting(g.id) == waiting
    decided = api.post(
        f"/api/v1/games/{g.id}/substitute/{waiting['proposal']}/decision",
        json={"agree": True},
        headers=bearer(g.seats[2].token),
    )
    assert decided.status_code == 201 and decided.json["status"] == "agreed"
    assert accept_path(app, g.id)


def test_the_admin_api_hands_a_seat_over(app: Flask) -> None:
    g, other = timed_game(app), timed_game(app)
    api = app.test_client()
    body = {"seat": 2, "name": "Eve", "email": "eve@example.org"}
    url = f"/api/v1/games/{g.id}/admin/substitute"
    for token in (other.admin_token, g.seats[0].token):
        assert api.post(url, json=body, headers=bearer(token)).status_code == 403
    assert api.post(url, json={"seat": "x"}, headers=bearer(g.admin_token)).status_code == 400
    made = api.post(url, json=body, headers=bearer(g.admin_token))
    assert made.status_code == 201 and made.json["status"] == "agreed"
