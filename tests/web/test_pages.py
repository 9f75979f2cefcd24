"""The HTML pages through Flask's test client: credentials become a session cookie, moves
from the page's form, errors above the board with the form kept, /new's errors by the
field, and no page served to one seat holding another seat's hidden values (Lancaster).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem.app.service import GameService
from tests.web.helpers import sqlite_app


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    with sqlite_app(tmp_path_factory.mktemp("pages")) as app:
        yield app


def _service(app: Flask) -> GameService:
    svc: GameService = app.extensions["pbem"]
    return svc


def _game(app: Flask, game: str, players: int, **config: Any) -> Any:
    return _service(app).create_game(
        game, config, [{"name": n} for n in ("Ann", "Bob", "Cat", "Dan", "Eve")[:players]]
    )


def _seat_client(app: Flask, game_id: str, token: str) -> FlaskClient:
    client = app.test_client()
    opened = client.get(f"/games/{game_id}?token={token}")
    assert opened.status_code == 303 and opened.headers["Location"] == f"/games/{game_id}"
    return client


def test_a_token_becomes_a_cookie_and_the_page_moves_to_the_clean_url(app: Flask) -> None:
    created = _game(app, "lancelot", 2)
    client = app.test_client()
    opened = client.get(f"/games/{created.id}?token={created.seats[1].token}")
    assert opened.status_code == 303
    assert opened.headers["Location"] == f"/games/{created.id}"
    cookie = opened.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    page = client.get(f"/games/{created.id}").get_data(as_text=True)
    assert "You are <strong>Bob" in page
    assert created.seats[1].token not in page  # the credential never comes back in the page
    # A wrong token opens nothing and sets nothing.
    stranger = app.test_client()
    refused = stranger.get(f"/games/{created.id}?token=nope")
    assert refused.status_code == 403 and "This page cannot be shown" in refused.text
    assert "You are watching" in stranger.get(f"/games/{created.id}").text


def test_a_clicked_square_plays_and_an_error_keeps_the_typed_text(app: Flask) -> None:
    created = _game(app, "lancelot", 2)
    ann = _seat_client(app, created.id, created.seats[0].token)
    page = ann.get(f"/games/{created.id}").text
    assert page.count('class="sq"') == 64 and "<title>Your turn" in page
    played = ann.post(f"/games/{created.id}", data={"choice": "G7", "expected_version": "2"})
    assert played.status_code == 303
    assert _service(app).raw_events(created.id)[-1].data["canonical"] == "G7"
    bob = _seat_client(app, created.id, created.seats[1].token)
    wrong = bob.post(
        f"/games/{created.id}", data={"action": "G7 please maybe", "expected_version": "3"}
    )
    text = wrong.get_data(as_text=True)
    assert wrong.status_code in (400, 409, 422)
    error = text.index('id="error"')
    assert error < text.index('class="lboard"')  # above the board
    assert 'value="G7 please maybe"' in text  # nothing lost from the form
    assert _service(app).load(created.id).version == 3


def test_taking_back_is_for_seats_and_a_bad_answer_changes_nothing(app: Flask) -> None:
    created = _game(app, "lancelot", 2)
    svc = _service(app)
    bob = _seat_client(app, created.id, created.seats[1].token)
    # Nothing of Bob's to take back yet: the page offers nothing.
    assert "Take back my last move" not in bob.get(f"/games/{created.id}").text
    svc.submit(created.id, 0, "G7", expected_version=2, channel="api")
    svc.submit(created.id, 1, "H7", expected_version=3, channel="api")
    spectator = app.test_client()
    refused = spectator.post(f"/games/{created.id}/undo", data={"expected_version": "4"})
    assert refused.status_code == 403 and "Only a player of this game" in refused.text
    assert svc.load(created.id).version == 4
    ann = _seat_client(app, created.id, created.seats[0].token)
    # A page shown before Bob's move: taking back what Ann did not see is refused.
    stale = ann.post(f"/games/{created.id}/undo", data={"expected_version": "3"})
    assert stale.status_code == 409 and 'id="undo-error"' in stale.text
    assert svc.load(created.id).version == 4
    asked = ann.post(f"/games/{created.id}/undo", data={"expected_version": "4"})
    # back to the top of the page, where the notice says what was done
    assert asked.status_code == 303 and asked.headers["Location"] == f"/games/{created.id}#content"
    request = svc.open_undo_request(created.id)
    assert request == 5
    unclear = bob.post(f"/games/{created.id}/undo/{request}/decision", data={"accept": "maybe"})
    assert unclear.status_code == 400 and "Choose to agree or to refuse." in unclear.text
    own = ann.post(f"/games/{created.id}/undo/{request}/decision", data={"accept": "yes"})
    assert own.status_code == 422 and 'id="undo-error"' in own.text  # not hers to answer
    assert svc.load(created.id).version == 5 and svc.open_undo_request(created.id) == request
    refusal = bob.post(f"/games/{created.id}/undo/{request}/decision", data={"accept": "no"})
    assert refusal.status_code == 303
    assert svc.raw_events(created.id)[-1].type == "UndoDecided"
    assert svc.open_undo_request(created.id) is None
    assert svc.load(created.id).version == 6


def test_a_head_request_for_the_new_game_page_is_answered_like_a_get(app: Flask) -> None:
    # Link checkers and some browsers ask with HEAD: it was read as a posted empty form (400).
    assert app.test_client().head("/new").status_code == 200


def test_new_game_errors_are_shown_by_their_fields_and_nothing_is_created(app: Flask) -> None:
    client = app.test_client()
    before = len(_service(app).list_games())
    answer = client.post(
        "/new",
        data={"game": "lancaster", "name0": "Ann", "email0": "ann@@x", "email1": "b@example.org"},
    )
    text = answer.get_data(as_text=True)
    assert answer.status_code == 400
    assert 'id="email0-error"' in text and 'id="name1-error"' in text
    assert 'value="ann@@x"' in text  # the form comes back as typed
    assert len(_service(app).list_games()) == before
    made = client.post(
        "/new", data={"game": "lancelot", "name0": "Ann", "name1": "Bob", "excalibur": "1"}
    )
    assert made.status_code == 200 and made.headers["Cache-Control"] == "no-store"
    links = re.findall(r'href="(http://[^"]+/games/(\w+)\?token=[^"]+)"', made.text)
    assert len(links) == 2
    game_id = links[0][1]
    assert _service(app).load(game_id).view(None)["variants"]["excalibur"] is True


def test_a_name_holding_an_encoded_word_is_refused_by_its_field(app: Flask) -> None:
    before = len(_service(app).list_games())
    answer = app.test_client().post(
        "/new",
        data={
            "game": "lancelot",
            "name0": "=?utf-8?q?x=0D=0ABcc:_evil@example.com?=",
            "email0": "ann@example.org",
            "name1": "Bob",
        },
    )
    assert answer.status_code == 400
    error = re.search(r'id="name0-error"[^>]*>(.*?)<', answer.get_data(as_text=True), re.S)
    assert error is not None and "encoded word" in error.group(1)
    assert len(_service(app).list_games()) == before


def test_the_index_links_games_with_who_is_to_act(app: Flask) -> None:
    created = _game(app, "lancelot", 2)
    text = app.test_client().get("/").get_data(as_text=True)
    assert f'href="/games/{created.id}"' in text
    assert "to act: Ann" in text


# -- hidden information -------------------------------------------------------------------

_CARD = re.compile(r'id="player-(\d+)".*?(?=id="player-|</section>)', re.S)


def _cards(html: str) -> dict[int, str]:
    return {int(m.group(1)): m.group(0) for m in _CARD.finditer(html)}


def _resource(card: str, name: str) -> str:
    found = re.search(rf'data-resource="{name}">(.*?)</dd>', card, re.S)
    assert found, name
    return re.sub(r"<[^>]+>", "", found.group(1)).strip()


def _secrets(loaded: Any, seat: int) -> dict[int, dict[str, Any]]:
    """What each other seat holds that ``seat`` may not see, from the rules' own views: the
    values in the other seat's view that ``seat``'s view leaves out."""
    mine = loaded.view(seat)["players"]
    out = {}
    for other in range(len(mine)):
        if other == seat:
            continue
        theirs = loaded.view(other)["players"][other]
        out[other] = {
            key: theirs[key] if mine[other][key] is None else None
            for key in ("gold", "squires", "vote")
        }
    return out


def _check_page(html: str, secrets: dict[int, dict[str, Any]], log: dict[int, int]) -> int:
    """No other seat's gold, squires or unrevealed vote in a page; ``log``: each seat's
    latest secret action's version."""
    cards = _cards(html)
    checked = 0
    for other, hidden in secrets.items():
        card = cards[other]
        for name in ("gold", "squires"):
            if hidden[name] is not None:
                assert _resource(card, name) == "hidden", (other, name)
                checked += 1
        if hidden["vote"] is not None:
            vote = re.search(r"<dt>Vote</dt><dd>(.*?)</dd>", card, re.S)
            assert vote and vote.group(1).strip() == "voted (secret)", card
            # ...nor in its log line: the vote shows as "acted" until the reveal.
            line = re.search(rf'<li id="v{log[other]}".*?</li>', html, re.S)
            assert line and "acted" in line.group(0) and "vote" not in line.group(0)
            checked += 1
    return checked


def _latest_secret_actions(svc: GameService, gid: str, upto: int | None = None) -> dict[int, int]:
    latest: dict[int, int] = {}
    for e in svc.raw_events(gid):
        if upto is not None and e.version > upto:
            break
        if e.type == "ActionApplied" and e.data["secret"]:
            latest[e.data["seat"]] = e.version
    return latest


def test_no_page_served_to_a_seat_holds_another_seats_hidden_values(app: Flask) -> None:
    """Every version of a whole game, as each seat sees it, on the game page or the history
    page: each (version, seat) page is rendered and checked once (both show the board and
    the log as they stood at that version; rendering each twice doubled the test's time),
    the kind alternating with version and seat, so that each seat sees both kinds and each
    version a move was made at is seen on both; then the audit page of the finished game."""
    svc = _service(app)
    created = _game(app, "lancaster", 3)
    gid = created.id
    clients = [_seat_client(app, gid, s.token) for s in created.seats]
    rnd = random.Random(20261123)
    checked = 0
    kinds: set[tuple[int, str]] = set()
    #: version -> each seat's secrets and the latest secret actions at that version
    states: dict[int, tuple[list[dict[int, dict[str, Any]]], dict[int, int]]] = {}
    played: set[int] = set()  # the versions whose game pages were checked
    while True:
        loaded = svc.load(gid)
        log = _latest_secret_actions(svc, gid)
        states[loaded.version] = ([_secrets(loaded, s) for s in range(len(clients))], log)
        if loaded.finished:
            break
        played.add(loaded.version)
        for seat, client in enumerate(clients):
            if (loaded.version + seat) % 2:
                continue  # this one is looked at in the history below
            page = client.get(f"/games/{gid}")
            assert page.status_code == 200
            checked += _check_page(page.text, states[loaded.version][0][seat], log)
            kinds.add((seat, "game"))
        seat = rnd.choice(sorted(loaded.to_act))
        move = rnd.choice(loaded.legal(seat))
        answer = clients[seat].post(
            f"/games/{gid}", data={"choice": move, "expected_version": str(loaded.version)}
        )
        assert answer.status_code == 303, answer.text[:2000]
    head = loaded.version
    assert min(states) == 2 and len(states) > 60
    # The history from the finished game: each version's board and log as the seat saw them
    # then (a vote revealed since still shows as secret there), for the pages not looked at
    # above, every version no move was made at (those a move's own consequences made) and
    # the head's for every seat.
    for version in range(2, head + 1):
        if version not in states:
            at = svc.load(gid, at=version)
            states[version] = (
                [_secrets(at, s) for s in range(len(clients))],
                _latest_secret_actions(svc, gid, upto=version),
            )
        secrets, log = states[version]
        for seat, client in enumerate(clients):
            if (version + seat) % 2 == 0 and version in played:
                continue
            page = client.get(f"/games/{gid}/history?at={version}")
            assert page.status_code == 200
            checked += _check_page(page.text, secrets[seat], log)
            kinds.add((seat, "history"))
    assert kinds == {(s, k) for s in range(len(clients)) for k in ("game", "history")}
    assert checked > 1000, checked
    for seat, client in enumerate(clients):
        audit = client.get(f"/games/{gid}/audit").text
        assert "Verified" in audit
        # The audit page shows others' secret votes only once they are revealed.
        for e in svc.events(gid, 0, seat):
            if e["data"].get("hidden"):
                assert "secret until revealed" in audit
