"""SMTP sending against a real aiosmtpd server, and the mail folder transport."""

from __future__ import annotations

import os
import shutil
import ssl
import subprocess
from email import message_from_bytes, policy
from pathlib import Path

import pytest

from pbem.mail.outbound.headers import new_message
from pbem.mail.outbound.smtp import (
    FileTransport,
    PermanentSendError,
    SmtpTransport,
    TransientSendError,
    parse_smtp_url,
    transport_for,
)
from tests.mail.servers import SmtpTestServer, password_authenticator


def _mail(n: int = 1) -> bytes:
    return new_message(
        from_=("pbem", "games@pbem.example.org"),
        to=("Alice", "alice@example.com"),
        subject=f"mail {n}",
        message_id=f"pbem.test.{n}@pbem.example.org",
        text=f"body {n}\n",
    ).as_bytes()


def test_smtp_url_options_are_read() -> None:
    c = parse_smtp_url("smtp://us%40er:p%3Ass@mail.example.org:587?starttls=1&timeout=5")
    assert (c.host, c.port, c.username, c.password) == ("mail.example.org", 587, "us@er", "p:ss")
    assert c.starttls and not c.implicit_tls and c.timeout == 5.0
    s = parse_smtp_url("smtps://u:p@mail.example.org")
    assert s.implicit_tls and s.port == 465 and not s.starttls
    assert parse_smtp_url("smtp://localhost").port == 25
    with pytest.raises(ValueError, match="smtp://"):
        parse_smtp_url("http://x")
    with pytest.raises(ValueError, match="unknown SMTP URL options: tls"):
        parse_smtp_url("smtp://x?tls=1")


def test_the_description_never_shows_the_password() -> None:
    transport = SmtpTransport(parse_smtp_url("smtp://bob:hunter2@mx:587?starttls=1"))
    assert "hunter2" not in transport.description
    assert transport.description == "smtp+starttls://bob@mx:587"


def test_sends_to_a_real_smtp_server_with_login() -> None:
    server = SmtpTestServer(
        authenticator=password_authenticator({"relay": "s3cret"}), auth_require_tls=False
    )
    server.start()
    try:
        transport = transport_for(f"smtp://relay:s3cret@127.0.0.1:{server.port}", "unused")
        with transport.session() as session:
            session.send("games@pbem.example.org", ["alice@example.com"], _mail(1))
            session.send("games@pbem.example.org", ["alice@example.com"], _mail(2))
        got = server.messages()
        assert [r.authenticated_as for r in got] == ["relay", "relay"]
        assert [message_from_bytes(r.data, policy=policy.default)["Subject"] for r in got] == [
            "mail 1",
            "mail 2",
        ]
        assert got[0].rcpt_tos == ("alice@example.com",)
        bad = transport_for(f"smtp://relay:wrong@127.0.0.1:{server.port}", "unused")
        with pytest.raises(TransientSendError, match="refused our login"), bad.session():
            pass
    finally:
        server.stop()


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        reason = "the STARTTLS test makes its certificate with the openssl command"
        if os.environ.get("CI"):  # .ci/run installs openssl: in CI a skip would hide a gap
            pytest.fail(f"{reason}, which is missing")
        pytest.skip(reason)
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"),
            *("-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


def test_starttls_then_login(certificate: tuple[Path, Path]) -> None:
    cert, key = certificate
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    server = SmtpTestServer(
        tls_context=context,
        require_starttls=True,
        auth_require_tls=True,
        authenticator=password_authenticator({"relay": "s3cret"}),
    )
    server.start()
    try:
        url = f"smtp://relay:s3cret@127.0.0.1:{server.port}?starttls=1&cafile={cert}"
        with transport_for(url, "unused").session() as session:
            session.send("games@pbem.example.org", ["alice@example.com"], _mail())
        assert [r.authenticated_as for r in server.messages()] == ["relay"]
        # Without STARTTLS this server refuses to go on: a clear transient error.
        plain = f"smtp://relay:s3cret@127.0.0.1:{server.port}"
        with pytest.raises(TransientSendError), transport_for(plain, "unused").session() as s:
            s.send("games@pbem.example.org", ["alice@example.com"], _mail())
    finally:
        server.stop()


def test_refused_connections_and_4xx_are_transient_5xx_permanent(
    smtp_server: SmtpTestServer,
) -> None:
    transport = transport_for(smtp_server.url, "unused")
    smtp_server.refuse_connections()
    with pytest.raises(TransientSendError, match="cannot reach"), transport.session():
        pass
    smtp_server.answer_4xx()
    with pytest.raises(TransientSendError, match="451"), transport.session() as session:
        session.send("games@pbem.example.org", ["alice@example.com"], _mail())
    smtp_server.reject_recipients()
    with pytest.raises(PermanentSendError, match="550"), transport.session() as session:
        session.send("games@pbem.example.org", ["alice@example.com"], _mail())
    smtp_server.come_back()
    with transport.session() as session:
        session.send("games@pbem.example.org", ["alice@example.com"], _mail())
    assert len(smtp_server.messages()) == 1


def test_the_mail_folder_keeps_one_file_per_message_id(tmp_path: Path) -> None:
    transport = FileTransport(tmp_path / "mail")
    with transport.session() as session:
        session.send("games@pbem.example.org", ["alice@example.com"], _mail(1))
        session.send("games@pbem.example.org", ["alice@example.com"], _mail(1))  # a retry
        session.send("games@pbem.example.org", ["alice@example.com"], _mail(2))
    files = sorted(p.name for p in (tmp_path / "mail").iterdir())
    assert files == ["pbem.test.1_at_pbem.example.org.eml", "pbem.test.2_at_pbem.example.org.eml"]
    parsed = message_from_bytes((tmp_path / "mail" / files[0]).read_bytes(), policy=policy.default)
    assert parsed["Subject"] == "mail 1"
