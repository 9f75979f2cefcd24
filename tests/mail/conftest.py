"""Fixtures of the mail suite: a real SMTP server (aiosmtpd) and a real IMAP server (Dovecot)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlmodel import delete

from pbem.app.bootstrap import build_service
from pbem.core.db import Database
from pbem.core.time_source import ManualClock
from pbem.mail.models import Lease, OutboxMail
from tests.mail.helpers import MailWorld
from tests.mail.servers import DOVECOT, Dovecot, SmtpTestServer
from tests.settings import mail_settings


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


# -- a game service with the mail outbox --------------------------------------------------


@pytest.fixture
def world(database: Database, tmp_path: Path) -> MailWorld:
    """A service whose appends write mails, on this module's database (outbox emptied)."""
    with database.write() as session:
        session.exec(delete(OutboxMail))
        session.exec(delete(Lease))
    clock = ManualClock(datetime(2025, 6, 2, 9, 0, tzinfo=UTC))
    settings = mail_settings(database.url, tmp_path)
    service = build_service(settings, db=database, clock=clock)
    return MailWorld(database, settings, clock, service)
