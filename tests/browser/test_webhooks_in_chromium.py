"""Webhooks on the pages, in Chromium: the administrator adds one on the admin page and reads
its secret once; a player asks for one on the seat page, opens the link mailed to them and
confirms it; a move then reaches a real receiver on loopback, signed with the secrets the
pages showed. axe-core finds no serious violation on the pages the webhooks added to.
Screenshots: webhooks-admin.png, webhooks-confirm.png, webhooks-seat.png."""

from __future__ import annotations

import hashlib
import hmac
import re
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from sqlmodel import col, select
from werkzeug.serving import make_server

import engine
from pbem.app.bootstrap import build_service, build_webhook_relay
from pbem.core.db import Database
from pbem.core.migrate import upgrade
from pbem.mail.models import OutboxMail
from tests.browser.conftest import Site, run_axe, screenshot
from tests.mail.helpers import mail_text
from tests.settings import make_settings
from tests.webhooks.receiver import Receiver
from web import create_app


@pytest.fixture(scope="module")
def hooked_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """The app on a loopback port with the mail outbox and the webhook listener, webhooks
    allowed to reach the test's receiver on 127.0.0.1."""
    var = tmp_path_factory.mktemp("webhooks-browser")
    url = f"sqlite:///{var / 'pbem.db'}"
    db = Database(url)
    upgrade(db)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = make_settings(
        url,
        var,
        base_url=f"http://127.0.0.1:{port}",
        webhooks={"allow_private": True, "allow_http": True},
    )
    service = build_service(settings, db=db, registry=engine.REGISTRY)
    server = make_server("127.0.0.1", port, create_app(service=service), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield Site(f"http://127.0.0.1:{port}", service)
    server.shutdown()
    thread.join(5)
    db.dispose()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    server.start()
    yield server
    server.stop()


def _confirmation_link(site: Site, address: str) -> str:
    db = site.service.parts.db
    with db.read() as session:
        mails = list(
            session.exec(
                select(OutboxMail)
                .where(col(OutboxMail.kind) == "confirm", col(OutboxMail.recipient) == address)
                .order_by(col(OutboxMail.id))
            )
        )
        text = mail_text(mails[-1])
    found = re.search(r"http://127\.0\.0\.1:\d+/webhooks/confirm/[A-Za-z0-9_-]+", text)
    assert found is not None, text
    return found.group(0)


def _signed(secret: str, body: bytes, header: str) -> bool:
    expected = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, header)


def test_webhooks_added_on_the_pages_receive_signed_notices(
    browser: Any, hooked_site: Site, receiver: Receiver
) -> None:
    svc = hooked_site.service
    seats = [
        {"name": "Ann", "email": "ann@example.org"},
        {"name": "Bob", "email": "bob@example.org"},
    ]
    game = svc.create_game("lancelot", {}, seats, channel="api")
    for seat in game.seats:
        svc.accept_invitation(game.id, seat.seat, channel="cli")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    # The administrator adds the game's webhook and copies its secret, shown once.
    page.goto(f"{hooked_site.url}/games/{game.id}/admin?admin={game.admin_token}")
    page.fill("#webhooks #webhook-url", receiver.url("/admin"))
    page.select_option("#webhooks #webhook-form", "json")
    with page.expect_navigation():
        page.click("#admin-webhook-add")
    admin_secret = page.inner_text("#webhook-secret").strip()
    assert re.fullmatch(r"[0-9a-f]{64}", admin_secret)
    assert run_axe(page) == []
    page.goto(f"{hooked_site.url}/games/{game.id}/admin")
    assert "(json)" in page.inner_text("#webhooks") and admin_secret not in page.content()
    assert run_axe(page) == []
    screenshot(page, "webhooks-admin.png")
    # Bob asks on his seat page; the link is mailed to him; he opens it and confirms.
    bob = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    bob.goto(f"{hooked_site.url}/games/{game.id}?token={game.seats[1].token}")
    bob.fill("#webhooks #webhook-url", receiver.url("/bob"))
    with bob.expect_navigation():
        bob.click("#seat-webhook-ask")
    assert "A link to confirm webhook" in bob.inner_text("#notices")
    assert run_axe(bob) == []
    screenshot(bob, "webhooks-seat.png")
    bob.goto(_confirmation_link(hooked_site, "bob@example.org"))
    assert "bob@example.org" in bob.inner_text("main")
    assert run_axe(bob) == []
    screenshot(bob, "webhooks-confirm.png")
    with bob.expect_navigation():
        bob.click("#confirm-webhook")
    bob_secret = bob.inner_text("#webhook-secret").strip()
    # Ann moves: the relay delivers Bob's turn and the game's public notice, signed.
    loaded = svc.load(game.id)
    first = min(loaded.to_act)
    svc.submit(game.id, first, loaded.legal(first)[0], expected_version=loaded.version,
               channel="api")  # fmt: skip
    assert build_webhook_relay(svc).run_once().sent == 2
    got = {r.path: r for r in receiver.received}
    assert _signed(admin_secret, got["/admin"].body, got["/admin"].headers["X-Pbem-Signature"])
    assert _signed(bob_secret, got["/bob"].body, got["/bob"].headers["X-Pbem-Signature"])
    assert got["/bob"].json["text"].startswith(f"Your turn in game {game.id}")
    context.close()
