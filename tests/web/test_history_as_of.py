"""The history page shows the log exactly as the seat saw it at the version asked for: a secret
vote of another seat that was revealed only later is not beside the board of before, and a step
retracted later is struck through only from the version that retracted it."""

from __future__ import annotations

import html
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem.app.service import GameService
from pbem.core import events as ev
from tests.web.helpers import sqlite_app


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    with sqlite_app(tmp_path_factory.mktemp("history")) as app:
        yield app


def _text(page: Any) -> str:
    """The page's words, tags dropped and entities read (as a person sees them)."""
    return html.unescape(re.sub(r"<[^>]+>", "", page.get_data(as_text=True)))


def _log_items(page: Any) -> dict[int, str]:
    """Each log line of the page by its version, as a person reads it."""
    items = re.findall(r'<li id="v(\d+)"(.*?)</li>', page.get_data(as_text=True), re.S)
    return {int(v): html.unescape(re.sub(r"<[^>]+>", "", body)) for v, body in items}


def _seat_client(app: Flask, game_id: str, token: str) -> FlaskClient:
    client = app.test_client()
    assert client.get(f"/games/{game_id}?token={token}").status_code == 303
    return client


def _play_seeded(svc: GameService, game_id: str, seed: int, votes_revealed: int) -> None:
    """Random legal moves (seeded) until ``votes_revealed`` secret votes were revealed later
    than they were cast."""
    rnd = random.Random(seed)
    while True:
        loaded = svc.load(game_id)
        secrets = [
            e.version
            for e in svc.raw_events(game_id)
            if isinstance(e.payload, ev.ActionApplied) and e.payload.secret
        ]
        if (len(secrets) >= votes_revealed and secrets[-1] < loaded.version) or loaded.finished:
            return
        seat = rnd.choice(sorted(loaded.to_act))
        move = rnd.choice(loaded.legal(seat))
        svc.submit(game_id, seat, move, expected_version=loaded.version, channel="api")


def test_history_at_every_version_hides_votes_not_yet_revealed_then(app: Flask) -> None:
    svc: GameService = app.extensions["pbem"]
    created = svc.create_game("lancaster", {}, [{"name": n} for n in ("Ann", "Bob", "Cat")])
    gid = created.id
    _play_seeded(svc, gid, seed=12, votes_revealed=6)
    raw = svc.raw_events(gid)
    names = svc.load(gid).names
    head = raw[-1].version
    reveals = [
        e.version for e in raw if isinstance(e.payload, ev.ActionApplied) and e.payload.irreversible
    ]
    secrets = [
        (e.version, e.payload.seat, f"{names.of(e.payload.seat)}: {e.payload.canonical}")
        for e in raw
        if isinstance(e.payload, ev.ActionApplied) and e.payload.secret
    ]
    clients = [_seat_client(app, gid, s.token) for s in created.seats]
    checked = 0
    for at in range(1, head + 1):
        for seat, client in enumerate(clients):
            page = client.get(f"/games/{gid}/history?at={at}")
            assert page.status_code == 200
            items = _log_items(page)
            this_step = _text(page).split("This step:", 1)[-1].split("« First", 1)[0]
            assert max(items) == at  # nothing after the version looked at
            for version, voter, line in secrets:
                if voter == seat or version > at:
                    continue
                revealed = any(version <= r <= at for r in reveals)
                if not revealed:
                    checked += 1
                    assert line not in items[version], (at, seat, version, line)
                    assert f"{names.of(voter)} acted" in items[version], (at, seat, version)
                    if version == at:
                        assert line not in this_step, (at, seat, this_step)
    # the game went past a reveal, so a vote hidden then is shown now
    assert checked > 0
    last = clients[0].get(f"/games/{gid}/history?at={head}")
    assert any(line in _log_items(last)[v] for v, s, line in secrets if s != 0)


def test_a_step_is_struck_through_only_from_the_version_that_retracted_it(app: Flask) -> None:
    svc: GameService = app.extensions["pbem"]
    created = svc.create_game("lancelot", {}, [{"name": "Ann"}, {"name": "Bob"}])
    gid = created.id
    loaded = svc.load(gid)
    (mover,) = loaded.to_act
    svc.submit(gid, mover, loaded.legal(mover)[0], expected_version=loaded.version, channel="api")
    played = svc.load(gid).version
    svc.undo(gid, mover, channel="api")
    retracted_at = svc.load(gid).version
    assert retracted_at > played
    client = app.test_client()

    def line_class(at: int) -> str:
        page = client.get(f"/games/{gid}/history?at={at}").get_data(as_text=True)
        found = re.search(rf'<li id="v{played}" class="([^"]*)"', page)
        assert found, page
        return found.group(1)

    assert "retracted" not in line_class(played)
    assert "retracted" in line_class(retracted_at)
