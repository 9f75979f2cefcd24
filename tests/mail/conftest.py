"""Fixtures of the mail suite: a real SMTP server (aiosmtpd) and a real IMAP server (Dovecot)."""

from __future__ import annotations

import os
import shutil
import tempfile
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
def dovecot() -> Iterator[Dovecot]:
    if not os.path.exists(DOVECOT):
        reason = (
            f"the IMAP tests need Dovecot ({DOVECOT}); install it with "
            "'apt-get install dovecot-imapd' (.ci/run does)"
        )
        if _imap_required():
            pytest.fail(reason + " (PBEM_REQUIRE_IMAP=1, so this is a failure)")
        pytest.skip(reason)
    # Not pytest's tmp_path: Dovecot's unix sockets need a short path (~100 bytes at most),
    # and as root its unprivileged processes need to traverse the folder (tmp_path is 0700).
    folder = Path(tempfile.mkdtemp(prefix="pbem-dovecot-"))
    folder.chmod(0o755)
    server = Dovecot(folder)
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
