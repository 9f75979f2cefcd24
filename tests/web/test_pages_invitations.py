"""/new mails each player their seat: a game created on the page with e-mail addresses makes
the relay deliver, through a real SMTP server (aiosmtpd), an invitation to each player (their
addresses never played here); each follows its link and accepts, and then gets one mail whose
"Game page" link opens that player's own seat (a 303 to the clean URL, then the seat's page).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from pbem.app.bootstrap import build_service
from pbem.app.service import GameService
from pbem.core.db import Database
from pbem.core.migrate import upgrade
from pbem.mail.outbound.relay import Relay
from pbem.mail.outbound.smtp import transport_for
from tests.form_client import FormClient
from tests.mail.helpers import plain_text
from tests.mail.servers import SmtpTestServer
from tests.settings import mail_settings
from web import create_app

PLAYERS = [("Ann", "ann@example.org"), ("Bob", "bob@example.org"), ("Cat", "cat@example.org")]


class _HttpsClient(FormClient):
    """The base URL is https, so the page's session cookie is Secure: browse over https."""

    def open(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("base_url", "https://localhost")
        return super().open(*args, **kwargs)


@pytest.fixture
def smtp_server() -> Iterator[SmtpTestServer]:
    server = SmtpTestServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def mailing(tmp_path: Path) -> Iterator[tuple[Database, Any, GameService]]:
    """A service whose new games write mails to the outbox, on its own SQLite database."""
    url = f"sqlite:///{tmp_path / 'pbem.db'}"
    db = Database(url)
    upgrade(db)
    settings = mail_settings(url, tmp_path)
    yield db, settings, build_service(settings, db=db)
    db.dispose()


def _parse(raw: bytes) -> EmailMessage:
    message = message_from_bytes(raw, policy=policy.default)
    assert isinstance(message, EmailMessage)
    return message


def test_a_game_created_on_new_mails_each_player_a_link_to_their_seat(
    mailing: tuple[Database, Any, GameService], smtp_server: SmtpTestServer
) -> None:
    db, settings, service = mailing
    app = create_app(settings, service)
    app.test_client_class = _HttpsClient
    organiser = app.test_client()
    form = {"game": "lancaster"}
    for i, (name, address) in enumerate(PLAYERS):
        form[f"name{i}"], form[f"email{i}"] = name, address
    made = organiser.post("/new", data=form)
    assert made.status_code == 200, made.get_data(as_text=True)
    game_id = re.findall(r"/games/(\w+)\?token=", made.get_data(as_text=True))[0]
    names = service.load(game_id).names
    created = made.get_data(as_text=True)
    assert all(f"<strong>{names.of(seat)}</strong>" in created for seat in range(len(PLAYERS)))
    # Opened at https://localhost while the links (and mails) use the configured base URL:
    # the organiser is told so.
    assert 'id="base-url-note"' in created and settings.base_url in created

    # The relay sends what the creation queued, to the real SMTP server: to addresses that
    # never played here, an invitation and nothing else.
    relay = Relay(db, settings, transport_for(smtp_server.url, ""))
    relay.run_once()
    invitations = smtp_server.messages()
    for seat, (_, address) in enumerate(PLAYERS):
        mails = [r for r in invitations if r.rcpt_tos == (address,)]
        assert len(mails) == 1, [r.rcpt_tos for r in invitations]
        invitation = _parse(mails[0].data)
        assert invitation["X-Pbem-Mail"] == "invitation"
        assert "Game page:" not in plain_text(invitation)
        # The player follows the invitation's link: a page that asks, then a button.
        accept = re.search(r"open this link: (\S+)", plain_text(invitation))
        assert accept, plain_text(invitation)
        link = urlsplit(accept.group(1))
        player = app.test_client()
        asked = player.get(f"{link.path}?{link.query}")
        assert asked.status_code == 200 and 'id="accept"' in asked.get_data(as_text=True)
        assert service.invitation_waiting(game_id, seat)  # opening the link accepts nothing
        token = link.query.removeprefix("link=")
        accepted = player.post(link.path, data={"link": token})
        assert accepted.status_code == 303
        assert accepted.headers["Location"].startswith(f"{settings.base_url}/games/{game_id}?")
        assert not service.invitation_waiting(game_id, seat)

    # Having accepted, each player gets the game as it stands.
    relay.run_once()
    received = smtp_server.messages()[len(invitations) :]
    for seat, (name, address) in enumerate(PLAYERS):
        mails = [r for r in received if r.rcpt_tos == (address,)]
        assert len(mails) == 1, [r.rcpt_tos for r in received]
        text = plain_text(_parse(mails[0].data))
        match = re.search(r"Game page: (\S+)", text)
        assert match, text
        link = urlsplit(match.group(1))
        assert f"{link.scheme}://{link.netloc}" == settings.base_url
        assert link.path == f"/games/{game_id}" and link.query.startswith("link=")

        # Each player in a browser of their own: the link becomes a cookie on the clean URL,
        # and the page there is that player's seat, named as the mails name it.
        player = app.test_client()
        opened = player.get(f"{link.path}?{link.query}")
        assert opened.status_code == 303
        assert opened.headers["Location"] == f"/games/{game_id}"
        page = player.get(opened.headers["Location"]).get_data(as_text=True)
        colour = service.load(game_id).names.label(seat)
        assert colour and colour in text  # the mail names the player's colour too
        assert f"You are <strong>{name} ({colour})</strong>" in page
        others = [n for i, (n, _) in enumerate(PLAYERS) if i != seat]
        assert not any(f"You are <strong>{n}" in page for n in others)

    # Now that they have played, a new game on /new mails them the game, not an invitation,
    # and the page says which mail went.
    again = organiser.post("/new", data=form).get_data(as_text=True)
    assert "invitation mailed to ann@example.org" in created
    assert "invitation mailed to" not in again
    assert "game mail sent to ann@example.org" in again
