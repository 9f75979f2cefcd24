"""Who may add, list and remove which webhook, through each door (pages, API, mail): a game's
administrator its game's; a player its address's, only once a link mailed to that address is
confirmed. Another seat, another game's admin token, a visitor, a forged mail and a cross-site
form change nothing."""

from __future__ import annotations

import re

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem.app.bootstrap import build_inbound
from pbem.app.config import WebhookSettings
from pbem.webhooks.models import ACTIVE, WAITING
from tests.mail.helpers import MailWorld, mail_text, reply_to
from tests.webhooks.helpers import confirmation_token, subscribe_address
from tests.webhooks.receiver import Receiver
from web import create_app

# PostgreSQL under -m slow: who may add, list and remove a webhook is decided in Python, not by
# the database.
pytestmark = pytest.mark.postgres_in_slow

HOOK = "https://discord.com/api/webhooks/1/secret-part"


@pytest.fixture
def app(world: MailWorld) -> Flask:
    return create_app(service=world.service)


def _strict(world: MailWorld) -> None:
    """The production SSRF guard on the webhook commands (the suite's allows its receiver)."""
    world.service.parts.webhooks.settings = world.settings.with_changes(webhooks=WebhookSettings())


def _subs(world: MailWorld) -> list[tuple[int, str | None, str | None, str]]:
    return [(s.id, s.address, s.game_id, s.status) for s in world.service.all_webhooks()]


def _admin_client(app: Flask, game_id: str, token: str) -> FlaskClient:
    client = app.test_client()
    assert client.get(f"/games/{game_id}/admin?admin={token}").status_code == 303
    return client


def _seat_client(app: Flask, game_id: str, credential: str) -> FlaskClient:
    client = app.test_client()
    assert client.get(f"/games/{game_id}?{credential}").status_code == 303
    return client


# -- the administrator's page and API ---------------------------------------------------------


def test_the_admin_page_adds_shows_the_secret_once_and_removes(
    world: MailWorld, app: Flask, receiver: Receiver
) -> None:
    game = world.new_game()
    admin = _admin_client(app, game.id, game.admin_token)
    added = admin.post(
        f"/games/{game.id}/admin/webhooks", data={"url": receiver.url(), "form": "json"}
    )
    assert added.status_code == 200
    secret = re.search(r'id="webhook-secret">([0-9a-f]{64})<', added.text)
    assert secret is not None
    page = admin.get(f"/games/{game.id}/admin").text
    assert 'id="webhooks"' in page and "(json)" in page
    assert secret.group(1) not in page  # shown once, never again
    [(sub_id, address, game_id, status)] = _subs(world)
    assert (address, game_id, status) == (None, game.id, ACTIVE)
    removed = admin.post(f"/games/{game.id}/admin/webhooks/{sub_id}/remove")
    assert "Webhook" in removed.text and _subs(world) == []


def test_only_the_games_admin_may_add_a_game_webhook_on_the_page(
    world: MailWorld, app: Flask
) -> None:
    game, other = world.new_game(), world.new_game()
    asked = {"url": HOOK, "form": "discord"}
    # another game's administrator, a seat of this game, a visitor
    refused = [
        _admin_client(app, other.id, other.admin_token),
        _seat_client(app, game.id, f"token={game.seats[0].token}"),
        app.test_client(),
    ]
    for client in refused:
        assert client.post(f"/games/{game.id}/admin/webhooks", data=asked).status_code == 403
    # a cross-site form: the admin's browser, but no CSRF token (another site cannot read it)
    admin = _admin_client(app, game.id, game.admin_token)
    forged = FlaskClient.open(admin, f"/games/{game.id}/admin/webhooks", method="POST", data=asked)
    assert forged.status_code in (400, 403)
    assert _subs(world) == []


def test_the_admin_api_adds_lists_and_removes_and_refuses_other_tokens(
    world: MailWorld, app: Flask
) -> None:
    _strict(world)
    game, other = world.new_game(), world.new_game()
    client = app.test_client()
    path = f"/api/v1/games/{game.id}/admin/webhooks"

    def auth(token: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"}

    for token in (other.admin_token, game.seats[0].token, "nonsense"):
        refused = client.post(path, json={"url": HOOK}, headers=auth(token))
        assert refused.status_code == 403, refused.text
        assert client.get(path, headers=auth(token)).status_code == 403
    assert client.post(path, json={"url": HOOK}).status_code == 403
    bad = client.post(path, json={"url": "http://10.0.0.1/x"}, headers=auth(game.admin_token))
    assert bad.status_code == 400 and "https://" in bad.json["message"]
    added = client.post(path, json={"url": HOOK}, headers=auth(game.admin_token))
    assert added.status_code == 201
    assert added.json["form"] == "discord" and added.json["secret"] is None  # from the URL
    assert "secret-part" not in added.json["url"]  # the credential part is never shown again
    listed = client.get(path, headers=auth(game.admin_token)).json["webhooks"]
    assert [w["id"] for w in listed] == [added.json["id"]]
    gone = client.delete(f"{path}/{added.json['id']}", headers=auth(other.admin_token))
    assert gone.status_code == 403
    assert client.delete(f"{path}/{added.json['id']}", headers=auth(game.admin_token)).json == {
        "removed": added.json["id"]
    }
    assert _subs(world) == []


def test_a_game_has_at_most_max_per_game_webhooks(world: MailWorld) -> None:
    from pbem.core.errors import TooManyRequests

    game = world.new_game()
    for _ in range(world.settings.webhooks.max_per_game):
        world.service.add_game_webhook(game.id, game.admin_token, HOOK, None, "api")
    with pytest.raises(TooManyRequests):
        world.service.add_game_webhook(game.id, game.admin_token, HOOK, None, "api")


# -- a player's address: asked, then confirmed by the link mailed to it ------------------------


def test_the_seat_page_asks_and_only_the_mailed_link_confirms(world: MailWorld, app: Flask) -> None:
    game = world.new_game()
    seat = _seat_client(app, game.id, f"token={game.seats[1].token}")
    asked = seat.post(f"/games/{game.id}/webhooks", data={"url": HOOK, "form": ""})
    assert asked.status_code == 303
    [(sub_id, address, _, status)] = _subs(world)
    assert (address, status) == ("bob@example.com", WAITING)
    token = confirmation_token(world, "bob@example.com")
    [mail] = [m for m in world.outbox() if m.kind == "confirm"]
    assert "secret-part" not in mail_text(mail)  # the URL shortened in the mail too
    # The seat page opened with the creation token proves the seat, not the address: it
    # neither lists nor removes the address's webhooks.
    assert HOOK[:30] not in seat.get(f"/games/{game.id}").text
    assert seat.post(f"/games/{game.id}/webhooks/{sub_id}/remove").status_code == 400
    # Opening the link shows what it would do, and does nothing yet (a preview bot's GET).
    visitor = app.test_client()
    shown = visitor.get(f"/webhooks/confirm/{token}")
    assert shown.status_code == 200 and "bob@example.com" in shown.text
    assert _subs(world)[0][3] == WAITING
    assert visitor.post("/webhooks/confirm/not-the-token").status_code == 400
    confirmed = visitor.post(f"/webhooks/confirm/{token}")
    assert confirmed.status_code == 200 and "Webhook" in confirmed.text
    assert _subs(world)[0][3] == ACTIVE
    again = visitor.post(f"/webhooks/confirm/{token}")
    assert again.status_code == 400 and "already used" in again.text


def test_a_seat_opened_from_its_mail_lists_and_removes_its_addresses_webhooks(
    world: MailWorld, app: Flask
) -> None:
    game = world.new_game()
    sub_id, _ = subscribe_address(world, game.id, 0, HOOK, None)
    mail = [m for m in world.outbox(game.id) if m.seat == 0][-1]
    link = re.search(r"\?(link=[A-Za-z0-9._-]+)", mail_text(mail))
    assert link is not None
    alice = _seat_client(app, game.id, link.group(1))
    assert "discord.com/api/webh" in alice.get(f"/games/{game.id}").text
    # Bob's seat cannot remove Alice's address's webhook.
    bob_mail = [m for m in world.outbox(game.id) if m.seat == 1][-1]
    bob_link = re.search(r"\?(link=[A-Za-z0-9._-]+)", mail_text(bob_mail))
    assert bob_link is not None
    bob = _seat_client(app, game.id, bob_link.group(1))
    assert bob.post(f"/games/{game.id}/webhooks/{sub_id}/remove").status_code == 400
    assert _subs(world)[0][3] == ACTIVE
    assert alice.post(f"/games/{game.id}/webhooks/{sub_id}/remove").status_code == 303
    assert _subs(world) == []


def test_the_seat_api_only_asks_for_a_confirmation_mail(world: MailWorld, app: Flask) -> None:
    game, other = world.new_game(), world.new_game()
    client = app.test_client()
    path = f"/api/v1/games/{game.id}/webhooks"
    for token in (other.seats[0].token, other.admin_token):
        assert client.post(
            path, json={"url": HOOK}, headers={"Authorization": f"Bearer {token}"}
        ).status_code in (401, 403)
    asked = client.post(
        path, json={"url": HOOK}, headers={"Authorization": f"Bearer {game.seats[0].token}"}
    )
    assert asked.status_code == 202 and asked.json["status"] == "waiting"
    assert [s[3] for s in _subs(world)] == [WAITING]
    assert confirmation_token(world, "alice@example.com")


def test_the_mail_words_ask_list_and_remove_and_a_forged_mail_does_nothing(
    world: MailWorld,
) -> None:
    _strict(world)
    game = world.new_game()
    outcome, detail, answer = world.say(game.id, 1, f"webhook {HOOK} discord")
    assert outcome == "applied", detail
    assert "A link to confirm webhook" in mail_text(answer)
    token = confirmation_token(world, "bob@example.com")
    world.service.confirm_webhook(token)
    [(sub_id, address, _, status)] = _subs(world)
    assert (address, status) == ("bob@example.com", ACTIVE)
    _, _, listed = world.say(game.id, 1, "webhooks")
    assert f"{sub_id}: https://discord.com/api/webh" in mail_text(listed)
    # Forged mails: another sender with Bob's reply address (a forwarded mail), or without
    # it, in Bob's thread: neither is Bob's address's mail; nothing removed.
    latest = [m for m in world.outbox(game.id) if m.seat == 1][-1]
    inbound = build_inbound(world.service)
    for keep_token in (True, False):
        forged = inbound.receive(
            reply_to(
                latest,
                f"webhook remove {sub_id}",
                sender="mallory@evil.example",
                keep_token=keep_token,
            ),
            "webhook",
        )
        assert forged.outcome != "applied", forged
    assert _subs(world)[0][3] == ACTIVE
    # Alice cannot remove Bob's webhook by mail either.
    outcome, _, refused = world.say(game.id, 0, f"webhook remove {sub_id}")
    assert outcome != "applied" and "no webhook" in mail_text(refused)
    outcome, _, removed = world.say(game.id, 1, f"webhook remove {sub_id}")
    assert outcome == "applied" and "removed" in mail_text(removed)
    assert _subs(world) == []
    outcome, _, bad = world.say(game.id, 1, "webhook http://example.com/x")
    assert outcome != "applied" and "https://" in mail_text(bad)


def test_no_confirmation_goes_to_an_address_whose_invitation_waits(world: MailWorld) -> None:
    from pbem.core.errors import Conflict

    seats = [
        {"name": "Newcomer", "email": "new@example.com"},
        {"name": "Bob", "email": "bob@example.com"},
    ]
    world.welcome(seats[1:])
    game = world.service.create_game("lancelot", {}, seats, channel="api")
    with pytest.raises(Conflict, match="not accepted the invitation"):
        world.service.request_address_webhook(game.id, 0, HOOK, None, "api")
    assert [m for m in world.outbox() if m.kind == "confirm"] == [] and _subs(world) == []


def test_the_operator_lists_and_removes_webhooks(world: MailWorld) -> None:
    from tests.webhooks.test_delivery import _cli

    game = world.new_game()
    added = world.service.add_game_webhook(game.id, game.admin_token, HOOK, None, "api")
    listed = _cli(world, "webhook", "list")
    assert f"game {game.id}" in listed and "secret-part" not in listed
    assert "removed" in _cli(world, "webhook", "remove", str(added.subscription.id))
    assert _cli(world, "webhook", "list").strip() == "no webhook"
