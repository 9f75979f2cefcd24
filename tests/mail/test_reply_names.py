"""Replies by mail name players as everywhere else ("Alice (White)"), never by a bare seat
number: a move sent out of turn is refused with the name of the player the game waits for."""

from __future__ import annotations

from email import message_from_bytes, policy
from email.message import EmailMessage

from pbem.app.bootstrap import reply_words
from pbem.mail.inbound.pipeline import Inbound
from tests.mail.helpers import MailWorld, plain_text, reply_to


def _body(raw: bytes) -> str:
    message = message_from_bytes(raw, policy=policy.default)
    assert isinstance(message, EmailMessage)
    return str(plain_text(message))


def test_a_reply_out_of_turn_names_the_player_the_game_waits_for(world: MailWorld) -> None:
    game = world.new_game()
    loaded = world.service.load(game.id)
    assert loaded.to_act == frozenset({0})
    waiting_for = loaded.names.of(0)
    assert waiting_for != loaded.names.people[0]  # named with its colour, as on the board
    bobs = [m for m in world.outbox(game.id) if m.seat == 1]
    sent = len(world.outbox(game.id))
    result = Inbound(
        world.db, world.settings, world.service, world.clock, words=reply_words(world.service)
    ).receive(reply_to(bobs[-1], loaded.legal(0)[0]), "webhook")
    assert result.outcome != "applied"
    assert world.service.load(game.id).version == loaded.version  # nothing changed
    (answer,) = world.outbox(game.id)[sent:]
    assert answer.seat == 1
    text = _body(answer.message)
    assert "not your turn" in text
    assert f"waiting for {waiting_for}." in text, text
    assert "seat 0" not in text.lower()
