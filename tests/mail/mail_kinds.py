"""One mail of each kind the service sends, made the way players and the clock make them:
a turn of each game (Lancaster with every Henry V module), a reminder, a deadline move's
notice, a reveal (the last secret vote), the end of a game, an error reply, an invitation,
a daily digest and a message of table talk. The HTML-part, SMTP and Chromium tests read them."""

from __future__ import annotations

import random
import secrets
from datetime import timedelta

import engine
from pbem.app.bootstrap import build_digester, build_sweeper
from pbem.mail.models import OutboxMail
from tests.mail.helpers import MailWorld

#: Every Henry V module (config/ and docs/lancaster-rules.md name them).
HENRY_V = {"kings_court": True, "resentment": True, "laws_of_the_king": True}
KINDS = (
    "turn-lancelot",
    "turn-lancaster",
    "reminder",
    "deadline",
    "reveal",
    "end",
    "error",
    "invitation",
    "digest",
    "talk",
)


def _seats(world: MailWorld, names: list[str]) -> list[dict[str, str]]:
    seats = [{"name": n, "email": f"{n.lower()}@example.com"} for n in names]
    world.welcome(seats)
    return seats


def _new(world: MailWorld, game_id: str, after: int) -> list[OutboxMail]:
    return [m for m in world.outbox(game_id) if (m.id or 0) > after]


def _last_id(world: MailWorld) -> int:
    return max((m.id or 0 for m in world.outbox()), default=0)


def lancaster_turn(world: MailWorld, players: int = 3) -> tuple[str, OutboxMail]:
    """A Lancaster game with every Henry V module, played by the rules' deadline default
    until its first placement turn: (game id, that turn's mail)."""
    seats = _seats(world, ["Ann", "Bob", "Cy", "Di", "Ed"][:players])
    game = world.service.create_game(
        "lancaster", {"players": players, "expansions": HENRY_V}, seats, channel="api"
    )
    rules = engine.REGISTRY["lancaster"]
    while True:
        loaded = world.service.load(game.id)
        if rules.view(loaded.state, None)["phase"] != "setup":
            break
        _play_auto(world, game.id)
    return game.id, [m for m in world.outbox(game.id) if m.kind == "turn"][-1]


def _play_auto(world: MailWorld, game_id: str) -> None:
    """The first seat to act plays the rules' deadline default."""
    loaded = world.service.load(game_id)
    rules = loaded.rules
    seat = min(rules.to_act(loaded.state))
    text = rules.format_action(loaded.state, rules.auto_action(loaded.state, seat))
    world.service.submit(game_id, seat, text, expected_version=loaded.version, channel="api")


def lancaster_reveal(world: MailWorld) -> OutboxMail:
    """The mail that reveals a vote: the last seat votes, every vote is shown."""
    seats = _seats(world, ["Ann", "Bob", "Cy"])
    game = world.service.create_game(
        "lancaster", {"players": 3, "expansions": HENRY_V}, seats, channel="api"
    )
    rules = engine.REGISTRY["lancaster"]
    for _ in range(400):
        loaded = world.service.load(game.id)
        view = rules.view(loaded.state, None)
        voters = [p for p in view["players"] if p.get("voted") is False]
        if view["phase"] == "parliament" and len(voters) == 1:
            before = _last_id(world)
            _play_auto(world, game.id)
            return next(m for m in _new(world, game.id, before) if m.seat == voters[0]["seat"])
        _play_auto(world, game.id)
    raise AssertionError("no vote in 400 moves")


def lancelot_midgame(world: MailWorld, players: int = 5, moves: int = 50) -> OutboxMail:
    """A turn mail of a Lancelot game with Excalibur, ``moves`` random placements in: knights
    of every colour on the board, some captured, the last move to mark."""
    seats = _seats(world, ["Alice", "Bob", "Carol", "Dave", "Erin"][:players])
    config = {"players": players, "variants": {"excalibur": True, "diagonals": False}}
    game = world.service.create_game("lancelot", config, seats, channel="api")
    rng = random.Random(4)
    for _ in range(moves):
        loaded = world.service.load(game.id)
        rules, state = loaded.rules, loaded.state
        if not rules.to_act(state):
            break
        seat = min(rules.to_act(state))
        legal = rules.legal_actions(state, seat)
        pick = rng.choice([a for a in legal if a[0] != "king"] or list(legal))
        text = rules.format_action(state, pick)
        world.service.submit(game.id, seat, text, expected_version=loaded.version, channel="api")
    return [m for m in world.outbox(game.id) if m.kind == "turn"][-1]


def each_kind(world: MailWorld) -> dict[str, OutboxMail]:
    """One mail of each of ``KINDS``."""
    found: dict[str, OutboxMail] = {}
    seats = _seats(world, ["Alice", "Bob"])
    timed = world.service.create_game("lancelot", {}, seats, channel="api", time_control="demo")
    found["turn-lancelot"] = next(m for m in world.outbox(timed.id) if m.kind == "turn")
    _, found["turn-lancaster"] = lancaster_turn(world)
    # The reminder: a minute before Alice's deadline (the "demo" control's second one).
    world.clock.advance(timedelta(minutes=2, seconds=5))
    build_sweeper(world.service).sweep()
    found["reminder"] = next(m for m in world.outbox(timed.id) if m.kind == "reminder")
    # Alice misses her deadline: the rules' default is played for her; she is told.
    before = _last_id(world)
    world.clock.advance(timedelta(minutes=1))
    report = build_sweeper(world.service).sweep()
    assert report.moves, report
    found["deadline"] = next(m for m in _new(world, timed.id, before) if m.seat == 0)
    found["reveal"] = lancaster_reveal(world)
    # An error: Bob replies a square off the board.
    _, _, found["error"] = world.say(timed.id, 1, "Z99")
    # Table talk: Bob writes to Alice; her mail of it waits its minute in the outbox.
    before = _last_id(world)
    world.service.send_talk(timed.id, 1, "Good luck, Alice!", (0,), channel="web")
    found["talk"] = next(m for m in _new(world, timed.id, before) if m.kind == "talk")
    # The end: Alice resigns, Bob wins.
    before = _last_id(world)
    world.say(timed.id, 0, "resign")
    found["end"] = next(m for m in _new(world, timed.id, before) if m.kind == "end")
    # An invitation: an address that never played.
    fresh = [{"name": "Nia", "email": "nia@example.com"}, {"name": "Alice",
             "email": "alice@example.com"}]  # fmt: skip
    invited = world.service.create_game("lancelot", {}, fresh, channel="api")
    found["invitation"] = next(m for m in world.outbox(invited.id) if m.kind == "invitation")
    # A digest: Dee asks for one, and a game waits for her (an address of this call's own:
    # a digest goes once a day to an address, and the module's database outlives the test).
    dee = {"name": "Dee", "email": f"dee.{secrets.token_hex(4)}@example.com"}
    world.welcome([dee])
    digest_game = world.service.create_game("lancelot", {}, [seats[0], dee], channel="api")
    world.say(digest_game.id, 1, "digest daily")
    loaded = world.service.load(digest_game.id)
    world.service.submit(digest_game.id, 0, "E5", expected_version=loaded.version, channel="api")
    world.clock.advance(timedelta(hours=1))
    build_digester(world.service).run()
    found["digest"] = [m for m in world.outbox() if m.kind == "digest"][-1]
    assert set(found) == set(KINDS), set(KINDS) - set(found)
    return found
