"""End to end, with real processes: ``pbem serve`` (its embedded scheduler off) and ``pbem
scheduler`` beside it, on one database (SQLite file and PostgreSQL), mailing through a real
SMTP server (aiosmtpd) in this process. A two-player Lancelot game with a deadline of a few
seconds: the reminder reaches the late seat only, the deadline move is made once, every seat
hears of it, the next seat is told it is its turn; then the SMTP server is down across the
next deadline and comes back on the same port: what waited arrives, once.

Everything is awaited by polling with a time limit, never by sleeping for a time assumed to
be enough; the deadlines are short so that the whole runs in about half a minute.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import pytest
from sqlmodel import col, select

from pbem.core.db import Database
from pbem.mail.models import SENT, OutboxMail
from tests.mail.helpers import plain_text
from tests.mail.servers import Received, SmtpTestServer, free_port

PBEM = str(Path(sys.executable).with_name("pbem"))
ROOT = Path(__file__).resolve().parents[2]
#: Each decision gets 6 s, with one reminder 3 s before its end (no "80% gone" one).
TIME_CONTROL = {
    "kind": "fixed",
    "per_decision": "6s",
    "reminders": ["3s"],
    "remind_at_fraction": None,
}
#: How a mail says who was late ("Bob (Blue) missed the deadline of …").
LATE = "missed the deadline"
PLAYERS = [("Ann", "ann@deadline.example"), ("Bob", "bob@deadline.example")]

T = TypeVar("T")


def _wait(what: str, probe: Callable[[], T | None], timeout: float, logs: Callable[[], str]) -> T:
    """``probe()`` once it is true (a list: not empty), polled until ``timeout`` seconds."""
    limit = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > limit:
            raise AssertionError(f"{what}: not within {timeout} s\n{logs()}")
        time.sleep(0.1)


def _parse(raw: bytes) -> EmailMessage:
    message = message_from_bytes(raw, policy=policy.default)
    assert isinstance(message, EmailMessage)
    return message


@dataclass(frozen=True)
class Mail:
    to: str
    kind: str
    message_id: str
    version: int | None
    text: str


def _mail(received: Received) -> Mail:
    m = _parse(received.data)
    (to,) = received.rcpt_tos
    version = m["X-Pbem-Version"]
    return Mail(
        to,
        str(m["X-Pbem-Mail"]),
        str(m["Message-ID"]),
        int(version) if version is not None else None,
        plain_text(m),
    )


class Service:
    """``pbem serve`` and ``pbem scheduler`` on one database, their output in files."""

    def __init__(self, database_url: str, smtp_url: str, folder: Path) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.folder = folder
        self.env = {
            **os.environ,
            "PBEM_DATABASE_URL": database_url,
            "PBEM_VAR_DIR": str(folder / "var"),
            "PBEM_BASE_URL": self.base,
            "PBEM_SECRET_KEY": "end-to-end-deadlines-secret",
            "PBEM_MAIL_SMTP_URL": smtp_url,
            "PBEM_MAIL_EMBEDDED_SCHEDULER": "false",
            "PBEM_MAIL_RELAY_INTERVAL": "1",
            # A mail that failed while the server was down is tried again a second later.
            "PBEM_MAIL_BACKOFF_BASE": "1",
            "PBEM_MAIL_BACKOFF_CAP": "1",
            "PBEM_MAIL_MAX_ATTEMPTS": "100",
            "PBEM_DEADLINES_SWEEP_INTERVAL": "1",
            "PBEM_LOG_LEVEL": "INFO",
        }
        self.processes: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str, *args: str) -> None:
        out = (self.folder / f"{name}.log").open("wb")
        self.processes[name] = subprocess.Popen(
            [PBEM, *args], env=self.env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT
        )
        out.close()  # the child has its own copy

    def log(self, name: str) -> str:
        return (self.folder / f"{name}.log").read_text(errors="replace")

    def logs(self) -> str:
        return "\n".join(
            f"--- {name} (exit {p.poll()}):\n"
            + (self.folder / f"{name}.log").read_text(errors="replace")[-6000:]
            for name, p in self.processes.items()
        )

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
        for process in self.processes.values():
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def request(
        self, method: str, path: str, body: object = None, token: str | None = None
    ) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data, headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=10) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode(errors="replace")

    def api(self, method: str, path: str, body: object = None, token: str | None = None) -> Any:
        status, answer = self.request(method, "/api/v1" + path, body, token)
        assert status in (200, 201), f"{method} {path}: {status} {answer}"
        return answer

    def post_form(self, path: str, form: dict[str, str]) -> int:
        """Post a form as a browser does: the page showing it (``path`` with the form's
        values as its query, as a link opens it) is read first for its cookie and token."""

        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args: Any, **kwargs: Any) -> None:
                return None

        cookies = urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        opener = urllib.request.build_opener(NoRedirect, cookies)
        shown = f"{self.base}{path}?{urllib.parse.urlencode(form)}"
        with opener.open(shown, timeout=10) as page:
            token = re.search(r'name="csrf_token" value="([^"]+)"', page.read().decode())
        assert token, f"no form with a CSRF token at {shown}"
        data = urllib.parse.urlencode({**form, "csrf_token": token[1]}).encode()
        req = urllib.request.Request(self.base + path, data, method="POST")
        req.add_header("Content-Type", "application/x-www-form-urlencoded")
        try:
            with opener.open(req, timeout=10) as response:
                return int(response.status)
        except urllib.error.HTTPError as e:
            return e.code


@pytest.fixture
def smtp() -> Iterator[SmtpTestServer]:
    server = SmtpTestServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def service(database_url: str, smtp: SmtpTestServer, tmp_path: Path) -> Iterator[Service]:
    running = Service(database_url, smtp.url, tmp_path)
    try:
        running.start("serve", "serve", "--port", str(running.port))
        running.start("scheduler", "scheduler")
        _wait(
            "pbem serve answers",
            lambda: _answers(running),
            30,
            running.logs,
        )
        yield running
    finally:
        running.stop()


def _answers(service: Service) -> bool:
    try:
        return service.request("GET", "/api/v1/games")[0] == 200
    except OSError:
        return False


class Inbox:
    """The mails the SMTP server received, parsed."""

    def __init__(self, server: SmtpTestServer) -> None:
        self.server = server

    def all(self) -> list[Mail]:
        return [_mail(r) for r in self.server.messages()]

    def of(self, kind: str, to: str | None = None, version: int | None = None) -> list[Mail]:
        """The mails of ``kind`` (to ``to``, showing ``version``)."""
        return [
            m
            for m in self.all()
            if m.kind == kind
            and (to is None or m.to == to)
            and (version is None or m.version == version)
        ]

    def at(self, to: str, version: int) -> list[Mail]:
        """Every mail to ``to`` that shows ``version``."""
        return [m for m in self.all() if m.to == to and m.version == version]


def _events(service: Service, game_id: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = service.api("GET", f"/games/{game_id}/events?after=0")["events"]
    return events


def _accept_invitations(service: Service, inbox: Inbox, game_id: str) -> None:
    """Each player follows their invitation's link and presses the button (the page's
    POST), as a person does: from then on the game mails them."""
    for _, address in PLAYERS:
        invitation = _wait(
            f"the invitation to {address}",
            lambda a=address: next(iter(inbox.of("invitation", a)), None),  # type: ignore[misc]
            20,
            service.logs,
        )
        found = re.search(r"open this link: (\S+)", invitation.text)
        assert found, invitation.text
        link = urlsplit(found.group(1))
        assert service.post_form(link.path, {"link": link.query.removeprefix("link=")}) == 303


Events = tuple[dict[str, Any], ...]


def _deadline_move(events: list[dict[str, Any]], seat: int) -> tuple[Events, Events]:
    """``seat``'s DeadlineMissed events and its moves on channel ``deadline``."""
    missed = [e for e in events if e["type"] == "DeadlineMissed" and e["data"]["seat"] == seat]
    moves = [
        e
        for e in events
        if e["type"] == "ActionApplied"
        and e["data"]["seat"] == seat
        and e["data"]["channel"] == "deadline"
    ]
    return tuple(missed), tuple(moves)


def _outbox(database_url: str) -> list[OutboxMail]:
    """Every mail the service wrote (this module's database holds only this test's)."""
    db = Database(database_url)
    try:
        with db.read() as session:
            rows = list(session.exec(select(OutboxMail).order_by(col(OutboxMail.id))))
            session.expunge_all()
            return rows
    finally:
        db.dispose()


def _create(service: Service, time_control: object = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "game": "lancelot",
        "config": {},
        "players": [{"name": n, "email": a} for n, a in PLAYERS],
    }
    if time_control is not None:
        body["time_control"] = time_control
    created: dict[str, Any] = service.api("POST", "/games", body)
    return created


def _deadline_passed(service: Service, game_id: str, seat: int) -> tuple[Events, Events]:
    """Once ``seat``'s deadline move is in the log (as the API shows it): the
    DeadlineMissed events and the deadline moves of ``seat``."""
    return _wait(
        f"seat {seat}'s deadline move",
        lambda: (found := _deadline_move(_events(service, game_id), seat))[1] and found,
        20,
        service.logs,
    )


def test_reminder_deadline_move_and_an_smtp_outage_with_real_processes(
    service: Service, smtp: SmtpTestServer, database_url: str
) -> None:
    inbox = Inbox(smtp)
    (ann, ann_address), (bob, bob_address) = PLAYERS
    # New addresses get an invitation and nothing else until they accept: both accept one
    # in an untimed game first, so that the timed game's clock runs for players it mails.
    _accept_invitations(service, inbox, _create(service)["id"])
    _wait("the welcome game's mails", lambda: len(inbox.all()) >= 4, 15, service.logs)
    created = _create(service, TIME_CONTROL)
    game_id, version = created["id"], created["version"]
    assert service.api("GET", f"/games/{game_id}")["to_act"] == [0]
    _wait("Ann's turn mail", lambda: inbox.of("turn", ann_address, version), 15, service.logs)

    # The reminder (3 s before Ann's deadline) reaches Ann, and only Ann.
    reminder = _wait(
        "the reminder",
        lambda: [m for m in inbox.of("reminder") if game_id in m.text],
        15,
        service.logs,
    )
    assert [(m.to, m.version) for m in reminder] == [(ann_address, version)], reminder

    # At the deadline: one DeadlineMissed and one deadline move for Ann.
    missed, moves = _deadline_passed(service, game_id, 0)
    assert len(missed) == 1 and len(moves) == 1, (missed, moves)
    assert missed[0]["data"]["move"] is True
    missed_at = {0: missed[0]["data"]["due_at"]}
    move_version = moves[0]["version"]
    assert service.api("GET", f"/games/{game_id}")["to_act"] == [1]

    # Every seat hears of it, once: Ann of the move played for her, Bob that it is his turn
    # (with what was played).
    bob_turn = _wait(
        "Bob's turn mail after the deadline move",
        lambda: inbox.of("turn", bob_address, move_version),
        15,
        service.logs,
    )
    ann_news = _wait(
        "Ann's mail about her deadline move",
        lambda: inbox.at(ann_address, move_version),
        15,
        service.logs,
    )
    assert len(bob_turn) == 1 and len(ann_news) == 1, (bob_turn, ann_news)
    played_for_ann = moves[0]["data"]["canonical"]
    for mail in (bob_turn[0], ann_news[0]):
        assert played_for_ann in mail.text, mail.text
        # Who was late, and what was played for them.
        assert re.search(rf"{ann}\b[^\n]*{LATE}", mail.text), mail.text

    # Bob's deadline passes while the SMTP server is down: the mails of his deadline move
    # wait in the outbox, are tried and fail, and arrive once the server is back on the
    # same port.
    smtp.refuse_connections()
    missed, moves = _deadline_passed(service, game_id, 1)
    assert len(missed) == 1 and len(moves) == 1, (missed, moves)
    missed_at[1] = missed[0]["data"]["due_at"]
    bob_move_version = moves[0]["version"]
    _wait(
        "a failed attempt at the mails of Bob's deadline move",
        lambda: any(
            r.attempts > 0 and r.status != SENT
            for r in _outbox(database_url)
            if r.version == bob_move_version
        ),
        15,
        service.logs,
    )
    smtp.come_back()
    after_outage = _wait(
        "the mails of Bob's deadline move after the outage",
        lambda: (
            inbox.of("turn", ann_address, bob_move_version)
            and inbox.at(bob_address, bob_move_version)
            and inbox.at(ann_address, bob_move_version) + inbox.at(bob_address, bob_move_version)
        ),
        20,
        service.logs,
    )
    # Ann's reminder of her next decision shows the same version, and may come with these
    # when the machine is slow (its 3 s start at Bob's deadline move): it is counted below.
    for mail in after_outage:
        if mail.kind != "reminder":
            assert re.search(rf"{bob}\b[^\n]*{LATE}", mail.text), mail.text

    # Let the relay deliver what was written up to Bob's deadline move (Ann's next reminder
    # may have been written just now, with her next decision), then stop the service and
    # compare what the SMTP server got with the outbox.
    _wait(
        "every mail up to Bob's deadline move delivered",
        lambda: all(
            r.status == SENT
            for r in _outbox(database_url)
            if r.game_id == game_id and (r.version or 0) <= bob_move_version
        ),
        20,
        service.logs,
    )
    service.stop()
    received = Counter(m.message_id for m in inbox.all())
    twice = {mid: n for mid, n in received.items() if n > 1}
    assert not twice, f"sent more than once: {twice}"
    rows = {f"<{r.message_id}>": r for r in _outbox(database_url)}
    assert set(received) <= set(rows), "a mail the service never wrote"
    sent = {mid for mid, r in rows.items() if r.status == SENT}
    assert sent <= set(received), f"marked sent, never received: {sent - set(received)}"
    # Nothing lost: every mail of the timed game up to Bob's deadline move (its mails were
    # written while the server was down) reached the server, once.
    lost = [
        (r.kind, r.recipient, r.version, r.status, r.attempts)
        for mid, r in rows.items()
        if r.game_id == game_id and (r.version or 0) <= bob_move_version and mid not in received
    ]
    assert not lost, lost
    # One mail per seat per version: the deadline moves were made once each.
    per_version = Counter(
        (m.to, m.version) for m in inbox.all() if m.kind != "reminder" and game_id in m.text
    )
    assert all(n == 1 for n in per_version.values()), per_version
    # One reminder per timed decision: Ann's before her deadline, Bob's before his (due
    # while the server was down, or just before).
    assert len(inbox.of("reminder", ann_address, version)) == 1
    assert len(inbox.of("reminder", bob_address, move_version)) == 1
    # The scheduler's log names each deadline move, once; the web process (its embedded
    # scheduler off) swept nothing.
    logs = {name: service.log(name) for name in ("scheduler", "serve")}
    for seat, due_at in missed_at.items():
        said = f"game {game_id} seat {seat}: deadline {due_at} missed"
        assert logs["scheduler"].count(said) == 1, logs["scheduler"]
        assert said not in logs["serve"]
