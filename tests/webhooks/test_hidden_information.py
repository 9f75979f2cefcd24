"""A webhook carries nothing a seat may not see: a Lancaster game played through its secret
parliament votes, with every address and the administrator subscribed, sends notices that
name no move, vote, salt or credential, each seat's only to that seat's address."""

from __future__ import annotations

import re

from pbem.core import events as ev
from tests.mail.helpers import MailWorld
from tests.webhooks.helpers import play_one, relay, subscribe_address
from tests.webhooks.receiver import Receiver

#: Every field a notice's JSON form may have.
FIELDS = {
    "created_at", "delivery_id", "game", "game_id", "kind", "text", "url", "version",
    "seat", "player", "to_act", "winners", "scores", "due",
}  # fmt: skip
#: Every text a built-in notice may have, as patterns.
TEXTS = [
    re.compile(
        r"Your turn in game \w+ \(Lancaster\), version \d+: you play [\w ()]+\. "
        r"Your board and moves are in your mail\."
    ),
    re.compile(r"Game \w+ \(Lancaster\), version \d+: waiting for [\w ()',]+\."),
    re.compile(r"Game \w+ \(Lancaster\) is over: .*"),
]


def test_lancaster_notices_through_secret_votes_name_no_move_and_no_vote(
    world: MailWorld, receiver: Receiver
) -> None:
    seats = [{"name": n, "email": f"{n.lower()}@example.com"} for n in ("Ann", "Bob", "Cy")]
    world.welcome(seats)
    game = world.service.create_game("lancaster", {"players": 3}, seats, channel="api")
    world.service.add_game_webhook(game.id, game.admin_token, receiver.url("/admin"), "json", "api")
    for seat in range(3):
        subscribe_address(world, game.id, seat, receiver.url(f"/seat{seat}"))
    secret_votes = 0
    for _ in range(400):
        if world.service.load(game.id).finished:
            break
        play_one(world, game.id)
        applied = [e for e in world.service.raw_events(game.id) if e.type == ev.ACTION_APPLIED]
        secret_votes = sum(1 for e in applied if e.data.get("secret"))
        if secret_votes >= 6:
            break
    assert secret_votes >= 6, "the game never reached a parliament vote"
    while relay(world).run_once().sent:
        pass
    applied = [e for e in world.service.raw_events(game.id) if e.type == ev.ACTION_APPLIED]
    salts = [str(e.data["nonce"]) for e in applied if e.data.get("nonce")]
    assert salts and receiver.received
    for r in receiver.received:
        body = r.json
        assert set(body) <= FIELDS, body
        assert any(p.fullmatch(str(body["text"])) for p in TEXTS), body["text"]
        raw = r.body.decode()
        assert not any(salt in raw for salt in salts)
        assert not any(s.token in raw for s in game.seats) and game.admin_token not in raw
        assert "link=" not in raw and "play+" not in raw
        if r.path == "/admin":
            assert "seat" not in body  # the administrator's are the public notices
        else:
            assert body.get("seat") in (None, int(r.path.removeprefix("/seat")))
    turns = {r.path for r in receiver.received if r.json.get("seat") is not None}
    assert turns == {"/seat0", "/seat1", "/seat2"}
