"""/dev/mail: the local mail folder, and replies from the page through the inbound pipeline."""

from __future__ import annotations

import re
from pathlib import Path

from pbem.bootstrap import mail_dir
from pbem.mail.outbox import Relay
from pbem.mail.smtp import FileTransport, eml_name
from tests.mail.helpers import MailWorld, with_mail
from web import create_app


def test_a_move_can_be_played_from_the_local_mail_page(world: MailWorld) -> None:
    client = create_app(world.settings, world.service).test_client()
    game = world.new_game()
    folder = Path(mail_dir(world.settings))
    Relay(world.db, world.settings, FileTransport(folder), world.clock).run_once()
    listing = client.get("/dev/mail").get_data(as_text=True)
    names = re.findall(r'href="/dev/mail/([^"]+\.eml)"', listing)
    assert len(names) == 2
    turn_row = next(m for m in world.outbox(game.id) if m.kind == "turn")
    turn = eml_name(turn_row.message_id)
    assert turn in names
    page = client.get(f"/dev/mail/{turn}").get_data(as_text=True)
    assert "Reply-To: Lancelot by mail &lt;play+" in page  # escaped, with the reply address
    assert "\r" not in page  # the page link's line ends with the address, not a CR
    response = client.post(f"/dev/mail/{turn}/reply", data={"text": "E5"})
    assert response.status_code == 302
    assert "applied" in client.get(response.headers["Location"]).get_data(as_text=True)
    assert world.service.raw_events(game.id)[-1].data["channel"] == "email"
    assert len(list(folder.glob("*.eml"))) == 4  # the confirmation and Bob's turn, sent at once


def test_the_page_refuses_paths_outside_the_folder(world: MailWorld) -> None:
    client = create_app(world.settings, world.service).test_client()
    assert client.get("/dev/mail/..%2Fsecret_key").status_code == 404
    assert client.get("/dev/mail/nothing.eml").status_code == 404


def test_the_page_is_absent_without_dev_pages(world: MailWorld) -> None:
    settings = with_mail(world.settings).with_changes(dev_pages=False)
    client = create_app(settings, world.service).test_client()
    assert client.get("/dev/mail").status_code == 404
