"""Fixtures of the webhook suite: a real HTTP receiver on loopback, and a game service whose
appends write mails and webhook deliveries (SQLite and PostgreSQL)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlmodel import delete

from pbem.app.bootstrap import build_service
from pbem.core.db import Database
from pbem.core.time_source import ManualClock
from pbem.mail.models import Lease, OutboxMail
from pbem.webhooks.models import WebhookDelivery, WebhookSubscription
from pbem.webhooks.safety import system_resolver
from tests.mail.helpers import MailWorld
from tests.settings import webhook_settings
from tests.webhooks.receiver import Receiver


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def world(database: Database, tmp_path: Path) -> MailWorld:
    """A service whose appends write mails and webhook deliveries, on this module's database
    (both outboxes and the subscriptions emptied); the receiver on loopback is allowed."""
    with database.write() as session:
        session.exec(delete(OutboxMail))
        session.exec(delete(Lease))
        session.exec(delete(WebhookDelivery))
        session.exec(delete(WebhookSubscription))
    clock = ManualClock(datetime(2025, 6, 2, 9, 0, tzinfo=UTC))
    settings = webhook_settings(database.url, tmp_path)
    service = build_service(settings, db=database, clock=clock)
    # The tests' DNS: the public services' names at public addresses (no network needed);
    # addresses typed as such resolve to themselves.
    service.parts.webhooks.resolve = test_resolver
    return MailWorld(database, settings, clock, service)


PUBLIC_NAMES = {
    "discord.com": ["162.159.128.233"],
    "hooks.slack.com": ["52.89.214.238"],
    "hooks.example.com": ["93.184.215.14"],
    "example.com": ["93.184.215.14"],
}


def test_resolver(host: str, port: int) -> list[str]:
    if host in PUBLIC_NAMES:
        return PUBLIC_NAMES[host]
    return system_resolver(host, port)
