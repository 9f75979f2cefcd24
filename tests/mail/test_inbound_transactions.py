"""A reply's move and its outcome commit together: one transaction applies the commands and
records the message as done, so a move never stands without its outcome (or the reverse)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import select

from pbem.app.bootstrap import reply_words
from pbem.mail.inbound import outcome as inbound_outcome
from pbem.mail.inbound import pipeline as inbound_module
from pbem.mail.inbound.pipeline import Inbound
from pbem.mail.models import InboundMail
from pbem.mail.outbound.relay import record_failure
from tests.mail.helpers import MailWorld, reply_to
from tests.service.helpers import count_pipeline_waits


def _turn_mail(world: MailWorld, game_id: str, seat: int):  # type: ignore[no-untyped-def]
    return [m for m in world.outbox(game_id) if m.seat == seat and m.kind == "turn"][-1]


def _stored(world: MailWorld, key: str) -> InboundMail:
    with world.db.read() as session:
        return session.exec(select(InboundMail).where(InboundMail.key == key)).one()


def test_a_move_whose_outcome_cannot_be_written_is_not_applied(
    world: MailWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = world.new_game()
    inbound = Inbound(
        world.db, world.settings, world.service, world.clock, words=reply_words(world.service)
    )
    clear_failure = inbound_outcome.clear_failure
    calls: list[str] = []

    def failing_once(session: Any, address: str) -> None:
        # Part of writing an applied reply's outcome (the sender's address works again).
        calls.append(address)
        if len(calls) == 1:
            raise RuntimeError("the disk is full")
        clear_failure(session, address)

    monkeypatch.setattr(inbound_outcome, "clear_failure", failing_once)
    # Her mail bounced once, so writing her applied reply's outcome clears that mark.
    with world.db.write() as session:
        record_failure(session, "alice@example.com", "a bounce", world.clock.now())
    raw = reply_to(_turn_mail(world, game.id, 0), "E5", message_id="full@client.example")
    result = inbound.receive(raw, "webhook")
    # The outcome is written in the move's transaction: when it fails, so does the move,
    # and the message's one outcome says so.
    assert result.outcome == "failed"
    assert world.service.load(game.id).version == game.version
    assert _stored(world, "full@client.example").outcome == "failed"
    assert calls == ["alice@example.com"]


def test_an_applied_reply_is_recorded_in_the_transaction_of_its_move(
    world: MailWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = world.new_game()
    inbound = Inbound(
        world.db, world.settings, world.service, world.clock, words=reply_words(world.service)
    )
    writes = 0
    write, autocommit = world.db.write, world.db.autocommit
    pipelined_write = world.db.pipelined_write

    def counted() -> Any:
        nonlocal writes
        writes += 1
        return write()

    def counted_pipelined() -> Any:  # the unit of work's transaction
        nonlocal writes
        writes += 1
        return pipelined_write()

    def counted_autocommit() -> Any:  # a statement committed on its own: a transaction too
        nonlocal writes
        writes += 1
        return autocommit()

    monkeypatch.setattr(world.db, "write", counted)
    monkeypatch.setattr(world.db, "autocommit", counted_autocommit)
    monkeypatch.setattr(world.db, "pipelined_write", counted_pipelined)
    raw = reply_to(_turn_mail(world, game.id, 0), "E5", message_id="one@client.example")
    result = inbound.receive(raw, "webhook")
    assert (result.outcome, result.detail) == ("applied", "E5")
    # Storing the message, then the move with its outcome: two transactions, not three.
    assert writes == 2
    stored = _stored(world, "one@client.example")
    assert (stored.status, stored.outcome, stored.detail) == ("done", "applied", "E5")
    assert (stored.game_id, stored.seat) == (game.id, 0)
    assert world.service.load(game.id).version == game.version + 1


def test_a_reply_whose_routing_fails_is_stored_and_gets_one_outcome(
    world: MailWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = world.new_game()
    inbound = Inbound(
        world.db, world.settings, world.service, world.clock, words=reply_words(world.service)
    )

    def broken(*args: Any) -> Any:
        raise RuntimeError("the routing read failed")

    monkeypatch.setattr(inbound_module, "route_reply", broken)
    raw = reply_to(_turn_mail(world, game.id, 0), "E5", message_id="lost@client.example")
    result = inbound.receive(raw, "webhook")
    # Stored, with its one outcome: the error, not a message lost with the routing read.
    assert result.outcome == "failed"
    stored = _stored(world, "lost@client.example")
    assert (stored.status, stored.outcome) == ("done", "failed")
    assert world.service.load(game.id).version == game.version


def test_an_applied_reply_waits_on_postgresql_three_times_in_its_move(
    world: MailWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The move's transaction waits for the game's head, the mails' facts and the COMMIT;
    the outcome's UPDATE goes with the COMMIT (docs/mail.md, "Tests and figures"). On
    SQLite there is no pipeline, nor a round trip to save."""
    game = world.new_game()
    inbound = Inbound(
        world.db, world.settings, world.service, world.clock, words=reply_words(world.service)
    )
    waits = count_pipeline_waits(monkeypatch)
    raw = reply_to(_turn_mail(world, game.id, 0), "E5", message_id="fast@client.example")
    result = inbound.receive(raw, "webhook")
    assert (result.outcome, result.detail) == ("applied", "E5")
    assert len(waits) == (3 if world.db.is_postgres else 0)
    stored = _stored(world, "fast@client.example")
    assert (stored.status, stored.outcome, stored.detail) == ("done", "applied", "E5")
