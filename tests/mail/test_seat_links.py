"""The game page link in each mail opens that seat's page, where the reader can move; it is
signed per seat (and per purpose), and rotating the seat's key revokes it."""

from __future__ import annotations

import re
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from flask.testing import FlaskClient

from pbem.mail.models import OutboxMail
from pbem.mail.outbound.address import find_token
from pbem.mail.outbound.compose import rotate_key
from tests.form_client import FormClient
from tests.mail.helpers import MailWorld, plain_text
from web import create_app

# PostgreSQL under -m slow: a link's signature and its revocation by a rotated key are decided
# in Python.
pytestmark = pytest.mark.postgres_in_slow


def _text(mail: OutboxMail) -> str:
    message = message_from_bytes(mail.message, policy=policy.default)
    assert isinstance(message, EmailMessage)
    return plain_text(message)


def _link(mail: OutboxMail) -> str:
    match = re.search(r"Game page: (\S+)", _text(mail))
    assert match, _text(mail)
    return match.group(1)


def _path(link: str) -> str:
    parts = urlsplit(link)
    return f"{parts.path}?{parts.query}"


def _latest(world: MailWorld, game_id: str, seat: int) -> OutboxMail:
    return [m for m in world.outbox(game_id) if m.seat == seat][-1]


class _HttpsClient(FormClient):
    """The base URL is https, so the page's session cookie is Secure: browse over https."""

    def open(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("base_url", "https://localhost")
        return super().open(*args, **kwargs)


def _client(world: MailWorld) -> FlaskClient:
    app = create_app(world.settings, world.service)
    app.test_client_class = _HttpsClient
    return app.test_client()


def test_the_link_in_a_turn_mail_opens_the_seat_page_and_plays(world: MailWorld) -> None:
    client = _client(world)
    game = world.new_game()
    link = _link(_latest(world, game.id, 0))
    assert link.startswith(f"{world.settings.base_url}/games/{game.id}?link=")
    # The link is exchanged for a session cookie, and the page answers on the clean URL (a
    # relative address: never the Host header).
    opened = client.get(_path(link), headers={"Host": "attacker.example"})
    assert opened.status_code == 303
    assert opened.headers["Location"] == f"/games/{game.id}"
    page = client.get(_path(link), follow_redirects=True)  # on our own host this time
    text = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "You are <strong>Alice" in text and "Your turn" in text and 'value="D4"' in text
    posted = client.post(
        f"/games/{game.id}", data={"action": "E5", "expected_version": game.version}
    )
    assert posted.status_code == 303
    assert posted.headers["Location"] == f"/games/{game.id}"
    applied = world.service.raw_events(game.id)[-1]
    assert (applied.data["seat"], applied.data["canonical"], applied.data["channel"]) == (
        0,
        "E5",
        "web",
    )
    bob = _client(world)
    page = bob.get(_path(_link(_latest(world, game.id, 1))), follow_redirects=True)
    text = page.get_data(as_text=True)
    assert "You are <strong>Bob" in text and "Alice" in text and ": E5" in text


def test_a_damaged_foreign_or_reply_token_opens_nothing(world: MailWorld) -> None:
    client = _client(world)
    game, other = world.new_game(), world.new_game()
    mail = _latest(world, game.id, 0)
    token = parse_qs(urlsplit(_link(mail)).query)["link"][0]
    damaged = token[:-3] + ("a" if token[-3] != "a" else "b") + token[-2:]
    reply_to = message_from_bytes(mail.message, policy=policy.default)["Reply-To"]
    reply_token = find_token([reply_to.addresses[0].addr_spec], domain="reply.pbem.test")
    assert reply_token is not None
    cases = [
        f"/games/{game.id}?link={damaged}",
        f"/games/{other.id}?link={token}",  # a link of another game
        f"/games/{game.id}?link={reply_token}",  # a reply address is not a page link
        f"/games/{game.id}?link=not-base32!",
    ]
    for path in cases:
        page = client.get(path)
        text = page.get_data(as_text=True)
        assert page.status_code == 403, path
        assert "This page cannot be shown" in text and "Traceback" not in text, path
    assert client.get(f"/games/nosuchgame?link={token}").status_code == 404
    # Without a credential the game's page is its public view, and it cannot move.
    public = client.get(f"/games/{game.id}").get_data(as_text=True)
    assert "You are watching" in public and 'name="choice"' not in public
    posted = client.post(f"/games/{game.id}", data={"action": "E5", "expected_version": 2})
    assert posted.status_code == 403
    assert world.service.load(game.id).version == game.version


def test_rotating_the_seat_key_revokes_its_page_links(world: MailWorld) -> None:
    client = _client(world)
    game = world.new_game()
    old = _link(_latest(world, game.id, 0))
    bob = _link(_latest(world, game.id, 1))
    with world.db.write() as session:
        rotate_key(session, game.id, 0, world.clock.now())
    refused = client.get(_path(old))
    assert refused.status_code == 403 and "revoked" in refused.get_data(as_text=True)
    assert client.get(_path(bob)).status_code == 303  # the other seat's link still works
    # The next mail to the seat carries a link made with the new key.
    world.service.submit(game.id, 0, "E5", expected_version=game.version, channel="api")
    new = _link(_latest(world, game.id, 0))
    # (in a browser of its own: this one holds Bob's seat now, and would ask before changing)
    assert new != old and _client(world).get(_path(new)).status_code == 303
