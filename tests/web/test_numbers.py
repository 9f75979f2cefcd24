"""Every web door that reads a number, on SQLite and PostgreSQL: the API's bodies, query
arguments and paths, and the pages' query arguments and forms, fed digits other than 0 to 9,
signs, spaces and huge values, answer a 4xx with a message and change nothing; never a 5xx
(``²`` passed ``str.isdigit()`` and crashed ``int()``) nor a number read from "٣"."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from werkzeug.test import TestResponse

from pbem.app.service import Created, GameService
from tests.typed_numbers import NOT_COUNTS, NOT_DURATIONS
from tests.web.helpers import bearer, welcome

HASH = "a" * 64
_n = iter(range(10_000))
Door = Callable[[str], TestResponse]


def _game(client: FlaskClient, game: str = "hoard") -> Created:
    n = next(_n)
    seats = [{"name": f"P{i}", "email": f"numbers{n}-{i}@example.org"} for i in range(2)]
    welcome(client, seats)
    svc: GameService = client.application.extensions["pbem"]
    return svc.create_game(game, {}, seats, time_control="48h")


def _seat_client(app: Flask, game: Created, seat: int) -> FlaskClient:
    """A browser holding the seat (its link opened once), for the pages' forms."""
    browser = app.test_client()
    assert browser.get(f"/games/{game.id}?token={game.seats[seat].token}").status_code == 303
    return browser


def _doors(app: Flask, client: FlaskClient, g: Created) -> dict[str, Door]:
    """Each door with one typed number in it, by name."""
    admin, seat0, seat1 = bearer(g.admin_token), bearer(g.seats[0].token), bearer(g.seats[1].token)
    api = f"/api/v1/games/{g.id}"
    page = _seat_client(app, g, 0)
    two = [{"name": "A"}, {"name": "B"}]

    def create(time_control: Any) -> TestResponse:
        return client.post(
            "/api/v1/games", json={"game": "hoard", "players": two, "time_control": time_control}
        )

    return {
        # the API (no login for a creation)
        "create time_control": lambda n: create(n),
        "create per_decision": lambda n: create({"kind": "fixed", "per_decision": n}),
        "create increment": lambda n: create({"kind": "clock", "initial": "1d", "increment": n}),
        "create reminders": lambda n: create({"preset": "standard", "reminders": ["4h", n]}),
        "create grace": lambda n: create({"preset": "standard", "grace": n}),
        "create vacation": lambda n: create({"preset": "standard", "vacation": n}),
        "create remind_at_fraction": lambda n: create(
            {"preset": "standard", "remind_at_fraction": n}
        ),
        "extend by": lambda n: client.post(
            f"{api}/admin/extend", json={"seat": 0, "by": n}, headers=admin
        ),
        "time-control": lambda n: client.post(
            f"{api}/admin/time-control", json={"time_control": n}, headers=admin
        ),
        "clock-requests by": lambda n: client.post(
            f"{api}/clock-requests", json={"what": "extend", "by": n}, headers=seat0
        ),
        "disputes versions": lambda n: client.post(
            f"{api}/disputes", json={"versions": n, "text": "wrong"}, headers=seat1
        ),
        "receipt version": lambda n: client.get(f"{api}/receipt?version={quote(n)}&hash={HASH}"),
        "events after": lambda n: client.get(f"{api}/events?after={quote(n)}", headers=seat0),
        "state at": lambda n: client.get(f"{api}/state?at={quote(n)}", headers=seat0),
        "audit version": lambda n: client.get(f"{api}/audit?version={quote(n)}", headers=seat0),
        "undo decision path": lambda n: client.post(
            f"{api}/undo/{quote(n)}/decision", json={"accept": True}, headers=seat1
        ),
        "dispute answer path": lambda n: client.post(
            f"{api}/disputes/{quote(n)}/answer", json={"agree": True}, headers=seat1
        ),
        "resolve path": lambda n: client.post(
            f"{api}/admin/disputes/{quote(n)}/resolve",
            json={"uphold": False, "reason": "no"},
            headers=admin,
        ),
        # the pages
        "receipt page version": lambda n: client.get(
            f"/games/{g.id}/receipt?version={quote(n)}&hash={HASH}"
        ),
        "history page at": lambda n: client.get(f"/games/{g.id}/history?at={quote(n)}"),
        "new game form": lambda n: client.post(
            "/new", data={"game": "lancelot", "name0": "A", "name1": "B", "time_control": n}
        ),
        "move form version": lambda n: page.post(
            f"/games/{g.id}", data={"action": "E5", "expected_version": n}
        ),
        "undo form version": lambda n: page.post(
            f"/games/{g.id}/undo", data={"expected_version": n}
        ),
        "dispute form versions": lambda n: page.post(
            f"/games/{g.id}/disputes", data={"versions": n, "text": "wrong"}
        ),
    }


def _json_int_doors(client: FlaskClient, g: Created) -> dict[str, Callable[[int], TestResponse]]:
    """The doors that take a JSON integer."""
    admin, seat0 = bearer(g.admin_token), bearer(g.seats[0].token)
    api = f"/api/v1/games/{g.id}"
    return {
        "extend seat": lambda n: client.post(
            f"{api}/admin/extend", json={"seat": n, "by": "1h"}, headers=admin
        ),
        "action expected_version": lambda n: client.post(
            f"{api}/actions", json={"action": "x", "expected_version": n}, headers=seat0
        ),
        "undo to_version": lambda n: client.post(
            f"{api}/undo", json={"to_version": n}, headers=seat0
        ),
        "undo expected_version": lambda n: client.post(
            f"{api}/undo", json={"expected_version": n}, headers=seat0
        ),
        "resign seat": lambda n: client.post(
            f"{api}/admin/resign", json={"seat": n}, headers=admin
        ),
    }


def _refused(name: str, value: Any, response: TestResponse) -> None:
    shown = (name, value if len(str(value)) < 50 else f"{str(value)[:50]}…", response.text[:300])
    assert 400 <= response.status_code < 500, (response.status_code, shown)


def test_every_door_refuses_a_number_it_cannot_read(app: Flask, client: FlaskClient) -> None:
    svc: GameService = app.extensions["pbem"]
    game = _game(client)
    doors = _doors(app, client, game)
    names = sorted(doors)
    before = svc.load(game.id).version

    @settings(
        max_examples=250,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(name=st.sampled_from(names), number=NOT_DURATIONS)
    @example(name="create time_control", number="²")  # each 500 the campaign found
    @example(name="new game form", number="²")
    @example(name="extend by", number="²")
    @example(name="time-control", number="²")
    @example(name="clock-requests by", number="³")
    @example(name="receipt page version", number="²")
    @example(name="events after", number="٣")  # read as 3 before
    def door_refuses(name: str, number: str) -> None:
        _refused(name, number, doors[name](number))

    door_refuses()
    for name in names:  # one of each, whatever the examples drew
        for number in ("²", "٣", "-1", "9" * 400, "0" * 5000 + "1"):
            _refused(name, number, doors[name](number))
    assert svc.load(game.id).version == before


def test_json_integers_out_of_bounds_are_refused(app: Flask, client: FlaskClient) -> None:
    svc: GameService = app.extensions["pbem"]
    game = _game(client)
    doors = _json_int_doors(client, game)
    before = svc.load(game.id).version

    @settings(max_examples=60, deadline=None, derandomize=True)
    @given(name=st.sampled_from(sorted(doors)), number=NOT_COUNTS)
    @example(name="resign seat", number=2**63)  # past what either database holds
    def door_refuses(name: str, number: int) -> None:
        _refused(name, number, doors[name](number))

    door_refuses()
    assert svc.load(game.id).version == before


def test_a_move_with_other_digits_is_unreadable_not_a_crash(
    app: Flask, client: FlaskClient
) -> None:
    """Lancaster's reader took "²" for a number (``str.isdigit()``) and ``int()`` refused it;
    Lancelot's did the same with digits NFKC leaves alone ("᧚")."""
    svc: GameService = app.extensions["pbem"]
    for game_name, texts in (
        ("lancaster", ("knight ²", "²", "knight 1 to castle ³", "e ²")),
        ("lancelot", ("e ᧚", "column e row 𐩀", "row ᧚ column e")),
    ):
        game = _game(client, game_name)
        seat = min(svc.load(game.id).to_act)
        page = _seat_client(app, game, seat)
        version = svc.load(game.id).version
        for text in texts:
            sent = client.post(
                f"/api/v1/games/{game.id}/actions",
                json={"action": text, "expected_version": version},
                headers=bearer(game.seats[seat].token),
            )
            _refused(f"{game_name} action", text, sent)
            typed = page.post(
                f"/games/{game.id}", data={"action": text, "expected_version": version}
            )
            _refused(f"{game_name} move form", text, typed)
        assert svc.load(game.id).version == version
