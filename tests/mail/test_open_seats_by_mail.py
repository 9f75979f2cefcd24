"""Open seats and the mail, on SQLite and PostgreSQL, through a real SMTP server (aiosmtpd): a
seat named at creation is told the game waits (no turn mail); a joiner whose address never
played gets an invitation and nothing else until it accepts; a joiner who has played gets
"you have a seat"; the last seat taken starts the game (the turn mail to the seat to act,
"the game has started" to the others); the limits on joins; starting with fewer, whose
log replays and whose export the offline verifier re-runs."""

from __future__ import annotations

import json
import secrets
from datetime import timedelta
from email import message_from_bytes, policy

import pytest

from pbem.app.bootstrap import build_service
from pbem.audit.verify import verify_bytes
from pbem.core import events as ev
from pbem.core.errors import Conflict, TooManyRequests
from pbem.mail.outbound.relay import Relay
from pbem.mail.outbound.smtp import transport_for
from tests.mail.helpers import MailWorld, mail_text, plain_text
from tests.mail.servers import SmtpTestServer
from tests.settings import with_invitations


def _address(name: str) -> str:
    # Addresses of their own: the module's database is shared by its tests.
    return f"{name.lower()}.{secrets.token_hex(3)}@example.com"


def _limited(world: MailWorld, **limits: object) -> MailWorld:
    settings = with_invitations(world.settings, **limits)
    service = build_service(settings, db=world.db, clock=world.clock)
    return MailWorld(world.db, settings, world.clock, service)


def test_joiners_get_the_invitation_flow_and_the_last_seat_starts_the_game(
    world: MailWorld, smtp_server: SmtpTestServer
) -> None:
    ann = {"name": "Ann", "email": _address("Ann")}
    world.welcome([ann])  # Ann has played here: no invitation for her
    svc = world.service
    game = svc.create_game("lancelot", {}, [ann, {"open": True}, {"open": True}], requester="ip:1")
    first = world.outbox(game.id)
    assert [(m.kind, m.recipient) for m in first] == [("notice", ann["email"])]
    assert "you have a seat" in mail_text(first[0])
    assert "starts when 2 more players have joined" in mail_text(first[0])

    cy = _address("Cy")
    joined = svc.join_game(game.id, "Cy", cy, channel="web", requester="ip:2")
    assert joined.invited and not joined.started and joined.seat == 1
    new = world.outbox(game.id)[1:]
    assert [(m.kind, m.recipient) for m in new] == [("invitation", cy)]
    assert "/invitation/" in mail_text(new[0])

    dee = {"name": "Dee", "email": _address("Dee")}
    world.welcome([dee])
    last = svc.join_game(game.id, "Dee", dee["email"], channel="api", requester="ip:3")
    assert last.started and last.open_seats == 0
    started = world.outbox(game.id)[2:]
    # Ann (seat 0) is to act: her turn; Dee is told it started; Cy, invited, waits.
    assert sorted((m.kind, m.recipient) for m in started) == sorted(
        [("turn", ann["email"]), ("start", dee["email"])]
    )
    types = [e.type for e in svc.raw_events(game.id)]
    assert types == ["GameCreated", "SeatTaken", "SeatTaken", "GameStarted"]

    # Every mail reaches a real SMTP server, to the address it names.
    relay = Relay(world.db, world.settings, transport_for(smtp_server.url, ""), world.clock, "r")
    while relay.run_once().sent:
        pass
    received = smtp_server.messages()
    invitation = next(r for r in received if r.rcpt_tos == (cy,))
    text = plain_text(message_from_bytes(invitation.data, policy=policy.default))
    assert "accept" in text and f"/invitation/{game.id}" in text
    assert {r.rcpt_tos[0] for r in received} >= {ann["email"], cy, dee["email"]}

    # Cy accepts: the game as it stands (not the stale mails).
    assert svc.accept_invitation(game.id, 1, channel="web")
    assert world.outbox(game.id)[-1].recipient == cy


def test_limits_on_joins_refuse_and_change_nothing(world: MailWorld) -> None:
    limited = _limited(world, joins_per_requester_per_hour=2, joins_per_address_per_hour=1)
    svc = limited.service
    games = [
        svc.create_game("lancelot", {}, [{"open": True}] * 3, requester="ip:9") for _ in range(3)
    ]
    one = _address("One")
    svc.join_game(games[0].id, "One", one, channel="web", requester="ip:7")
    version = svc.load(games[1].id).version
    with pytest.raises(TooManyRequests, match="open seats in the last hour"):
        svc.join_game(games[1].id, "One", one, channel="web", requester="ip:8")
    svc.join_game(games[1].id, "Two", _address("Two"), channel="web", requester="ip:7")
    with pytest.raises(TooManyRequests, match="taken from your address in the last hour"):
        svc.join_game(games[2].id, "Three", _address("Three"), channel="web", requester="ip:7")
    assert svc.load(games[2].id).version == 1
    assert svc.load(games[1].id).version == version + 1
    # An hour later the same address may join again.
    limited.clock.advance(timedelta(hours=1, seconds=1))
    svc.join_game(games[2].id, "One", one, channel="web", requester="ip:8")
    # One address, one seat per game.
    with pytest.raises(Conflict, match="already has a seat"):
        svc.join_game(games[2].id, "Other", one.upper(), channel="web", requester="ip:6")


def test_a_game_started_with_fewer_plays_replays_and_verifies_offline(
    world: MailWorld,
) -> None:
    svc = world.service
    game = svc.create_game("lancelot", {}, [{"open": True}] * 5, requester="ip:1")
    for name in ("Cy", "Dee"):
        svc.join_game(game.id, name, _address(name), channel="web", requester="ip:1")
    # Warm the state cache with the waiting game: a later fold must not start from it.
    waiting = svc.load(game.id)
    assert waiting.waiting and waiting.rules.view(waiting.state, None)["players"] != 2
    with pytest.raises(Conflict, match="has not started"):
        svc.submit(game.id, 0, "E5", expected_version=waiting.version, channel="api")
    assert svc.start_game_now(game.id, game.admin_token, channel="api") == 2
    loaded = svc.load(game.id)
    assert not loaded.waiting and loaded.to_act == frozenset({0})
    assert svc.load(game.id, at=waiting.version).version == waiting.version
    created = svc.raw_events(game.id)[0].payload
    closed = svc.raw_events(game.id)[-2].payload
    assert isinstance(created, ev.GameCreated) and created.config["players"] == 5
    assert isinstance(closed, ev.SeatsClosed) and closed.config["players"] == 2
    # Moves apply; the game is over by the administrator; the export re-runs offline.
    for _ in range(4):
        loaded = svc.load(game.id)
        seat = min(loaded.to_act)
        move = loaded.rules.format_action(
            loaded.state, loaded.rules.auto_action(loaded.state, seat)
        )
        result = svc.submit(game.id, seat, move, expected_version=loaded.version, channel="api")
        assert result.applied
    svc.cache.clear()
    assert svc.replay(game.id).ok
    assert svc.read_model_difference(game.id) is None
    svc.admin_end(game.id, game.admin_token)
    bundle = svc.export_game(game.id)
    report = verify_bytes(json.dumps(bundle).encode())
    assert report.ok and report.replayed, report.problems
    # The closing of the seats is checked too: another player count does not verify.
    for event in bundle["events"]:
        if event["type"] == "SeatsClosed":
            event["data"]["config"]["players"] = 3
    assert not verify_bytes(json.dumps(bundle).encode()).ok
