"""/dev/mail: the local mail folder, and replies from the page through the inbound pipeline;
only in development, and never where other machines can reach it."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from flask import Flask

from pbem.app.bootstrap import mail_dir
from pbem.app.config import DEFAULT_CONFIG, Settings, load_settings
from pbem.mail.outbound.relay import Relay
from pbem.mail.outbound.smtp import FileTransport, eml_name
from tests.mail.helpers import MailWorld
from web import create_app
from web.pages.devmail import DevPagesRefused


def dev_app(world: MailWorld) -> Flask:
    """The app as ``make run`` builds it: development pages on, listening on loopback."""
    return create_app(world.settings.with_changes(dev_pages=True), world.service, host="127.0.0.1")


def test_a_move_can_be_played_from_the_local_mail_page(world: MailWorld) -> None:
    client = dev_app(world).test_client()
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
    client = dev_app(world).test_client()
    assert client.get("/dev/mail/..%2Fsecret_key").status_code == 404
    assert client.get("/dev/mail/nothing.eml").status_code == 404


def test_the_page_is_absent_without_dev_pages(world: MailWorld) -> None:
    settings = world.settings.with_changes(dev_pages=False)
    client = create_app(settings, world.service).test_client()
    assert client.get("/dev/mail").status_code == 404


def test_the_development_pages_are_off_by_default() -> None:
    assert Settings().dev_pages is False
    assert load_settings(DEFAULT_CONFIG, env={}).dev_pages is False
    assert (
        load_settings(Path(__file__).parents[2] / "config" / "test.toml", env={}).dev_pages is False
    )


@pytest.mark.parametrize("host", [None, "0.0.0.0", "::", "192.168.1.5", "pbem.example.org"])
def test_the_app_refuses_dev_pages_beyond_loopback(world: MailWorld, host: str | None) -> None:
    # None: a WSGI server (gunicorn) loaded the app and did not say where it listens.
    settings = world.settings.with_changes(dev_pages=True)
    with pytest.raises(DevPagesRefused, match="Refusing to start: dev_pages is on") as refused:
        create_app(settings, world.service, host=host)
    assert "dev_pages = false" in str(refused.value) and "make run" in str(refused.value)


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.1.1", "localhost", "::1"])
def test_the_app_has_dev_pages_on_loopback(world: MailWorld, host: str) -> None:
    app = create_app(world.settings.with_changes(dev_pages=True), world.service, host=host)
    assert app.test_client().get("/dev/mail").status_code == 200


@pytest.mark.parametrize(
    ("headers", "remote"),
    [
        ({"X-Forwarded-For": "203.0.113.9"}, "127.0.0.1"),
        ({"Forwarded": "for=203.0.113.9"}, "127.0.0.1"),
        ({}, "203.0.113.9"),
    ],
)
def test_the_pages_refuse_requests_from_elsewhere(
    world: MailWorld, headers: dict[str, str], remote: str
) -> None:
    # A reverse proxy on the same machine makes a loopback server reachable from anywhere.
    client = dev_app(world).test_client()
    for method, path in (("get", "/dev/mail"), ("post", "/dev/mail/x.eml/reply")):
        response = getattr(client, method)(
            path, headers=headers, environ_base={"REMOTE_ADDR": remote}
        )
        assert response.status_code == 403
        assert "only requests made on this machine" in response.get_data(as_text=True)


def test_gunicorn_refuses_to_start_with_dev_pages(tmp_path: Path) -> None:
    # Under gunicorn the app cannot know its bind (even a loopback one), so it fails closed.
    # (--preload loads the app once in the arbiter, as the workers would: the same
    # create_app call, in half the time.)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {
        **os.environ,
        "PBEM_DEV_PAGES": "true",
        "PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'pbem.db'}",
        "PBEM_VAR_DIR": str(tmp_path / "var"),
        "PBEM_MAIL_EMBEDDED_SCHEDULER": "false",
    }
    gunicorn = str(Path(sys.executable).with_name("gunicorn"))
    started = subprocess.run(
        [gunicorn, "--preload", "-w", "1", "-b", f"127.0.0.1:{port}", "web:create_app()"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert started.returncode != 0
    assert "Refusing to start: dev_pages is on" in started.stderr, started.stderr[-2000:]
    assert "gunicorn" in started.stderr and "dev_pages = false" in started.stderr
