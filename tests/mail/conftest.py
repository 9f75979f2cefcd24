"""Fixtures of the mail suite: a real SMTP server (aiosmtpd) and a real IMAP server (Dovecot)."""

from __future__ import annotations

import dataclasses
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlmodel import col, delete, select

from pbem.clock import ManualClock
from pbem.db import Database
from pbem.games import Created, GameService
from pbem.mail.models import Lease, OutboxMail
from pbem.mail.outbox import OutboxListener
from pbem.settings import MailSettings, Settings
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


# -- a game service with the mail outbox --------------------------------------------------


@dataclass
class MailWorld:
    db: Database
    settings: Settings
    clock: ManualClock
    service: GameService

    def outbox(self, game_id: str | None = None) -> list[OutboxMail]:
        with self.db.read() as session:
            query = select(OutboxMail).order_by(col(OutboxMail.id))
            if game_id is not None:
                query = query.where(OutboxMail.game_id == game_id)
            rows = list(session.exec(query))
            session.expunge_all()  # keep them readable after the read's rollback
            return rows

    def new_game(self, players: int = 2, **config: object) -> Created:
        names = ["Alice", "Bob", "Carol", "Dave", "Erin"][:players]
        return self.service.create_game(
            "lancelot",
            {"players": players, **config},
            [{"name": n, "email": f"{n.lower()}@example.com"} for n in names],
            channel="api",
        )


def with_mail(settings: Settings, **changes: object) -> Settings:
    return settings.with_changes(mail=dataclasses.replace(settings.mail, **changes))


def mail_settings(database_url: str, var_dir: Path, **mail: object) -> Settings:
    return Settings(
        database_url=database_url,
        base_url="https://pbem.test",
        secret_key="test-only-secret-for-the-mail-suite",
        var_dir=str(var_dir),
        snapshot_every=5,
        mail=dataclasses.replace(
            MailSettings(
                from_address="games@pbem.test",
                from_name="Lancelot by mail",
                reply_domain="reply.pbem.test",
                inbound_secret="hook-secret",
                backoff_base=30,
                backoff_cap=600,
                max_attempts=5,
            ),
            **mail,
        ),
    )


@pytest.fixture
def world(database: Database, tmp_path: Path) -> MailWorld:
    """A service whose appends write mails, on this module's database (outbox emptied)."""
    with database.write() as session:
        session.exec(delete(OutboxMail))
        session.exec(delete(Lease))
    clock = ManualClock(datetime(2025, 6, 2, 9, 0, tzinfo=UTC))
    settings = mail_settings(database.url, tmp_path)
    service = GameService(database, settings, clock, listeners=[OutboxListener(settings, clock)])
    return MailWorld(database, settings, clock, service)


def reply_to(
    mail: OutboxMail | bytes,
    body: str,
    *,
    sender: str | None = None,
    message_id: str | None = None,
    keep_token: bool = True,
) -> bytes:
    """A plain-text reply to one of our mails (an outbox row, or the raw mail as received),
    as a mail client would write it: the commands on top, then the attribution and the
    quoted mail."""
    raw = mail if isinstance(mail, bytes) else mail.message
    original = message_from_bytes(raw, policy=policy.default)
    assert isinstance(original, EmailMessage)
    own_id = str(original["Message-ID"]).strip("<>")
    recipient = original["To"].addresses[0].addr_spec
    to = original["Reply-To"].addresses[0].addr_spec if original["Reply-To"] else ""
    if not keep_token:
        to = "play@" + to.rpartition("@")[2]
    quoted = "\n".join("> " + line for line in original.get_content().splitlines())
    ident = message_id or f"reply.{secrets.token_hex(6)}@client.example"
    return (
        f"From: Player <{sender or recipient}>\r\n"
        f"To: {to}\r\n"
        f"Subject: Re: {original['Subject']}\r\n"
        f"Message-ID: <{ident}>\r\n"
        f"In-Reply-To: <{own_id}>\r\n"
        f"References: {original['References']} <{own_id}>\r\n"
        "MIME-Version: 1.0\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
        "\r\n"
        f"{body}\r\n\r\nOn Mon, 2 Jun 2025 at 09:00, pbem wrote:\r\n{quoted}\r\n"
    ).encode()
