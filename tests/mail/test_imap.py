"""The IMAP door against a real Dovecot: each message is handed over once it is stored."""

from __future__ import annotations

import pytest
from imapclient import IMAPClient

from pbem.mail.inbound.imap import parse_imap_url, poll
from tests.mail.servers import Dovecot


def _deliver(server: Dovecot, *messages: bytes) -> None:
    with IMAPClient("127.0.0.1", port=server.port, ssl=False) as client:
        client.login(server.user, server.password)
        for raw in messages:
            client.append("INBOX", raw)


def _raw(n: int) -> bytes:
    return f"From: a@example.com\r\nMessage-ID: <m{n}@example.com>\r\n\r\nE{n}\r\n".encode()


def test_imap_url_is_read() -> None:
    c = parse_imap_url("imaps://me%40x.org:p%2Fw@imap.example.org/Games%20In")
    assert (c.host, c.port, c.username, c.password, c.path) == (
        "imap.example.org",
        993,
        "me@x.org",
        "p/w",
        "Games In",
    )
    assert parse_imap_url("imap://u:p@h?starttls=1").starttls
    with pytest.raises(ValueError, match="user and a host"):
        parse_imap_url("imaps://host")


def test_poll_hands_over_each_message_once(dovecot: Dovecot) -> None:
    _deliver(dovecot, _raw(1), _raw(2), _raw(3))
    config = parse_imap_url(dovecot.url)
    seen: list[bytes] = []
    assert poll(config, seen.append) == 3
    assert [b"E1" in r for r in seen] == [True, False, False]
    assert sorted(r.split(b"\r\n\r\n")[1] for r in seen) == [b"E1\r\n", b"E2\r\n", b"E3\r\n"]
    assert poll(config, seen.append) == 0
    _deliver(dovecot, _raw(4))
    assert poll(config, seen.append) == 1
    assert len(seen) == 4


def test_a_message_that_could_not_be_stored_comes_back(dovecot: Dovecot) -> None:
    _deliver(dovecot, _raw(1), _raw(2))
    config = parse_imap_url(dovecot.url)

    def flaky(raw: bytes) -> None:
        if b"E2" in raw:
            raise RuntimeError("database is down")

    with pytest.raises(RuntimeError):
        poll(config, flaky)
    got: list[bytes] = []
    assert poll(config, got.append) == 1
    assert b"E2" in got[0]


def test_oversized_messages_are_skipped_without_fetching(dovecot: Dovecot) -> None:
    _deliver(dovecot, _raw(1), _raw(2) + b"x" * 5000)
    got: list[bytes] = []
    assert poll(parse_imap_url(dovecot.url), got.append, max_bytes=1000) == 1
    assert b"E1" in got[0]
    assert poll(parse_imap_url(dovecot.url), got.append) == 0
