"""Webhook notices delivered to a real HTTP receiver on loopback, on SQLite and PostgreSQL:
signed, in the seat's view, retried through an outage, redelivered with the same delivery id
after a relay crashed, dead after the last attempt and listed by ``pbem webhook dead``."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

import pytest
from click.testing import CliRunner

from pbem.cli.main import main
from pbem.webhooks import safety
from pbem.webhooks.models import DEAD, PENDING, SENDING, SENT
from pbem.webhooks.relay import Post
from tests.mail.helpers import MailWorld
from tests.webhooks.helpers import deliveries, play_one, relay, subscribe_address
from tests.webhooks.receiver import Receiver


def _verified(secret: str, body: bytes, header: str) -> bool:
    """What a receiver does, written here from docs/webhooks.md, not from our code."""
    expected = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, header)


def test_a_move_sends_signed_notices_in_each_subscribers_view(
    world: MailWorld, receiver: Receiver
) -> None:
    game = world.new_game()
    admin = world.service.add_game_webhook(
        game.id, game.admin_token, receiver.url("/admin"), "json", "api"
    )
    bob_id, bob_secret = subscribe_address(world, game.id, 1, receiver.url("/bob"))
    _, alice_secret = subscribe_address(world, game.id, 0, receiver.url("/alice"))
    assert admin.secret and bob_secret and alice_secret
    played = play_one(world, game.id)
    assert played == 0
    pending = deliveries(world)
    assert {d.status for d in pending} == {PENDING}  # written with the move, not sent yet
    result = relay(world).run_once()
    assert result.sent == len(pending) == 2 and result.dead == 0
    by_path = {r.path: r for r in receiver.received}
    assert set(by_path) == {"/admin", "/bob"}  # Alice is not to act: nothing for her
    bob, to_admin = by_path["/bob"], by_path["/admin"]
    assert _verified(bob_secret, bob.body, bob.headers["X-Pbem-Signature"])
    assert _verified(admin.secret, to_admin.body, to_admin.headers["X-Pbem-Signature"])
    assert not _verified(alice_secret, bob.body, bob.headers["X-Pbem-Signature"])
    assert bob.headers["X-Pbem-Delivery"] == bob.json["delivery_id"]
    assert bob.headers["X-Pbem-Timestamp"] == bob.json["created_at"]
    assert bob.json["kind"] == "turn" and bob.json["seat"] == 1
    assert bob.json["text"].startswith(f"Your turn in game {game.id} (Lancelot), version ")
    assert bob.json["url"] == f"https://pbem.test/games/{game.id}"
    assert to_admin.json["text"].endswith("waiting for Bob (Blue).")
    assert "seat" not in to_admin.json  # the administrator's notice is the public one
    # No credential in any notice: neither seat token nor page or reply link.
    for r in receiver.received:
        for seat in game.seats:
            assert seat.token not in r.body.decode()
        assert b"/seat/" not in r.body and b"play+" not in r.body
    assert bob_id != admin.subscription.id


def test_an_outage_is_retried_with_backoff_until_the_receiver_is_back(
    world: MailWorld, receiver: Receiver
) -> None:
    game = world.new_game()
    world.service.add_game_webhook(game.id, game.admin_token, receiver.url(), "json", "api")
    play_one(world, game.id)
    [row] = deliveries(world)
    receiver.answers = [500]
    assert relay(world).run_once().retried == 1
    [after_500] = deliveries(world)
    assert after_500.status == PENDING and "HTTP 500" in (after_500.last_error or "")
    waits = [after_500.next_attempt_at]
    # Not due before its backoff: a run now sends nothing.
    assert relay(world).run_once().sent == 0
    with receiver.down():
        world.clock.advance(timedelta(seconds=30))
        assert relay(world).run_once().retried == 1  # connection refused
        [refused] = deliveries(world)
        assert "no answer" in (refused.last_error or "")
        waits.append(refused.next_attempt_at)
        world.clock.advance(timedelta(seconds=59))
        assert relay(world).run_once().retried == 0  # 60 s after the second failure
    world.clock.advance(timedelta(seconds=1))
    assert relay(world).run_once().sent == 1
    [done] = deliveries(world)
    assert done.status == SENT and done.attempts == 3
    ids = [r.headers["X-Pbem-Delivery"] for r in receiver.received]
    assert ids == [row.delivery_id, row.delivery_id]  # the 500, then the success
    assert receiver.received[0].body == receiver.received[1].body  # the same bytes
    assert waits == ["2025-06-02T09:00:30.000000Z", "2025-06-02T09:01:30.000000Z"]


def test_after_the_last_attempt_a_delivery_is_dead_listed_and_can_be_retried(
    world: MailWorld, receiver: Receiver
) -> None:
    game = world.new_game()
    world.service.add_game_webhook(game.id, game.admin_token, receiver.url(), "slack", "api")
    play_one(world, game.id)
    receiver.answers = [503, 503, 503, 503]
    for _ in range(4):  # max_attempts = 4
        relay(world).run_once()
        world.clock.advance(timedelta(seconds=600))
    [row] = deliveries(world)
    assert row.status == DEAD and row.attempts == 4
    dead = _cli(world, "webhook", "dead")
    assert row.delivery_id in dead and "attempts 4: HTTP 503" in dead
    assert "1 webhook delivery(ies) queued again" in _cli(world, "webhook", "retry", str(row.id))
    world.clock.set(datetime.now(UTC) + timedelta(seconds=1))  # the CLI's clock is the real one
    assert relay(world).run_once().sent == 1
    assert [r.headers["X-Pbem-Delivery"] for r in receiver.received] == [row.delivery_id] * 5
    assert _cli(world, "webhook", "dead").strip() == "no dead webhook delivery"
    assert "sent 1" in _cli(world, "webhook", "status")


def test_a_refusal_that_will_not_change_is_dead_at_once(
    world: MailWorld, receiver: Receiver
) -> None:
    game = world.new_game()
    world.service.add_game_webhook(game.id, game.admin_token, receiver.url(), "json", "api")
    world.service.add_game_webhook(game.id, game.admin_token, receiver.url("/r"), "json", "api")
    play_one(world, game.id)
    receiver.answers = [404, 302]
    assert relay(world).run_once().dead == 2
    errors = sorted(d.last_error or "" for d in deliveries(world))
    assert errors[0].startswith("HTTP 302") and "redirects are not followed" in errors[0]
    assert errors[1].startswith("HTTP 404")
    assert len(receiver.received) == 2  # the redirect was not followed


class Crash(BaseException):
    """The relay's process dies (not an error it handles)."""


def test_a_relay_that_dies_mid_delivery_is_taken_over_with_the_same_delivery_id(
    world: MailWorld, receiver: Receiver
) -> None:
    game = world.new_game()
    world.service.add_game_webhook(game.id, game.admin_token, receiver.url(), "json", "api")
    play_one(world, game.id)

    def dies_after_sending(
        target: safety.Target, body: bytes, headers: Mapping[str, str], timeout: float
    ) -> safety.Answer:
        safety.post(target, body, headers, timeout)  # the receiver has it …
        raise Crash  # … and the relay dies before recording it

    crashing: Post = dies_after_sending
    with pytest.raises(Crash):
        relay(world, owner="relay-1", post=crashing).run_once()
    [leased] = deliveries(world)
    assert leased.status == SENDING and leased.lease_owner == "relay-1"
    # Another relay leaves it alone while the lease runs …
    world.clock.advance(timedelta(seconds=59))
    assert relay(world, owner="relay-2").run_once().sent == 0
    # … and takes it over once it ran out: sent again, with the same delivery id and bytes.
    world.clock.advance(timedelta(seconds=2))
    assert relay(world, owner="relay-2").run_once().sent == 1
    first, second = receiver.received
    assert first.headers["X-Pbem-Delivery"] == second.headers["X-Pbem-Delivery"]
    assert first.body == second.body
    [done] = deliveries(world)
    assert done.status == SENT and done.lease_owner is None
    # Nothing more goes out.
    world.clock.advance(timedelta(hours=2))
    assert relay(world, owner="relay-3").run_once().sent == 0
    assert len(receiver.received) == 2


def test_a_removed_subscription_gets_nothing_more(world: MailWorld, receiver: Receiver) -> None:
    game = world.new_game()
    added = world.service.add_game_webhook(game.id, game.admin_token, receiver.url(), None, "api")
    play_one(world, game.id)
    world.service.remove_game_webhook(game.id, game.admin_token, added.subscription.id)
    result = relay(world).run_once()
    assert result.dropped == 1 and result.sent == 0
    play_one(world, game.id)
    assert len(deliveries(world)) == 1  # nothing written for a removed subscription
    assert receiver.received == []


def _cli(world: MailWorld, *args: str) -> str:
    """``pbem`` run on the test's database, as an operator runs it."""
    env = {
        "PBEM_DATABASE_URL": world.db.url,
        "PBEM_VAR_DIR": world.settings.var_dir,
        "PBEM_SECRET_KEY": world.settings.secret_key,
    }
    result = CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output
