"""Real mail servers for the tests: aiosmtpd (SMTP) and Dovecot (IMAP) on loopback ports.

``SmtpTestServer`` can be switched between accepting, refusing connections (the listener is
stopped), answering 4xx or 5xx, and coming back on the same port, to test outages.
``Dovecot`` writes a minimal configuration in a temporary folder (own port on 127.0.0.1,
passwd-file auth, maildir in the folder, no privileged port) and runs ``dovecot -F``.
"""

from __future__ import annotations

import asyncio
import grp
import os
import pwd
import shutil
import socket
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

DOVECOT = "/usr/sbin/dovecot"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass(frozen=True)
class Received:
    mail_from: str
    rcpt_tos: tuple[str, ...]
    data: bytes
    authenticated_as: str | None


class _Handler:
    def __init__(self, server: SmtpTestServer) -> None:
        self.server = server

    async def handle_RCPT(
        self, server: Any, session: Any, envelope: Any, address: str, options: list[str]
    ) -> str:
        if self.server.mode == "reject":
            return f"550 5.1.1 <{address}>: Recipient address rejected: User unknown"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.server.delay:  # a slow server: the 250 comes after a pause
            await asyncio.sleep(self.server.delay)
        if self.server.mode == "tempfail":
            return "451 4.3.0 Temporary local problem, try again later"
        user = session.auth_data.login.decode() if session.authenticated else None
        with self.server.lock:
            self.server.received.append(
                Received(envelope.mail_from, tuple(envelope.rcpt_tos), envelope.content, user)
            )
        return "250 2.0.0 Ok: queued"


class SmtpTestServer:
    def __init__(self, **smtp_options: Any) -> None:
        self.port = free_port()
        self.mode = "accept"
        #: seconds the server waits before answering each message's DATA (a slow relay)
        self.delay = 0.0
        self.lock = threading.Lock()
        self.received: list[Received] = []
        self.smtp_options = smtp_options
        self.controller: Controller | None = None

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    def start(self) -> None:
        if self.controller is None:
            self.controller = Controller(
                _Handler(self), hostname="127.0.0.1", port=self.port, **self.smtp_options
            )
            self.controller.start()

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None

    # -- the switches of an outage -----------------------------------------------------
    def refuse_connections(self) -> None:
        self.stop()

    def answer_4xx(self) -> None:
        self.start()
        self.mode = "tempfail"

    def reject_recipients(self) -> None:
        self.start()
        self.mode = "reject"

    def come_back(self) -> None:
        self.start()
        self.mode = "accept"

    def messages(self) -> list[Received]:
        with self.lock:
            return list(self.received)


def password_authenticator(users: dict[str, str]) -> Any:
    def authenticate(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> Any:
        if isinstance(data, LoginPassword) and users.get(data.login.decode()) == (
            data.password.decode()
        ):
            return AuthResult(success=True, auth_data=data)
        return AuthResult(success=False, handled=False)

    return authenticate


class Dovecot:
    """A private Dovecot IMAP server with one user and a maildir, in ``folder``."""

    def __init__(self, folder: Path, user: str = "pbem", password: str = "imap-secret") -> None:
        self.folder = folder
        self.user = user
        self.password = password
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"imap://{self.user}:{self.password}@127.0.0.1:{self.port}/INBOX"

    def _config(self) -> tuple[str, pwd.struct_passwd]:
        # Dovecot refuses mail access as uid 0: as root, the mail side runs as nobody.
        root = os.geteuid() == 0
        account = pwd.getpwnam("nobody") if root else pwd.getpwuid(os.geteuid())
        group = grp.getgrgid(account.pw_gid).gr_name
        f = self.folder
        return (
            f"""
base_dir = {f}/run
state_dir = {f}/state
log_path = {f}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
default_internal_user = {account.pw_name}
default_internal_group = {group}
default_login_user = {account.pw_name}
first_valid_uid = 1
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {f}/passwd
}}
userdb {{
  driver = static
  args = uid={account.pw_uid} gid={account.pw_gid} home={f}/home/%u
}}
mail_location = maildir:~/Maildir
service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {self.port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service anvil {{
  chroot =
}}
service pop3-login {{
  inet_listener pop3 {{
    port = 0
  }}
}}
service submission-login {{
  inet_listener submission {{
    port = 0
  }}
}}
""",
            account,
        )

    def start(self, timeout: float = 15.0) -> None:
        for sub in ("run", "state", "home"):
            (self.folder / sub).mkdir(parents=True, exist_ok=True)
        text, account = self._config()
        conf = self.folder / "dovecot.conf"
        conf.write_text(text)
        (self.folder / "passwd").write_text(f"{self.user}:{{PLAIN}}{self.password}\n")
        if os.geteuid() == 0:
            shutil.chown(self.folder / "home", account.pw_uid, account.pw_gid)
            self.folder.chmod(0o755)
            (self.folder / "passwd").chmod(0o644)
        self.process = subprocess.Popen(
            [DOVECOT, "-F", "-c", str(conf)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode() if self.process.stderr else ""
                log = self.folder / "dovecot.log"
                raise RuntimeError(
                    f"dovecot exited with {self.process.returncode}: {err}"
                    + (log.read_text() if log.exists() else "")
                )
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    if s.recv(100).startswith(b"* OK"):
                        return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"dovecot did not answer on port {self.port} within {timeout}s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process is not None and self.process.stderr is not None:
            # Left open, the pipe is closed by the garbage collector with a ResourceWarning,
            # which pytest (warnings as errors) reports against whichever test runs then.
            self.process.stderr.close()
        self.process = None
