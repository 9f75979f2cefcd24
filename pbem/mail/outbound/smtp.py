"""Sending mail: over SMTP (``PBEM_SMTP_URL``) or into a folder of ``.eml`` files.

``smtp://user:pass@host:587?starttls=1`` sends with STARTTLS and login; ``smtps://`` uses TLS
from the first byte (port 465); ``smtp://host:25`` sends in the clear without login (a local
MTA). Query options: ``starttls=0|1``, ``timeout=<seconds>``, ``cafile=<path>`` (a CA bundle
to trust instead of the system's, e.g. for a relay with a private CA).

A transport opens a session (one connection for a batch of mails) whose ``send`` raises
:class:`TransientSendError` when trying again later may work (connection refused, timeout,
4xx) and :class:`PermanentSendError` when it will not (5xx for this recipient or message).
"""

from __future__ import annotations

import functools
import os
import re
import smtplib
import socket
import ssl
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Protocol

from pbem.mail.urls import ServerUrl, parse_server_url


class SendError(Exception):
    """Sending failed; ``permanent`` says whether retrying is pointless, ``refused`` lists
    recipients the server refused (their addresses are failing)."""

    permanent = False

    def __init__(self, message: str, refused: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.refused = tuple(refused)


class TransientSendError(SendError):
    pass


class PermanentSendError(SendError):
    permanent = True


class Session(Protocol):
    def send(self, envelope_from: str, recipients: Sequence[str], message: bytes) -> None: ...


class Transport(Protocol):
    #: a short description for logs and the CLI (never contains the password)
    description: str

    def session(self) -> AbstractContextManager[Session]: ...


SmtpConfig = ServerUrl


def parse_smtp_url(url: str) -> SmtpConfig:
    """Read ``smtp[s]://[user[:pass]@]host[:port][?starttls=1&timeout=30&cafile=...]``."""
    return parse_server_url(url, "smtp", (25, 465), "smtp://user:pass@host:587?starttls=1")


def _text(reply: bytes | str) -> str:
    return reply.decode(errors="replace") if isinstance(reply, bytes) else str(reply)


def _classify(error: Exception) -> SendError:
    """Map smtplib's errors onto transient (retry) and permanent (dead letter)."""
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        codes = [code for code, _ in error.recipients.values()]
        detail = "; ".join(f"{r}: {c} {_text(m)}" for r, (c, m) in error.recipients.items())
        cls = PermanentSendError if codes and all(c >= 500 for c in codes) else TransientSendError
        return cls(f"recipient refused: {detail}", refused=list(error.recipients))
    if isinstance(error, smtplib.SMTPAuthenticationError):
        # Our configuration, not the message: retry (and dead-letter if it stays wrong).
        return TransientSendError(
            f"the SMTP server refused our login ({error.smtp_code}); check PBEM_SMTP_URL"
        )
    if isinstance(error, smtplib.SMTPResponseException):
        cls = PermanentSendError if 500 <= error.smtp_code < 600 else TransientSendError
        return cls(f"SMTP {error.smtp_code}: {_text(error.smtp_error)}")
    if isinstance(error, smtplib.SMTPNotSupportedError):
        return TransientSendError(f"the SMTP server does not support what we asked: {error}")
    return TransientSendError(f"cannot reach the SMTP server: {type(error).__name__}: {error}")


class _SmtpSession:
    def __init__(self, client: smtplib.SMTP) -> None:
        self.client = client

    def send(self, envelope_from: str, recipients: Sequence[str], message: bytes) -> None:
        try:
            refused = self.client.sendmail(envelope_from, list(recipients), message)
        except (smtplib.SMTPException, OSError) as error:
            raise _classify(error) from error
        if refused:  # some recipients accepted, some not: we send one recipient per mail
            raise _classify(smtplib.SMTPRecipientsRefused(refused))


@functools.cache
def _ehlo_name() -> str:
    """The name we give in EHLO. smtplib would look it up (``socket.getfqdn()``, a DNS query
    that took ~0.9 s here) on every connection, i.e. every relay run; the host keeps its name
    while the process lives, so ask once."""
    return socket.getfqdn()


class SmtpTransport:
    def __init__(self, config: SmtpConfig) -> None:
        self.config = config
        login = f"{config.username}@" if config.username else ""
        mode = "smtps" if config.implicit_tls else ("smtp+starttls" if config.starttls else "smtp")
        self.description = f"{mode}://{login}{config.host}:{config.port}"

    def _tls(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=self.config.cafile)

    @contextmanager
    def session(self) -> Iterator[Session]:
        c = self.config
        try:
            client: smtplib.SMTP
            if c.implicit_tls:
                client = smtplib.SMTP_SSL(
                    c.host, c.port, _ehlo_name(), timeout=c.timeout, context=self._tls()
                )
            else:
                client = smtplib.SMTP(c.host, c.port, _ehlo_name(), timeout=c.timeout)
        except (smtplib.SMTPException, OSError) as error:
            raise _classify(error) from error
        try:
            try:
                client.ehlo()
                if c.starttls:
                    client.starttls(context=self._tls())
                    client.ehlo()
                if c.username is not None:
                    client.login(c.username, c.password or "")
            except (smtplib.SMTPException, OSError) as error:
                raise _classify(error) from error
            yield _SmtpSession(client)
        finally:
            try:
                client.quit()
            except (smtplib.SMTPException, OSError):
                client.close()


_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]")


def eml_name(message_id: str) -> str:
    """The file name of a message in the mail folder: derived from its Message-ID, so a
    retried send overwrites its own file instead of adding a second copy."""
    bare = message_id.strip().strip("<>").replace("@", "_at_")
    return _UNSAFE_NAME.sub("_", bare)[:180] + ".eml"


class FileTransport:
    """Writes each mail as ``<folder>/<message id>.eml`` (the embedded default)."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.description = f"folder {self.folder}"

    @contextmanager
    def session(self) -> Iterator[Session]:
        self.folder.mkdir(parents=True, exist_ok=True)
        yield self

    def send(self, envelope_from: str, recipients: Sequence[str], message: bytes) -> None:
        match = re.search(rb"^Message-ID:\s*<([^>\r\n]+)>", message, re.I | re.M)
        if match is None:
            raise PermanentSendError("the message has no Message-ID")
        path = self.folder / eml_name(match.group(1).decode("ascii", "replace"))
        try:
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".tmp-", suffix=".eml")
            with os.fdopen(fd, "wb") as f:
                f.write(message)
            os.replace(tmp, path)  # atomic: the viewer never sees half a file
        except OSError as error:
            raise TransientSendError(f"cannot write {path}: {error}") from error


def transport_for(smtp_url: str, mail_dir: str | Path) -> Transport:
    """SMTP when a URL is configured, else the mail folder."""
    if smtp_url:
        return SmtpTransport(parse_smtp_url(smtp_url))
    return FileTransport(mail_dir)
