"""What each notice says, to whom, in which form: Discord's and Slack's shapes, the notice
registry a feature fills (``register_notice``), reminders, deadlines passed and game ends."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import timedelta

from pbem.app.bootstrap import build_sweeper
from pbem.clock.events import GAME_PAUSED
from pbem.core.events import StoredEvent
from pbem.core.unit_of_work import AppendContext
from pbem.webhooks.forms import body_for
from pbem.webhooks.notices import EVERYONE, Notice, register_notice, unregister_notice
from tests.mail.helpers import MailWorld
from tests.webhooks.helpers import play_one, relay, subscribe_address, timed_game
from tests.webhooks.receiver import Receiver


def _by_path(receiver: Receiver) -> dict[str, list[dict[str, object]]]:
    found: dict[str, list[dict[str, object]]] = {}
    for r in receiver.received:
        found.setdefault(r.path, []).append(r.json)
    return found


def test_discord_and_slack_get_the_bodies_their_incoming_webhooks_take(
    world: MailWorld, receiver: Receiver
) -> None:
    game = world.new_game()
    world.service.add_game_webhook(game.id, game.admin_token, receiver.url("/d"), "discord", "api")
    world.service.add_game_webhook(game.id, game.admin_token, receiver.url("/s"), "slack", "api")
    play_one(world, game.id)
    relay(world).run_once()
    discord, slack = (next(r for r in receiver.received if r.path == p) for p in ("/d", "/s"))
    expected = f"Game {game.id} (Lancelot), version 3: waiting for Bob (Blue). "
    assert discord.json == {
        "content": expected + f"https://pbem.test/games/{game.id}",
        "allowed_mentions": {"parse": []},  # no @everyone from anyone's text
    }
    assert slack.json == {"text": expected + f"https://pbem.test/games/{game.id}"}
    for r in (discord, slack):
        assert "X-Pbem-Signature" not in r.headers  # they take none: the URL is the secret
        assert r.headers["Content-Type"] == "application/json"


def test_slack_text_is_escaped_and_discord_content_is_cut_at_its_limit() -> None:
    notice = Notice("talk", "Ann says: <@channel> & <https://evil|click>", EVERYONE)
    slack = json.loads(body_for("slack", notice, "whd_1", "t", ""))
    assert slack["text"] == "Ann says: &lt;@channel&gt; &amp; &lt;https://evil|click&gt;"
    long = Notice("talk", "x" * 3000, EVERYONE)
    discord = json.loads(body_for("discord", long, "whd_1", "t", ""))
    assert len(discord["content"]) == 2000 and discord["content"].endswith("…")


def test_a_feature_registers_a_notice_builder_for_its_event_type(
    world: MailWorld, receiver: Receiver
) -> None:
    """As table talk registers one for ``TableTalkSent``: here for the clock's
    ``GamePaused``, one notice to everyone and one to seat 1 alone."""

    def paused(ctx: AppendContext, event: StoredEvent) -> Sequence[Notice]:
        return [
            Notice("paused", f"Game {ctx.game_id} paused.", EVERYONE),
            Notice("whisper", "Only Bob hears this.", frozenset({1})),
        ]

    register_notice(GAME_PAUSED, paused)
    try:
        game = timed_game(world)
        world.service.add_game_webhook(
            game.id, game.admin_token, receiver.url("/admin"), "json", "api"
        )
        subscribe_address(world, game.id, 0, receiver.url("/alice"))
        subscribe_address(world, game.id, 1, receiver.url("/bob"))
        world.service.pause(game.id, game.admin_token, channel="api")
        relay(world).run_once()
    finally:
        unregister_notice(GAME_PAUSED, paused)
    kinds = {path: sorted(str(n["kind"]) for n in got) for path, got in _by_path(receiver).items()}
    assert kinds == {
        "/admin": ["paused"],  # a seat's notice never reaches the administrator's webhook
        "/alice": ["paused"],
        "/bob": ["paused", "whisper"],
    }


def test_reminders_and_a_passed_deadline_are_told(world: MailWorld, receiver: Receiver) -> None:
    game = timed_game(world)  # 3 minutes a decision, reminders 2 and 1 minutes before
    world.service.add_game_webhook(game.id, game.admin_token, receiver.url("/admin"), "json", "api")
    subscribe_address(world, game.id, 0, receiver.url("/alice"))
    sweeper = build_sweeper(world.service)
    world.clock.advance(timedelta(minutes=2, seconds=1))
    sweeper.sweep()
    relay(world).run_once()
    [reminder] = _by_path(receiver)["/alice"]
    assert reminder["kind"] == "reminder"
    assert str(reminder["text"]).startswith(f"Reminder: your move in game {game.id} (Lancelot)")
    assert "/admin" not in _by_path(receiver)  # a reminder is the seat's own
    world.clock.advance(timedelta(minutes=1))
    sweeper.sweep()
    relay(world).run_once()
    admin = _by_path(receiver)["/admin"]
    assert [n["kind"] for n in admin] == ["deadline", "turn"]
    assert "Alice (Red)'s deadline passed; a move was played for them." in str(admin[0]["text"])
    alice = [n["kind"] for n in _by_path(receiver)["/alice"]]
    assert alice == ["reminder", "deadline"]  # both reminders were due: one mail, one notice


def test_the_end_of_the_game_is_told_to_everyone(world: MailWorld, receiver: Receiver) -> None:
    game = world.new_game()
    world.service.add_game_webhook(game.id, game.admin_token, receiver.url("/admin"), "json", "api")
    subscribe_address(world, game.id, 1, receiver.url("/bob"))
    world.service.admin_end(game.id, game.admin_token)
    relay(world).run_once()
    for path in ("/admin", "/bob"):
        [end] = [n for n in _by_path(receiver)[path] if n["kind"] == "end"]
        assert str(end["text"]).startswith(f"Game {game.id} (Lancelot) is over:")
        assert "seed" not in end


def test_the_mails_facts_read_the_same_subscriptions_as_the_listeners_own_query(
    world: MailWorld, receiver: Receiver
) -> None:
    """The outbox listener reads the webhooks' subscriptions with the mails' facts (one
    statement for both, a round trip less per move on PostgreSQL); the webhook listener's own
    query, for an append with no address to mail, must find the same ones: the game's, the
    seats' addresses', and none that is waiting or removed."""
    from pbem.mail.outbound.compose import mail_facts
    from pbem.webhooks.listener import ActiveSubscription, active_subscriptions
    from pbem.webhooks.models import ACTIVE

    game = timed_game(world)
    other = timed_game(world)
    sub, _ = subscribe_address(world, game.id, 0, receiver.url("/alice"))
    world.service.add_game_webhook(game.id, game.admin_token, receiver.url("/admin"), "json", "api")
    world.service.add_game_webhook(other.id, other.admin_token, receiver.url("/other"), None, "api")
    world.service.request_address_webhook(game.id, 1, receiver.url("/bob"), "json", "web")
    addresses = ["alice@example.com", "bob@example.com"]
    with world.db.read() as session:
        facts = mail_facts(session, game.id, addresses)
        own = active_subscriptions(session, game.id, addresses)
    read = [
        ActiveSubscription(id, address, game.id if of_game else None, form)
        for id, address, of_game, form in facts.webhook_subscriptions
    ]
    assert read == own
    assert [(s.address, s.game_id) for s in own] == [("alice@example.com", None), (None, game.id)]
    assert sub in [s.id for s in own]
    assert ACTIVE == "active"  # the literal in the facts' statement


def test_table_talk_is_told_to_its_readers_only_and_never_with_its_words(
    world: MailWorld, receiver: Receiver
) -> None:
    """A message at the table: each reader's webhook is told who wrote to whom, without the
    words (a webhook may post where others read); the writer's own webhook and the game's
    administrator's get nothing (table talk is not public), nor does a seat a private message
    is not for."""
    seats = [{"name": n, "email": f"{n.lower()}@example.com"} for n in ("Alice", "Bob", "Cy")]
    world.welcome(seats)
    game = world.service.create_game("lancelot", {}, seats, channel="api")
    world.service.add_game_webhook(game.id, game.admin_token, receiver.url("/admin"), "json", "api")
    for seat, name in enumerate(("alice", "bob", "cy")):
        subscribe_address(world, game.id, seat, receiver.url(f"/{name}"), "json")
    world.service.send_talk(game.id, 0, "Good luck, everyone!", channel="web")
    world.service.send_talk(game.id, 1, "Shall we gang up on Cy?", (0,), channel="web")
    relay(world).run_once()
    talk = {
        path: [str(n["text"]) for n in notices if n["kind"] == "talk"]
        for path, notices in _by_path(receiver).items()
    }
    assert talk.get("/admin", []) == []
    assert talk["/alice"] == [
        f"Game {game.id} (Lancelot): Bob (Blue) wrote to you. Read it in your mail or on your page."
    ]
    assert talk["/bob"] == [
        f"Game {game.id} (Lancelot): Alice (Red) wrote to the table. "
        "Read it in your mail or on your page."
    ]
    assert len(talk["/cy"]) == 1 and "Alice (Red) wrote to the table" in talk["/cy"][0]
    bodies = b"".join(r.body for r in receiver.received)
    assert b"Good luck" not in bodies and b"gang up" not in bodies
