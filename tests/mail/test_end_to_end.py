"""End to end: a whole Lancelot game played only by e-mail replies posted to the webhook,
with every notification delivered to a real SMTP server (aiosmtpd)."""

from __future__ import annotations

import base64
import re
from email import message_from_bytes, policy
from email.message import EmailMessage

from flask.testing import FlaskClient

from pbem.mail.models import SENT
from pbem.mail.outbound.relay import Relay
from pbem.mail.outbound.smtp import transport_for
from tests.mail.helpers import MailWorld, plain_text, reply_to
from tests.mail.servers import SmtpTestServer
from web import create_app

SECRET = {"Authorization": "Bearer hook-secret"}


def _parse(raw: bytes) -> EmailMessage:
    message = message_from_bytes(raw, policy=policy.default)
    assert isinstance(message, EmailMessage)
    return message


class Inbox:
    """What each player received, read from the SMTP server."""

    def __init__(self, server: SmtpTestServer) -> None:
        self.server = server

    def mails(self, address: str, kind: str | None = None) -> list[bytes]:
        return [
            r.data
            for r in self.server.messages()
            if r.rcpt_tos == (address,) and (kind is None or _parse(r.data)["X-Pbem-Mail"] == kind)
        ]


def _first_example(raw: bytes) -> str:
    """The player picks the first move the mail offers ("You can type, for example: …")."""
    body = plain_text(_parse(raw))
    match = re.search(r"You can type, for example: ([^,…\n]+)", body)
    assert match, body
    return match.group(1).strip()


def _post(client: FlaskClient, raw: bytes) -> dict:  # type: ignore[type-arg]
    response = client.post("/inbound/email", data=raw, headers=SECRET)
    assert response.status_code == 200, response.json
    assert isinstance(response.json, dict)
    return response.json


def test_a_whole_game_by_email_through_the_webhook(
    world: MailWorld, smtp_server: SmtpTestServer
) -> None:
    client = create_app(world.settings, world.service).test_client()
    relay = Relay(world.db, world.settings, transport_for(smtp_server.url, ""), world.clock)
    inbox = Inbox(smtp_server)
    game = world.new_game(2, target=3)
    addresses = {0: "alice@example.com", 1: "bob@example.com"}
    checked_duplicate = checked_stale = False
    for _turn in range(200):
        relay.run_once()
        loaded = world.service.load(game.id)
        if loaded.finished:
            break
        (seat,) = loaded.to_act
        turn_mail = inbox.mails(addresses[seat], "turn")[-1]
        assert _parse(turn_mail)["X-Pbem-Version"] == str(loaded.version)
        move = _first_example(turn_mail)
        reply = reply_to(turn_mail, move)
        answer = _post(client, reply)
        assert answer["outcome"] == "applied", answer
        if not checked_duplicate:
            # The provider retries the same delivery: it applies once.
            again = _post(client, reply)
            assert again["duplicate"] is True and again["outcome"] == "applied"
            assert world.service.load(game.id).version == loaded.version + 1
            checked_duplicate = True
        elif not checked_stale and seat == 1:
            # Alice answers her turn mail again, now that Bob has moved since: refused, and
            # she is sent the fresh position.
            old = inbox.mails(addresses[0], "turn")[-1]
            refused = _post(client, reply_to(old, _first_example(old)))
            assert refused["outcome"] == "refused"
            relay.run_once()
            error_mail = _parse(inbox.mails(addresses[0], "error")[-1])
            error = plain_text(error_mail)
            assert "The position changed after the mail you answered" in error
            assert "What happened since (version" in error and "The position now:" in error
            # Its HTML part draws that position as the turn mails do, not as a text grid.
            html = error_mail.get_body(("html",))
            assert html is not None
            assert 'aria-label="The board"' in html.get_content()
            assert "<pre" not in html.get_content()
            checked_stale = True
    else:
        raise AssertionError("the game did not finish in 200 turns")
    relay.run_once()
    assert checked_duplicate and checked_stale
    for address in addresses.values():
        end = plain_text(_parse(inbox.mails(address, "end")[-1]))
        assert "the game is over" in end and "The seed was " in end
    # Every notification reached the SMTP server, exactly once, under its own Message-ID.
    rows = world.outbox()
    received = [_parse(r.data)["Message-ID"] for r in smtp_server.messages()]
    assert sorted(received) == sorted(f"<{r.message_id}>" for r in rows)
    assert {r.status for r in rows} == {SENT}
    applied = [e for e in world.service.raw_events(game.id) if e.type == "ActionApplied"]
    assert applied and all(e.data["channel"] == "email" for e in applied)


def test_the_webhook_needs_its_secret_and_a_message(world: MailWorld) -> None:
    client = create_app(world.settings, world.service).test_client()
    raw = b"From: a@example.com\r\nSubject: x\r\n\r\nE5\r\n"
    assert client.post("/inbound/email", data=raw).status_code == 401
    wrong = {"Authorization": "Bearer nope"}
    assert client.post("/inbound/email", data=raw, headers=wrong).status_code == 401
    empty = client.post("/inbound/email", data=b"  ", headers=SECRET)
    assert empty.status_code == 400 and "raw RFC 822" in empty.json["message"]
    big = b"x" * (world.settings.mail.max_inbound_bytes + 1)
    response = client.post("/inbound/email", data=big, headers=SECRET)
    assert response.status_code == 413
    assert str(world.settings.mail.max_inbound_bytes) in response.json["message"]
    form = client.post("/inbound/email", data={"body-mime": raw.decode()}, headers=SECRET)
    assert form.status_code == 200 and form.json["outcome"] == "refused"  # a stranger
    basic = {"Authorization": "Basic " + base64.b64encode(b"mailer:hook-secret").decode()}
    assert client.post("/inbound/email", data=raw, headers=basic).status_code == 200
    bad = {"Authorization": "Basic " + base64.b64encode(b"mailer:wrong").decode()}
    assert client.post("/inbound/email", data=raw, headers=bad).status_code == 401


def test_the_webhook_is_closed_without_a_secret(world: MailWorld) -> None:
    from tests.settings import with_mail

    settings = with_mail(world.settings, inbound_secret="")
    client = create_app(settings, world.service).test_client()
    response = client.post("/inbound/email", data=b"x", headers=SECRET)
    assert response.status_code == 404 and "PBEM_INBOUND_SECRET" in response.json["message"]


def test_a_held_reply_is_applied_by_the_button_behind_the_link(world: MailWorld) -> None:
    from tests.settings import with_mail

    settings = with_mail(world.settings, from_mismatch="hold")
    client = create_app(settings, world.service).test_client()
    game = world.new_game()
    turn = next(m for m in world.outbox(game.id) if m.kind == "turn")
    held = _post(client, reply_to(turn, "E5", sender="alice.phone@example.org"))
    assert held["outcome"] == "held"
    confirm = plain_text(_parse(world.outbox(game.id)[-1].message))
    link = next(w for w in confirm.split() if "/inbound/confirm/" in w)
    path = link.removeprefix("https://pbem.test")
    page = client.get(path)  # what a mail scanner following the link does: nothing
    assert page.status_code == 200 and "Yes, apply it" in page.get_data(as_text=True)
    assert world.service.load(game.id).version == game.version
    # Some scanners ask with HEAD, which the CSRF check lets by as a safe method: nothing.
    assert client.head(path).status_code == 200
    assert world.service.load(game.id).version == game.version
    done = client.post(path)
    assert done.status_code == 200 and "applied" in done.get_data(as_text=True)
    assert world.service.load(game.id).version == game.version + 1
    assert client.post(path[:-4] + "0000").status_code == 404
