"""Helpers of the webhook suite."""

from __future__ import annotations

import re
from collections.abc import Callable

from sqlmodel import col, select

from pbem.app.service import Created
from pbem.webhooks.models import WebhookDelivery
from pbem.webhooks.relay import Post, WebhookRelay
from pbem.webhooks.safety import Resolver, system_resolver
from pbem.webhooks.safety import post as real_post
from tests.mail.helpers import MailWorld, mail_text

LINK = re.compile(r"https://pbem\.test/webhooks/confirm/([A-Za-z0-9_-]+)")


def deliveries(world: MailWorld) -> list[WebhookDelivery]:
    with world.db.read() as session:
        rows = list(session.exec(select(WebhookDelivery).order_by(col(WebhookDelivery.id))))
        session.expunge_all()
        return rows


def relay(
    world: MailWorld,
    owner: str = "relay-1",
    resolve: Resolver = system_resolver,
    post: Post = real_post,
) -> WebhookRelay:
    return WebhookRelay(world.db, world.settings, world.clock, owner, resolve, post)


def play_one(world: MailWorld, game_id: str) -> int:
    """The first seat to act plays the rules' default; the seat that played."""
    loaded = world.service.load(game_id)
    rules = loaded.rules
    seat = min(rules.to_act(loaded.state))
    text = rules.format_action(loaded.state, rules.auto_action(loaded.state, seat))
    world.service.submit(game_id, seat, text, expected_version=loaded.version, channel="api")
    return seat


def confirmation_token(world: MailWorld, address: str) -> str:
    """The token of the latest confirmation link mailed to ``address``."""
    mails = [m for m in world.outbox() if m.kind == "confirm" and m.recipient == address]
    assert mails, f"no confirmation mail to {address}"
    found = LINK.search(mail_text(mails[-1]))
    assert found is not None, mail_text(mails[-1])
    return found.group(1)


def subscribe_address(
    world: MailWorld, game_id: str, seat: int, url: str, form: str | None = "json"
) -> tuple[int, str | None]:
    """A seat asks for a webhook of its address and its player confirms the mailed link:
    (the subscription's id, its secret)."""
    waiting = world.service.request_address_webhook(game_id, seat, url, form, "web")
    token = confirmation_token(world, waiting.mailed_to)
    added = world.service.confirm_webhook(token)
    return added.subscription.id, added.secret


def fake_resolver(table: dict[str, list[str]]) -> Resolver:
    def resolve(host: str, port: int) -> list[str]:
        if host not in table:
            raise OSError(f"no such host {host}")
        return table[host]

    return resolve


PostWrapper = Callable[[Post], Post]


def timed_game(world: MailWorld, time_control: str = "demo") -> Created:
    """A 2-seat Lancelot game (Alice, Bob) with a time control (``demo``: 3 minutes a
    decision, reminders 2 and 1 minutes before)."""
    seats = [{"name": n, "email": f"{n.lower()}@example.com"} for n in ("Alice", "Bob")]
    world.welcome(seats)
    return world.service.create_game(
        "lancelot", {}, seats, channel="api", time_control=time_control
    )
