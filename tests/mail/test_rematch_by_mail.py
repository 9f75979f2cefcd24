"""A rematch by mail, on SQLite and PostgreSQL, every mail delivered to a real SMTP server
(aiosmtpd) and every reply posted to the inbound webhook: ``rematch`` is refused while the
game is played; the final mail offers it and can be answered; ``rematch same seats``
proposes, ``rematch no`` declines (every seat told), ``rematch`` proposes again and the
other's ``rematch`` agrees; the new game starts with no invitation, each seat's first mail
saying which game it is a rematch of; a forged reply changes nothing."""

from __future__ import annotations

from email import message_from_bytes, policy
from email.message import EmailMessage

from flask.testing import FlaskClient

from pbem.mail.outbound.relay import Relay
from pbem.mail.outbound.smtp import transport_for
from pbem.rematch import events as re
from tests.mail.helpers import MailWorld, plain_text, reply_to
from tests.mail.servers import SmtpTestServer
from web import create_app

SECRET = {"Authorization": "Bearer hook-secret"}
ALICE, BOB = "alice@example.com", "bob@example.com"


def _parse(raw: bytes) -> EmailMessage:
    message = message_from_bytes(raw, policy=policy.default)
    assert isinstance(message, EmailMessage)
    return message


class Inbox:
    def __init__(self, server: SmtpTestServer) -> None:
        self.server = server

    def mails(self, address: str, kind: str | None = None, game: str | None = None) -> list[bytes]:
        found = []
        for r in self.server.messages():
            message = _parse(r.data)
            if r.rcpt_tos != (address,) or (kind is not None and message["X-Pbem-Mail"] != kind):
                continue
            if game is not None and message["X-Pbem-Game"] != game:
                continue
            found.append(r.data)
        return found


def _post(client: FlaskClient, raw: bytes) -> dict:  # type: ignore[type-arg]
    response = client.post("/inbound/email", data=raw, headers=SECRET)
    assert response.status_code == 200, response.json
    assert isinstance(response.json, dict)
    return response.json


def test_a_rematch_by_mail_is_refused_in_play_proposed_declined_agreed_and_started(
    world: MailWorld, smtp_server: SmtpTestServer
) -> None:
    client = create_app(world.settings, world.service).test_client()
    relay = Relay(world.db, world.settings, transport_for(smtp_server.url, ""), world.clock)
    inbox = Inbox(smtp_server)
    svc = world.service
    game = world.new_game(2, target=1)
    gid = game.id
    relay.run_once()

    # While the game is played, 'rematch' is no move: refused with a clear answer.
    (seat,) = svc.load(gid).to_act
    address = (ALICE, BOB)[seat]
    version = svc.load(gid).version
    refused = _post(client, reply_to(inbox.mails(address, "turn")[-1], "rematch"))
    assert refused["outcome"] == "refused"
    relay.run_once()
    error = plain_text(_parse(inbox.mails(address, "error")[-1]))
    assert "The game is not over: a rematch can be proposed once it has ended" in error
    assert svc.load(gid).version == version

    while not (loaded := svc.load(gid)).finished:
        (seat,) = loaded.to_act
        svc.submit(gid, seat, loaded.legal(seat)[0], expected_version=loaded.version, channel="api")
    relay.run_once()
    end = inbox.mails(ALICE, "end", gid)[-1]
    assert _parse(end)["Reply-To"] is not None  # the final mail can be answered
    assert "reply 'rematch'" in plain_text(_parse(end))

    # A reply whose address lost its token, from someone else: nothing is proposed.
    forged = reply_to(end, "rematch", sender="mallory@example.net", keep_token=False)
    assert _post(client, forged)["outcome"] != "applied"
    assert svc.rematch_status(gid) is None

    proposed = _post(client, reply_to(end, "rematch same seats"))
    assert proposed["outcome"] == "applied", proposed
    relay.run_once()
    told = plain_text(_parse(inbox.mails(BOB, "notice", gid)[-1]))
    assert "Alice (Red) proposes a rematch (same seats)." in told
    assert "Reply 'rematch' to agree, or 'rematch no' to decline" in told
    assert "You agreed. Waiting for: Bob" in plain_text(
        _parse(inbox.mails(ALICE, "notice", gid)[-1])
    )

    bob_end = inbox.mails(BOB, "end", gid)[-1]
    assert _post(client, reply_to(bob_end, "rematch no"))["outcome"] == "applied"
    relay.run_once()
    assert "no rematch: Bob (Blue) declined it." in plain_text(
        _parse(inbox.mails(ALICE, "notice", gid)[-1])
    )
    # Alice proposes again (rotated), Bob agrees with 'rematch': it starts.
    notice = inbox.mails(ALICE, "notice", gid)[-1]
    assert _post(client, reply_to(notice, "Rematch!"))["outcome"] == "applied"
    relay.run_once()
    answered = _post(client, reply_to(inbox.mails(BOB, "notice", gid)[-1], "rematch"))
    assert answered["outcome"] == "applied"
    started = [e.payload for e in svc.raw_events(gid) if isinstance(e.payload, re.RematchStarted)]
    assert len(started) == 1
    new = started[0].game_id
    assert new in answered["detail"]
    relay.run_once()
    for address in (ALICE, BOB):
        news = plain_text(_parse(inbox.mails(address, "notice", gid)[-1]))
        assert f"the rematch has started: game {new}." in news
        # Both have played: the new game invites nobody, each gets its first mail.
        assert not inbox.mails(address, "invitation", new)
        first = inbox.mails(address, None, new)
        assert first, address
        assert f"A rematch of game {gid} (seats rotated by one)" in plain_text(_parse(first[0]))
    # Rotated: Bob, the old second seat, is the new game's first.
    assert [s.name for s in svc.load(new).seats] == ["Bob", "Alice"]
    # The same reply delivered again applies once.
    again = _post(client, reply_to(inbox.mails(BOB, "notice", gid)[-2], "rematch"))
    assert (
        again["outcome"] != "applied"
        or again.get("duplicate")
        or "already" in again["detail"]
        or "started" in again["detail"]
    )
    assert len([e for e in svc.raw_events(gid) if e.type == re.REMATCH_STARTED]) == 1


def test_the_rematch_lines_are_read_as_its_words_and_never_as_moves(world: MailWorld) -> None:
    from pbem.app.bootstrap import reply_words

    words = reply_words(world.service)
    for line in ("rematch", "Rematch!", "rematch same seats", "rematch: rotate", "rematch no"):
        assert words.read(line) == "rematch", line
    assert words.read("No rematch.") == "no rematch"
    assert words.read("E5") is None and words.read("I want a rematch") is None
