"""The outbox: mails commit with their events; the relay sends each exactly once through
outages (a real aiosmtpd server), backs off, and dead-letters."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage

import pytest
from sqlmodel import select

from pbem.app.bootstrap import build_service, outbox_listener
from pbem.core.unit_of_work import AppendContext
from pbem.mail.models import DEAD, PENDING, SENT, AddressFailure
from pbem.mail.outbound.address import find_token, verify
from pbem.mail.outbound.relay import Relay, RelayResult, requeue_dead
from pbem.mail.outbound.smtp import transport_for
from tests.mail.helpers import MailWorld, plain_text
from tests.mail.servers import SmtpTestServer
from tests.settings import with_mail


def _parse(raw: bytes) -> EmailMessage:
    message = message_from_bytes(raw, policy=policy.default)
    assert isinstance(message, EmailMessage)
    return message


def _relay(world: MailWorld, server: SmtpTestServer, owner: str = "relay-1") -> Relay:
    return Relay(world.db, world.settings, transport_for(server.url, ""), world.clock, owner)


def test_a_new_game_mails_the_first_seat_its_turn_and_the_other_the_start(
    world: MailWorld,
) -> None:
    game = world.new_game()
    mails = world.outbox(game.id)
    assert [(m.kind, m.recipient, m.version) for m in mails] == [
        ("turn", "alice@example.com", game.version),
        ("start", "bob@example.com", game.version),
    ]
    turn = _parse(mails[0].message)
    assert turn["Auto-Submitted"] == "auto-generated"
    assert turn["X-Pbem-Version"] == str(game.version)
    assert turn["X-Pbem-Head"] == game.head_hash
    assert turn["In-Reply-To"] == f"<pbem.{game.id}.thread@pbem.test>"
    assert turn["Message-ID"] == f"<{mails[0].message_id}>"
    token = find_token([turn["Reply-To"].addresses[0].addr_spec], domain="reply.pbem.test")
    assert token is not None
    signed = verify(world.settings.secret_key, token, 0)
    assert (signed.game_id, signed.seat, signed.version_seen) == (game.id, 0, game.version)
    body = plain_text(turn)
    assert "your turn, Alice (Red)" in body
    assert "You can type, for example: D4, D5" in body
    assert f"https://pbem.test/games/{game.id}" in body
    assert game.head_hash in body
    assert "     D E F G H I J K" in body  # the board, from Alice's view


def test_a_move_confirms_to_the_mover_and_hands_the_turn_to_the_next_seat(
    world: MailWorld,
) -> None:
    game = world.new_game()
    result = world.service.submit(game.id, 0, "E5", expected_version=game.version, channel="web")
    mails = world.outbox(game.id)[2:]
    assert [(m.kind, m.seat, m.version) for m in mails] == [
        ("applied", 0, result.version),
        ("turn", 1, result.version),
    ]
    body = plain_text(_parse(mails[1].message))
    assert "Alice (Red): E5 — Alice (Red) placed a knight on E5." in body
    assert "your turn, Bob (Blue)." in body


def test_no_confirmation_when_confirmations_are_off(world: MailWorld) -> None:
    settings = with_mail(world.settings, confirmations=False)
    service = build_service(
        settings, db=world.db, clock=world.clock, listeners=[outbox_listener(settings)]
    )
    game = world.new_game()
    service.submit(game.id, 0, "E5", expected_version=game.version, channel="web")
    assert [m.kind for m in world.outbox(game.id)[2:]] == ["turn"]


def test_mails_commit_with_the_move_or_not_at_all(world: MailWorld) -> None:
    game = world.new_game()

    class Failing:
        def on_appended(self, ctx: AppendContext) -> None:
            raise RuntimeError("disk full")

    world.service.listeners.append(Failing())
    with pytest.raises(RuntimeError):
        world.service.submit(game.id, 0, "E5", expected_version=game.version, channel="web")
    world.service.listeners.pop()
    assert world.service.load(game.id).version == game.version
    assert len(world.outbox(game.id)) == 2


def test_an_outage_loses_nothing_and_sends_nothing_twice(
    world: MailWorld, smtp_server: SmtpTestServer
) -> None:
    game = world.new_game()
    world.service.submit(game.id, 0, "E5", expected_version=game.version, channel="web")
    ids = {m.id: m.message_id for m in world.outbox()}
    assert len(ids) == 4
    relay = _relay(world, smtp_server)

    smtp_server.refuse_connections()
    assert relay.run_once() == RelayResult(retried=4)
    assert relay.run_once() == RelayResult()  # nothing is due before the backoff
    world.clock.advance(timedelta(seconds=30))
    smtp_server.answer_4xx()
    assert relay.run_once() == RelayResult(retried=4)
    world.clock.advance(timedelta(seconds=59))  # the second wait is twice the first
    assert relay.run_once() == RelayResult()
    assert all("451" in (r.last_error or "") for r in world.outbox())
    world.clock.advance(timedelta(seconds=1))
    smtp_server.come_back()
    assert relay.run_once() == RelayResult(sent=4)
    world.clock.advance(timedelta(hours=2))
    assert relay.run_once() == RelayResult()

    received = [_parse(r.data)["Message-ID"] for r in smtp_server.messages()]
    assert sorted(received) == sorted(f"<{m}>" for m in ids.values())
    rows = world.outbox()
    assert {r.id: r.message_id for r in rows} == ids  # the same ids across retries
    assert {(r.status, r.attempts) for r in rows} == {(SENT, 3)}
    # Sent at last: the error of the failed attempts is cleared (it held the 451 until then).
    assert {r.last_error for r in rows} == {None}


def test_concurrent_relays_never_send_a_row_twice(
    world: MailWorld, smtp_server: SmtpTestServer
) -> None:
    for _ in range(6):
        game = world.new_game()
        v = game.version
        for move in ("E5", "F6"):
            v = world.service.submit(
                game.id, 0 if move == "E5" else 1, move, expected_version=v, channel="web"
            ).version
    total = len(world.outbox())
    assert total == 6 * 6
    world.settings = with_mail(world.settings, relay_batch=4)
    errors: list[BaseException] = []

    def run(owner: str) -> None:
        relay = _relay(world, smtp_server, owner)
        # until every mail is sent, within a time limit rather than a count of rounds: under
        # a loaded machine SQLite's locking can use up any fixed number of rounds first
        deadline = time.monotonic() + 60
        try:
            while time.monotonic() < deadline:
                relay.run_once()
                if len(smtp_server.messages()) >= total:
                    return
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(f"relay-{i}",)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    received = [_parse(r.data)["Message-ID"] for r in smtp_server.messages()]
    assert len(received) == total
    assert len(set(received)) == total
    assert {r.status for r in world.outbox()} == {SENT}


def test_after_max_attempts_a_mail_is_dead_until_requeued(
    world: MailWorld, smtp_server: SmtpTestServer
) -> None:
    game = world.new_game()
    relay = _relay(world, smtp_server)
    smtp_server.answer_4xx()
    for _ in range(world.settings.mail.max_attempts):
        relay.run_once()
        world.clock.advance(timedelta(seconds=world.settings.mail.backoff_cap))
    rows = world.outbox(game.id)
    assert {(r.status, r.attempts) for r in rows} == {(DEAD, 5)}
    assert "451" in (rows[0].last_error or "")
    smtp_server.come_back()
    assert relay.run_once() == RelayResult()  # dead mails are not retried
    assert requeue_dead(world.db, world.clock) == 2
    assert {r.status for r in world.outbox(game.id)} == {PENDING}
    assert relay.run_once() == RelayResult(sent=2)


def test_a_refused_recipient_is_dead_at_once_and_shown_as_bouncing(
    world: MailWorld, smtp_server: SmtpTestServer
) -> None:
    game = world.new_game()
    smtp_server.reject_recipients()
    assert _relay(world, smtp_server).run_once() == RelayResult(dead=2)
    with world.db.read() as session:
        failing = {row.address for row in session.exec(select(AddressFailure))}
    assert failing == {"alice@example.com", "bob@example.com"}
    world.service.submit(game.id, 0, "E5", expected_version=game.version, channel="web")
    body = plain_text(_parse(world.outbox(game.id)[-1].message))
    assert "mail to Alice (Red) is bouncing" in body
