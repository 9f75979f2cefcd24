"""Each kind of mail through a real SMTP server (aiosmtpd), parsed back as a mail program
parses it: both parts there, their charset and transfer encoding right, no line over the
998 octets RFC 5322 allows; and a move sent from a mail's ``mailto:`` link — a new mail, no
In-Reply-To, the subject "Re: …", the move and a signature — applied through ``pbem mail-in``
and through the inbound pipeline, as any reply."""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from click.testing import CliRunner, Result
from sqlmodel import select

from pbem.app.bootstrap import build_inbound
from pbem.cli.main import main
from pbem.core.db import Database
from pbem.mail.models import OutboxMail
from pbem.mail.outbound.relay import Relay
from pbem.mail.outbound.smtp import transport_for
from tests.mail.helpers import MailWorld, reply_to
from tests.mail.mail_kinds import KINDS, each_kind
from tests.mail.servers import SmtpTestServer

#: RFC 5322 2.1.1: a line is at most 998 octets (the CRLF aside).
MAX_LINE = 998


def test_each_kind_of_mail_reads_back_whole_from_a_real_smtp_server(
    world: MailWorld, smtp_server: SmtpTestServer
) -> None:
    mails = each_kind(world)
    relay = Relay(world.db, world.settings, transport_for(smtp_server.url, ""), world.clock, "r")
    while relay.run_once().sent:
        pass
    received = {r.data: r for r in smtp_server.messages()}
    for kind in KINDS:
        sent = mails[kind]
        data = next((d for d in received if sent.message_id.encode() in d), None)
        assert data is not None, f"the {kind} mail did not arrive"
        for line in data.split(b"\r\n"):
            assert len(line) <= MAX_LINE, (kind, len(line))
        message = message_from_bytes(data, policy=policy.default)
        assert isinstance(message, EmailMessage)
        assert message.get_content_type() == "multipart/alternative", kind
        assert message["MIME-Version"] == "1.0"
        parts = list(message.iter_parts())
        assert [p.get_content_type() for p in parts] == ["text/plain", "text/html"], kind
        for part in parts:
            assert part.get_content_charset() == "utf-8", kind
            encoding = part["Content-Transfer-Encoding"]
            assert encoding in {"7bit", "8bit", "quoted-printable", "base64"}, (kind, encoding)
            if encoding == "7bit":
                assert part.get_payload(decode=True).isascii()  # type: ignore[union-attr]
        text, html = (p.get_content() for p in parts)
        # What the relay sent is what the outbox held, decoded alike.
        stored = message_from_bytes(sent.message, policy=policy.default)
        assert isinstance(stored, EmailMessage)
        assert [p.get_content() for p in stored.iter_parts()] == [text, html], kind
        assert html.lstrip().startswith("<!DOCTYPE html>") and "</html>" in html, kind
        assert "\ufffd" not in text + html, kind  # nothing lost in decoding
    # Non-ASCII text (the "since your last move" lines' dashes) arrives as written.
    turn = message_from_bytes(mails["deadline"].message, policy=policy.default)
    assert isinstance(turn, EmailMessage)
    assert "—" in str(turn.get_body(("plain",)).get_content())  # type: ignore[union-attr]


def _mailto_of(mail: bytes, move: str) -> tuple[str, str, str]:
    """(address, subject, body) of the HTML part's ready reply for ``move``: what a mail
    program opens when the player taps it."""
    message = message_from_bytes(mail, policy=policy.default)
    assert isinstance(message, EmailMessage)
    html = message.get_body(("html",))
    assert html is not None
    for href in re.findall(r'href="(mailto:[^"]+)"', html.get_content()):
        parts = urlsplit(href.replace("&amp;", "&"))
        query = parse_qs(parts.query)
        if query["body"] == [move]:
            return unquote(parts.path), query["subject"][0], query["body"][0]
    raise AssertionError(f"no ready reply for {move!r}")


def _written_from_link(
    sender: str, address: str, subject: str, body: str, *, html: bool = False
) -> bytes:
    """A new mail as a mail program writes it from a ``mailto:`` link: no In-Reply-To, no
    References, the body the move with the player's signature below (and, like Gmail's
    composer, an HTML alternative when ``html``)."""
    message = EmailMessage(policy=policy.SMTP)
    message["From"] = sender
    message["To"] = address
    message["Subject"] = subject
    message["Message-ID"] = f"<tap.{secrets.token_hex(6)}@phone.example>"
    message["Date"] = format_datetime(datetime.now(UTC))
    message.set_content(f"{body}\n\n-- \nAnn\nSent from my phone\n")
    if html:
        message.add_alternative(f"<div>{body}</div><br><div>-- <br>Ann</div>", subtype="html")
    return message.as_bytes()


@pytest.fixture
def run(database_url: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    env = {
        "PBEM_DATABASE_URL": database_url,
        "PBEM_VAR_DIR": str(tmp_path / "var"),
        "PBEM_SECRET_KEY": "cli-test-secret-0123456789",
    }
    runner = CliRunner()

    def invoke(*args: str, input: bytes | None = None) -> Result:
        return runner.invoke(main, list(args), env=env, input=input, catch_exceptions=False)

    return invoke


def _outbox(database_url: str, game_id: str) -> list[OutboxMail]:
    db = Database(database_url)
    with db.read() as session:
        rows = list(session.exec(select(OutboxMail).where(OutboxMail.game_id == game_id)))
        session.expunge_all()
    db.dispose()
    return rows


def test_a_move_tapped_in_a_turn_mail_is_applied_by_mail_in(run, database_url: str) -> None:  # type: ignore[no-untyped-def]
    ann, bob = f"ann.{secrets.token_hex(3)}@example.org", f"bob.{secrets.token_hex(3)}@x.org"
    created = run("new-game", "lancelot", "--player", f"Ann <{ann}>", "--player", f"Bob <{bob}>")
    assert created.exit_code == 0, created.output
    game_id = re.search(r"game (\w+) \(lancelot\)", created.output).group(1)  # type: ignore[union-attr]
    for invitation in _outbox(database_url, game_id):
        if invitation.kind == "invitation":
            assert run("mail-in", input=reply_to(invitation, "accept")).exit_code == 0
    turn = next(m for m in _outbox(database_url, game_id) if m.kind == "turn")
    # G8: one of the centre squares the opening offers (pbem.play.quick_moves)
    address, subject, body = _mailto_of(turn.message, "G8")
    assert subject.startswith("Re: [pbem] Lancelot game")
    result = run("mail-in", input=_written_from_link(f"Ann <{ann}>", address, subject, body))
    assert result.exit_code == 0 and result.output == "applied: G8\n", result.output
    log = run("log", game_id).output
    assert "Ann (Red): G8 — Ann (Red) placed a knight on G8.  [email]" in log, log


def test_a_move_tapped_from_a_composer_writing_html_too_is_applied(world: MailWorld) -> None:
    game = world.new_game()
    turn = next(m for m in world.outbox(game.id) if m.kind == "turn")
    address, subject, body = _mailto_of(turn.message, "G7")
    raw = _written_from_link("Alice <alice@example.com>", address, subject, body, html=True)
    result = build_inbound(world.service).receive(raw, "webhook")
    assert (result.outcome, result.detail) == ("applied", "G7"), result.detail
    assert world.service.load(game.id).version == game.version + 1
