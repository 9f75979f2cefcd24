"""Review of the table's features as an attacker (issue 27): who may use each new route, to
which games, through which door. Each test was written to fail before its fix or to pin a
check that held."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from sqlmodel import col, select

from pbem.app.bootstrap import build_service
from pbem.app.service import GameService
from pbem.core.db import Database
from pbem.core.migrate import upgrade
from pbem.mail.models import OutboxMail
from tests.helpers import database_of
from tests.mail.helpers import text_part
from tests.service.helpers import REGISTRY
from tests.settings import make_settings
from tests.web.helpers import bearer, welcome
from web import create_app


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    # Every request comes from the test client's one address: the limits on joins and
    # invitations from one client are raised for the module (their own tests try them).
    folder = tmp_path_factory.mktemp("review")
    url = f"sqlite:///{folder / 'pbem.db'}"
    db = Database(url)
    upgrade(db)
    settings = make_settings(
        url,
        folder,
        invitations={"joins_per_requester_per_hour": 1000, "per_requester_per_day": 1000},
    )
    try:
        yield create_app(service=build_service(settings, db=db, registry=REGISTRY, listeners=[]))
    finally:
        db.dispose()


def _service(app: Flask) -> GameService:
    svc: GameService = app.extensions["pbem"]
    return svc


def game(app: Flask, players: int = 3, *, private: bool = False) -> Any:
    names = ["Ann", "Bob", "Cy", "Di"][:players]
    seats = [{"name": nm, "email": f"rv-{i}@example.org"} for i, nm in enumerate(names)]
    welcome(app.test_client(), seats)
    return _service(app).create_game(
        "hoard", {"players": players}, seats, time_control="48h", private=private
    )


def _accept_path(app: Flask, game_id: str) -> str:
    with database_of(_service(app)).read() as session:
        mail = session.exec(
            select(OutboxMail)
            .where(OutboxMail.game_id == game_id, OutboxMail.kind == "substitute")
            .order_by(col(OutboxMail.created_at).desc())
        ).first()
        assert mail is not None
        text = text_part(mail.message)
    found = re.search(rf"(/handover/{game_id}\?link=[a-z0-9]+)", text)
    assert found
    return found.group(1)


def test_a_private_games_newcomer_opens_and_accepts_the_invitation(app: Flask) -> None:
    made = game(app, private=True)
    _service(app).admin_substitute(
        made.id, made.admin_token, 1, "Newt", "newt-private@example.org", channel="api"
    )
    path = _accept_path(app, made.id)
    newcomer = app.test_client()
    page = newcomer.get(path)
    assert page.status_code == 200, page.get_data(as_text=True)
    accepted = newcomer.post(path.partition("?")[0], data={"link": path.partition("link=")[2]})
    assert accepted.status_code == 303
    # Without the link, the private game is still not there for a stranger.
    assert app.test_client().get(f"/handover/{made.id}?link=nonsense").status_code == 404


@pytest.mark.parametrize(
    "path",
    ["/talk", "/substitute", "/rematch", ""],
)
def test_a_private_games_new_endpoints_answer_no_such_game(app: Flask, path: str) -> None:
    made, other = game(app, private=True), game(app)
    client = app.test_client()
    for headers in ({}, bearer(other.seats[0].token), bearer(other.admin_token)):
        got = client.get(f"/api/v1/games/{made.id}{path}", headers=headers)
        assert got.status_code == 404, (path, headers, got.json)
    asked = client.post(
        f"/api/v1/games/{made.id}/webhooks",
        json={"url": "https://example.org/hook"},
        headers=bearer(other.seats[0].token),
    )
    assert asked.status_code == 404, asked.json
    for headers in ({}, bearer(other.admin_token)):
        listed = client.get(f"/api/v1/games/{made.id}/admin/webhooks", headers=headers)
        assert listed.status_code == 404, listed.json
        talk = client.get(f"/api/v1/games/{made.id}/admin/talk", headers=headers)
        assert talk.status_code == 404, talk.json


def test_one_games_tokens_act_in_no_other_game(app: Flask) -> None:
    a, b = game(app), game(app)
    client = app.test_client()
    for token in (a.seats[0].token, a.admin_token, b.admin_token):
        wrote = client.post(
            f"/api/v1/games/{b.id}/talk", json={"text": "hello"}, headers=bearer(token)
        )
        assert wrote.status_code in (401, 403), wrote.json
        proposed = client.post(
            f"/api/v1/games/{b.id}/substitute",
            json={"seat": 1, "name": "Evil", "email": "evil@example.org"},
            headers=bearer(token),
        )
        assert proposed.status_code in (401, 403), proposed.json
        rematch = client.post(f"/api/v1/games/{b.id}/rematch", json={}, headers=bearer(token))
        assert rematch.status_code in (401, 403), rematch.json
        hook = client.post(
            f"/api/v1/games/{b.id}/webhooks",
            json={"url": "https://example.org/hook"},
            headers=bearer(token),
        )
        assert hook.status_code in (401, 403), hook.json
    for token in (a.admin_token, b.seats[0].token):
        handed = client.post(
            f"/api/v1/games/{b.id}/admin/substitute",
            json={"seat": 1, "name": "Evil", "email": "evil@example.org"},
            headers=bearer(token),
        )
        assert handed.status_code == 403, handed.json
        hidden = client.post(
            f"/api/v1/games/{b.id}/admin/talk/1/hide",
            json={"reason": "x"},
            headers=bearer(token),
        )
        assert hidden.status_code in (403, 404), hidden.json
        started = client.post(f"/api/v1/games/{b.id}/admin/start", headers=bearer(token))
        assert started.status_code == 403, started.json


def test_a_seat_proposes_no_substitute_for_itself_nor_in_a_finished_game(app: Flask) -> None:
    made = game(app)
    client = app.test_client()
    own = client.post(
        f"/api/v1/games/{made.id}/substitute",
        json={"seat": 0, "name": "Me Two", "email": "metwo@example.org"},
        headers=bearer(made.seats[0].token),
    )
    assert own.status_code in (403, 409, 422), own.json
    _service(app).admin_end(made.id, made.admin_token)
    late = client.post(
        f"/api/v1/games/{made.id}/admin/substitute",
        json={"seat": 1, "name": "Late", "email": "late@example.org"},
        headers=bearer(made.admin_token),
    )
    assert late.status_code == 409, late.json


def test_a_newcomer_may_not_take_another_players_name_or_a_seats_colour(app: Flask) -> None:
    made = game(app, private=False)
    svc = _service(app)
    client = app.test_client()
    for name in ("Bob", " cy ", "BOB"):
        handed = client.post(
            f"/api/v1/games/{made.id}/admin/substitute",
            json={"seat": 0, "name": name, "email": "twin@example.org"},
            headers=bearer(made.admin_token),
        )
        assert handed.status_code == 400, (name, handed.json)
        assert "already plays" in handed.json["message"]  # type: ignore[index]
    before = svc.load(made.id).version
    assert svc.load(made.id).version == before
    # The seat's own old name is no one else's: the newcomer may share it.
    ok = client.post(
        f"/api/v1/games/{made.id}/admin/substitute",
        json={"seat": 0, "name": "Ann", "email": "ann-two@example.org"},
        headers=bearer(made.admin_token),
    )
    assert ok.status_code == 201, ok.json


def test_a_newcomer_or_joiner_may_not_be_named_as_a_seats_colour(app: Flask) -> None:
    seats = [{"name": nm, "email": f"rv-{i}@example.org"} for i, nm in enumerate(["Ann", "Bob"])]
    welcome(app.test_client(), seats)
    svc = _service(app)
    made = svc.create_game("lancaster", {"players": 3}, [*seats, {"name": "Cy"}])
    names = svc.load(made.id).names
    colour = next(label for label in names.labels if label)
    client = app.test_client()
    handed = client.post(
        f"/api/v1/games/{made.id}/admin/substitute",
        json={"seat": 2, "name": colour.lower(), "email": "colour@example.org"},
        headers=bearer(made.admin_token),
    )
    assert handed.status_code == 400, handed.json
    assert "colour" in handed.json["message"]  # type: ignore[index]


def test_a_joiner_may_not_be_named_as_a_seats_colour(app: Flask) -> None:
    seats = [{"name": "Ann", "email": "rv-0@example.org"}]
    welcome(app.test_client(), [*seats, {"name": "Bob", "email": "rv-1@example.org"}])
    svc = _service(app)
    made = svc.create_game("lancaster", {"players": 3}, [*seats, {"open": True}, {"open": True}])
    labels = [label for label in svc.load(made.id).names.labels if label]
    assert labels
    client = app.test_client()
    before = svc.load(made.id).version
    for colour in (labels[0], labels[-1].upper()):
        joined = client.post(
            f"/api/v1/games/{made.id}/join", json={"name": colour, "email": "rv-1@example.org"}
        )
        assert joined.status_code == 409, joined.json
        assert "colour" in joined.json["message"]  # type: ignore[index]
    assert svc.load(made.id).version == before


def test_the_newcomer_does_not_read_the_old_players_address(app: Flask) -> None:
    made = game(app)
    svc = _service(app)
    old = svc.seat_info(made.id, 1)
    assert old is not None and old.email
    svc.admin_substitute(
        made.id, made.admin_token, 1, "Newt", "newt-open@example.org", channel="api"
    )
    path = _accept_path(app, made.id)
    newcomer = app.test_client()
    accepted = newcomer.post(path.partition("?")[0], data={"link": path.partition("link=")[2]})
    assert accepted.status_code == 303
    # The log as the seat sees it (the API's /events, the pages, the mails read it).
    assert old.email not in str(svc.events(made.id, 0, 1))
    # Decision kept: the seat's export.json carries every address, the chain covering them
    # (web.pages.audit.export); only a spectator is refused it.


@pytest.mark.parametrize(
    "name",
    ["=?utf-8?q?Bob=0D=0ABcc:_x?=", "Dan\x07", "Dan\x1b[2J", "Dan\x7f"],
)
def test_a_newcomers_name_is_one_a_mail_header_shows_as_typed(app: Flask, name: str) -> None:
    made = game(app)
    svc = _service(app)
    before = svc.load(made.id).version
    handed = app.test_client().post(
        f"/api/v1/games/{made.id}/admin/substitute",
        json={"seat": 1, "name": name, "email": "header@example.org"},
        headers=bearer(made.admin_token),
    )
    assert handed.status_code == 400, handed.json
    assert svc.load(made.id).version == before


@pytest.mark.parametrize("text", ["red alert\x1b[2J", "ding\x07", "del\x7f", "   ", "x" * 1001])
def test_a_message_with_a_control_character_is_refused_and_changes_nothing(
    app: Flask, text: str
) -> None:
    made = game(app)
    svc = _service(app)
    before = svc.load(made.id).version
    wrote = app.test_client().post(
        f"/api/v1/games/{made.id}/talk", json={"text": text}, headers=bearer(made.seats[0].token)
    )
    assert wrote.status_code == 400, wrote.json
    assert svc.load(made.id).version == before


def test_substitute_invitations_are_limited_per_game_and_day(app: Flask) -> None:
    """Each proposal the administrator makes mails an invitation to an address they type:
    without a limit, a game's admin token mailed any number of strangers."""
    made = game(app)
    svc = _service(app)
    client = app.test_client()
    answers = [
        client.post(
            f"/api/v1/games/{made.id}/admin/substitute",
            json={"seat": 1, "name": f"Stranger{i}", "email": f"stranger{i}@example.org"},
            headers=bearer(made.admin_token),
        )
        for i in range(5)
    ]
    assert [a.status_code for a in answers] == [201, 201, 201, 429, 429], answers[-1].json
    assert "24 hours" in answers[-1].json["message"]  # type: ignore[index]
    with database_of(svc).read() as session:
        invited = session.exec(
            select(OutboxMail).where(OutboxMail.game_id == made.id, OutboxMail.kind == "substitute")
        ).all()
    assert len(invited) == 3


def test_a_joiner_chooses_no_seat_and_takes_one_seat_once(app: Flask) -> None:
    welcome(
        app.test_client(),
        [
            {"name": "Ann", "email": "rv-0@example.org"},
            {"name": "Bob", "email": "rv-1@example.org"},
        ],
    )
    svc = _service(app)
    made = svc.create_game(
        "hoard",
        {"players": 3},
        [{"name": "Ann", "email": "rv-0@example.org"}, {"open": True}, {"open": True}],
    )
    client = app.test_client()
    chose = client.post(
        f"/api/v1/games/{made.id}/join",
        json={"name": "Bob", "email": "joiner@example.org", "seat": 0},
    )
    assert chose.status_code in (400, 422), chose.json
    first = client.post(
        f"/api/v1/games/{made.id}/join", json={"name": "Bob", "email": "joiner@example.org"}
    )
    assert first.status_code == 201, first.json
    assert first.json["seat"] == 1  # type: ignore[index]
    again = client.post(
        f"/api/v1/games/{made.id}/join", json={"name": "Robert", "email": "JOINER@example.org"}
    )
    assert again.status_code == 409, again.json
    # A game that has not finished has no rematch to propose.
    early = client.post(
        f"/api/v1/games/{made.id}/rematch",
        json={},
        headers=bearer(first.json["token"]),  # type: ignore[index]
    )
    assert early.status_code in (409, 422), early.json


def test_hiding_a_message_takes_a_reason_in_plain_text_from_the_admin_alone(app: Flask) -> None:
    made = game(app)
    svc = _service(app)
    client = app.test_client()
    wrote = client.post(
        f"/api/v1/games/{made.id}/talk",
        json={"text": "hi", "to": [1]},
        headers=bearer(made.seats[0].token),
    )
    version = wrote.json["version"]  # type: ignore[index]
    # A seat's page session is no admin: the admin page's form refuses it.
    seat_browser = app.test_client()
    assert seat_browser.get(f"/games/{made.id}?token={made.seats[1].token}").status_code == 303
    form = seat_browser.post(f"/games/{made.id}/admin/talk/{version}/hide", data={"reason": "x"})
    assert form.status_code == 403
    bad = client.post(
        f"/api/v1/games/{made.id}/admin/talk/{version}/hide",
        json={"reason": "spam\x1b[2J"},
        headers=bearer(made.admin_token),
    )
    assert bad.status_code == 400, bad.json
    assert not any(m["hidden"] for m in svc.talk_messages(made.id, None, admin=True))


def test_a_seat_cannot_flood_the_table_with_rematch_proposals(app: Flask) -> None:
    """Each proposal and each decline mails every seat: proposing and declining in a loop
    flooded the other players' mailboxes without end."""
    made = game(app)
    svc = _service(app)
    svc.admin_end(made.id, made.admin_token)
    client = app.test_client()
    token = bearer(made.seats[0].token)
    codes = []
    for _ in range(5):
        proposed = client.post(f"/api/v1/games/{made.id}/rematch", json={}, headers=token)
        codes.append(proposed.status_code)
        if proposed.status_code != 201:
            break
        number = proposed.json["proposal"]  # type: ignore[index]
        declined = client.post(
            f"/api/v1/games/{made.id}/rematch/{number}/answer", json={"agree": False}, headers=token
        )
        assert declined.status_code == 201, declined.json
    assert codes == [201, 201, 201, 429], codes


def test_in_a_two_player_game_the_opponent_alone_hands_over_no_seat(app: Flask) -> None:
    """By consent, the other seats choose the newcomer; with nobody but the proposer left to
    consent, a player would pick their own opponent (a second address of theirs, say)."""
    from pbem.clock import events as ce

    made = game(app, players=2)
    svc = _service(app)
    for i in range(3):
        with svc.parts.transactions.on(made.id) as work:
            due = f"2026-03-0{i + 2}T09:00:00.000000Z"
            work.append(
                [ce.DeadlineMissed(seat=1, due_at=due, move=False, reason="waiting")],
                work.state,
                lapse=False,
            )
    before = svc.load(made.id).version
    proposed = app.test_client().post(
        f"/api/v1/games/{made.id}/substitute",
        json={"seat": 1, "name": "Puppet", "email": "puppet@example.org"},
        headers=bearer(made.seats[0].token),
    )
    assert proposed.status_code == 403, proposed.json
    assert "administrator" in proposed.json["message"]  # type: ignore[index]
    assert svc.load(made.id).version == before


@pytest.mark.parametrize(
    "name", ["Eve\r\nBcc: all@example.org", "=?utf-8?q?Ann?=", "x" * 201, "", "Eve\x1b[2J"]
)
def test_a_joiners_name_that_a_header_would_not_show_as_typed_is_refused(
    app: Flask, name: str
) -> None:
    svc = _service(app)
    welcome(app.test_client(), [{"name": "Ann", "email": "rv-0@example.org"}])
    made = svc.create_game(
        "hoard", {"players": 2}, [{"name": "Ann", "email": "rv-0@example.org"}, {"open": True}]
    )
    before = svc.load(made.id).version
    joined = app.test_client().post(
        f"/api/v1/games/{made.id}/join", json={"name": name, "email": "eve@example.org"}
    )
    assert joined.status_code in (400, 422), joined.json
    assert svc.load(made.id).version == before
