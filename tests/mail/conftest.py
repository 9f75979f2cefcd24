"""Fixtures of the mail suite: a real SMTP server (aiosmtpd) and a real IMAP server (Dovecot)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mail.servers import DOVECOT, Dovecot, SmtpTestServer


@pytest.fixture
def smtp_server() -> Iterator[SmtpTestServer]:
    server = SmtpTestServer()
    server.start()
    yield server
    server.stop()


def _imap_required() -> bool:
    return os.environ.get("PBEM_REQUIRE_IMAP", "") not in {"", "0", "false", "no"}


@pytest.fixture
def dovecot(tmp_path: Path) -> Iterator[Dovecot]:
    if not os.path.exists(DOVECOT):
        reason = (
            f"the IMAP tests need Dovecot ({DOVECOT}); install it with "
            "'apt-get install dovecot-imapd' (.ci/run does)"
        )
        if _imap_required():
            pytest.fail(reason + " (PBEM_REQUIRE_IMAP=1, so this is a failure)")
        pytest.skip(reason)
    # A short path: Dovecot's unix sockets live under base_dir (the limit is ~100 bytes).
    server = Dovecot(tmp_path / "dv")
    server.start()
    yield server
    server.stop()
