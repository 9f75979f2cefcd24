"""The mail commands: pbem mail-in (an MTA pipe), pbem mail status/relay/dead/retry/rotate-key/
recover."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sqlalchemy import update
from sqlmodel import col, select

from pbem.app.bootstrap import build_inbound, build_service
from pbem.app.config import Settings
from pbem.cli.main import main
from pbem.core.db import Database
from pbem.mail.models import DEAD, OutboxMail
from tests.helpers import database_of
from tests.mail.helpers import reply_to
from tests.settings import build_settings


@pytest.fixture
def run(database_url: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    env = {
        "PBEM_DATABASE_URL": database_url,
        "PBEM_VAR_DIR": str(tmp_path / "var"),
        "PBEM_SECRET_KEY": "cli-test-secret-0123456789",
    }
    runner = CliRunner()

    def invoke(*args: str, input: bytes | None = None, **more_env: str) -> Result:
        return runner.invoke(
            main, list(args), env=env | more_env, input=input, catch_exceptions=False
        )

    return invoke


def _game(run, database_url: str) -> tuple[str, list[OutboxMail]]:  # type: ignore[no-untyped-def]
    result = run(
        "new-game", "lancelot", "--player", "Ann <ann@example.org>", "--player", "Bob <bob@x.org>"
    )
    assert result.exit_code == 0, result.output
    game_id = re.search(r"game (\w+) \(lancelot\)", result.output).group(1)  # type: ignore[union-attr]
    # New to the service, Ann and Bob get invitations first: each replies "accept".
    for invitation in _outbox(database_url, game_id):
        if invitation.kind == "invitation":
            accepted = run("mail-in", input=reply_to(invitation, "accept"))
            assert accepted.output == "applied: invitation accepted\n", accepted.output
    return game_id, _outbox(database_url, game_id)


def _outbox(database_url: str, game_id: str) -> list[OutboxMail]:
    db = Database(database_url)
    with db.read() as session:
        rows = list(session.exec(select(OutboxMail).where(OutboxMail.game_id == game_id)))
        session.expunge_all()
    db.dispose()
    return rows


def test_mail_in_applies_a_reply_once(run, database_url: str) -> None:  # type: ignore[no-untyped-def]
    game_id, mails = _game(run, database_url)
    turn = next(m for m in mails if m.kind == "turn")
    raw = reply_to(turn, "E5")
    first = run("mail-in", input=raw)
    assert first.exit_code == 0 and first.output == "applied: E5\n", first.output
    again = run("mail-in", input=raw)
    assert again.exit_code == 0 and "(duplicate)" in again.output
    log = run("log", game_id).output
    assert log.count("Ann (Red): E5 — Ann (Red) placed a knight on E5.  [email]") == 1


def test_relay_writes_eml_files_and_status_counts(  # type: ignore[no-untyped-def]
    run, database_url: str, tmp_path: Path
) -> None:
    _game(run, database_url)
    assert "pending" in run("mail", "status").output
    result = run("mail", "relay")
    assert re.search(r"sent \d+", result.output), result.output
    files = list((tmp_path / "var" / "mail").glob("*.eml"))
    assert len(files) >= 2
    assert "pending" not in run("mail", "status").output.split("\n")[0]


def test_dead_mail_is_listed_and_can_be_retried(run, database_url: str) -> None:  # type: ignore[no-untyped-def]
    _, mails = _game(run, database_url)
    db = Database(database_url)
    with db.write() as session:
        session.exec(
            update(OutboxMail)
            .where(col(OutboxMail.id) == mails[0].id)
            .values(status=DEAD, attempts=8, last_error="SMTP 451: try later")
        )
    db.dispose()
    listing = run("mail", "dead").output
    assert f"{mails[0].id:>6}" in listing and "SMTP 451: try later" in listing
    assert run("mail", "retry", str(mails[0].id)).output.startswith("1 mail(s)")
    assert run("mail", "dead").output.strip() == "no dead mail"


def test_rotating_a_key_revokes_the_old_reply_address(run, database_url: str) -> None:  # type: ignore[no-untyped-def]
    game_id, mails = _game(run, database_url)
    turn = next(m for m in mails if m.kind == "turn")
    rotated = run("mail", "rotate-key", game_id, str(turn.seat)).output
    assert "old reply addresses and page links refused" in rotated
    result = run("mail-in", input=reply_to(turn, "E5"))
    assert result.output.startswith("refused") and "revoked" in result.output
    for args in ((game_id, "7"), ("nosuchgame", "0")):
        unknown = run("mail", "rotate-key", *args)
        assert unknown.exit_code == 1 and "there is no seat" in unknown.output


def test_mail_in_refuses_oversized_input(run) -> None:  # type: ignore[no-untyped-def]
    result = run("mail-in", input=b"x" * 1_000_001)
    assert result.exit_code == 1


def test_mail_in_during_a_dead_workers_lease_is_queued_then_recovered(  # type: ignore[no-untyped-def]
    run, database_url: str, tmp_path: Path
) -> None:
    game_id, mails = _game(run, database_url)
    raw = reply_to(next(m for m in mails if m.kind == "turn"), "E5")
    # A worker stored and claimed the message (a 2 s lease), then died.
    settings = build_settings(
        database_url,
        tmp_path / "var",
        secret_key="cli-test-secret-0123456789",
        snapshot_every=Settings().snapshot_every,
        mail={"lease_seconds": 2},
    )
    service = build_service(settings)
    build_inbound(service).store(raw, "stdin", claim=True)
    database_of(service).dispose()
    started = time.monotonic()
    queued = run("mail-in", input=raw, PBEM_MAIL_LEASE_SECONDS="2")
    assert queued.exit_code == 0 and queued.output.startswith("queued: stored;"), queued.output
    recover = run("mail", "recover", PBEM_MAIL_LEASE_SECONDS="2")
    assert recover.output == "0 stranded inbound message(s) processed\n"
    time.sleep(max(0.0, 2.1 - (time.monotonic() - started)))
    status = run("mail", "status", PBEM_MAIL_LEASE_SECONDS="2").output
    assert "inbound past a dead worker's lease: 1\n" in status
    recover = run("mail", "recover", PBEM_MAIL_LEASE_SECONDS="2")
    assert recover.output == "1 stranded inbound message(s) processed\n"
    status = run("mail", "status", PBEM_MAIL_LEASE_SECONDS="2").output
    assert "inbound past a dead worker's lease: 0\n" in status
    log = run("log", game_id).output
    assert log.count("Ann (Red): E5 — Ann (Red) placed a knight on E5.  [email]") == 1
