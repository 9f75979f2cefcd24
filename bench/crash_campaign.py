"""Crash campaign: ``kill -9`` of gunicorn workers and of ``pbem scheduler`` processes while
players move through the API, reply by mail through the webhook, and the relay sends mail
to a real SMTP server; then checks that nothing acknowledged was lost.

    .venv/bin/python bench/crash_campaign.py [--backend sqlite|postgres|both] [--kills 50]
        [--seed N] [--schedulers 2] [--smtp-delay 0.05] [--json FILE]

Per database (a fresh SQLite file, or a fresh PostgreSQL database created and dropped on
``PBEM_TEST_POSTGRES_URL``, default ``postgresql://postgres@127.0.0.1:5432/test``):

- gunicorn serves ``web:create_app()`` (2 workers, 4 threads), the mail relay runs only in
  ``pbem scheduler`` processes (``--schedulers`` at once), and an aiosmtpd server in this
  process records every mail it accepts: Message-ID, time, and which scheduler process sent
  it (found from the client's TCP port in ``/proc``). It answers each mail after
  ``--smtp-delay`` seconds, so that relays are often killed in the middle of a send.
- API players each play Lancelot games one move after another (an idempotency key per move,
  retried with the same key after a connection error, as a client should).
- Mail players answer every "your turn" mail of their own games with the first move it
  suggests, posted to ``/inbound/email`` (retried until answered 200, as a provider does, and
  now and then delivered twice).
- ``--kills`` times, at random intervals, one process is killed with SIGKILL: a gunicorn
  worker (gunicorn starts another) or a scheduler (started again after a short pause, as a
  supervisor would).

Then the load stops, the schedulers run undisturbed until the outbox and the inbound
messages settle, and these are counted (each must be 0 but the last):

- acknowledged moves lost: a move answered 2xx whose version and head hash are not in the log;
- mails lost: outbox rows not sent, or marked sent and never received by the SMTP server;
- inbound messages stranded: a message the webhook answered 200 that has no outcome;
- mails sent twice outside the documented window: a Message-ID received twice, unless the
  scheduler that sent the first copy was killed after the server took it (within the mail's
  lease) and the relay that sent it again logged taking it over from that stopped process
  (killed between the SMTP 250 and recording it: the documented resend);
- games failing ``replay --verify`` (the log, and every stored snapshot);
- and, apart: mails sent twice inside the documented window, identified by Message-ID.

Not a test: run by hand (it takes a few minutes per database); nothing here runs in CI.
"""

from __future__ import annotations

import argparse
import collections
import http.client
import json
import os
import random
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.parser import BytesHeaderParser
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from aiosmtpd.controller import Controller  # noqa: E402

from tests.mail.helpers import reply_to  # noqa: E402

BIN = Path(sys.executable).parent
DEFAULT_POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"
INBOUND_SECRET = "campaign-hook-secret"
#: The relay's log line when it takes over a mail whose sender stopped before recording it.
TAKEN_OVER = re.compile(
    r"relay: mail \d+ <(?P<message_id>[^>]+)> to \S+ was being sent by [^:\s]+:(?P<pid>\d+):"
)
#: How long the schedulers get, after the load stops, for the outbox and inbound to settle.
SETTLE_SECONDS = 240


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def log(message: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {message}", flush=True)


# -- the SMTP server that records what it receives ---------------------------------------------


@dataclass(frozen=True)
class Delivery:
    message_id: str
    at: float
    pid: int | None
    kind: str
    game_id: str
    raw: bytes


def _socket_inode(port: int) -> str | None:
    """The inode of the TCP socket whose local port is ``port`` (the client's end)."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            if int(parts[1].rsplit(":", 1)[1], 16) == port:
                return parts[9]
    return None


def _pid_of_client(port: int, candidates: list[int]) -> int | None:
    inode = _socket_inode(port)
    if inode is None:
        return None
    wanted = f"socket:[{inode}]"
    for pid in candidates:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == wanted:
                    return pid
            except OSError:
                continue
    return None


class MailSink:
    """aiosmtpd on a free port: accepts every mail after ``delay`` seconds, and records it."""

    def __init__(self, delay: float, schedulers: Callable[[], list[int]]) -> None:
        self.port = free_port()
        self.delay = delay
        self.schedulers = schedulers
        self.lock = threading.Lock()
        self.deliveries: list[Delivery] = []
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port)

    async def handle_MAIL(
        self, server: Any, session: Any, envelope: Any, address: str, options: list[str]
    ) -> str:
        # While the client is connected: which scheduler process is it?
        session.pbem_pid = _pid_of_client(session.peer[1], self.schedulers())
        envelope.mail_from = address
        envelope.mail_options.extend(options)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        import asyncio

        await asyncio.sleep(self.delay)
        headers = BytesHeaderParser(policy=policy.default).parsebytes(envelope.content)
        delivery = Delivery(
            message_id=str(headers["Message-ID"] or "").strip().strip("<>"),
            at=time.time(),
            pid=getattr(session, "pbem_pid", None),
            kind=str(headers["X-Pbem-Mail"] or ""),
            game_id=str(headers["X-Pbem-Game"] or ""),
            raw=envelope.content,
        )
        with self.lock:
            self.deliveries.append(delivery)
        return "250 2.0.0 Ok: queued"

    def received(self) -> list[Delivery]:
        with self.lock:
            return list(self.deliveries)

    def start(self) -> None:
        self.controller.start()

    def stop(self) -> None:
        self.controller.stop()


# -- the deployment: gunicorn and the schedulers ------------------------------------------------


@dataclass
class Kill:
    at: float
    target: str  # worker | scheduler
    pid: int


class Deployment:
    def __init__(self, env: dict[str, str], folder: Path, schedulers: int) -> None:
        self.env = env
        self.folder = folder
        self.port = int(env["PBEM_BASE_URL"].rsplit(":", 1)[1])
        self.wanted_schedulers = schedulers
        self.gunicorn: subprocess.Popen[bytes] | None = None
        self.schedulers: list[subprocess.Popen[bytes]] = []
        self.every_scheduler_pid: list[int] = []
        self.kills: list[Kill] = []
        self._logs: list[Any] = []

    def _spawn(self, name: str, args: list[str]) -> subprocess.Popen[bytes]:
        out = open(self.folder / f"{name}.log", "ab")  # noqa: SIM115 (closed in stop())
        self._logs.append(out)
        return subprocess.Popen(args, cwd=ROOT, env=self.env, stdout=out, stderr=out)

    def upgrade(self) -> None:
        subprocess.run(
            [str(BIN / "pbem"), "db", "upgrade"],
            env=self.env,
            check=True,
            cwd=ROOT,
            capture_output=True,
        )

    def start(self) -> None:
        self.gunicorn = self._spawn(
            "gunicorn",
            [
                str(BIN / "gunicorn"),
                "-w",
                "2",
                "--threads",
                "4",
                "--timeout",
                "60",
                "-b",
                f"127.0.0.1:{self.port}",
                "--no-control-socket",
                "-c",
                str(self._gunicorn_config()),
                "web:create_app()",
            ],
        )
        for _ in range(self.wanted_schedulers):
            self.start_scheduler()
        deadline = time.time() + 120
        while time.time() < deadline:
            # Ready when a worker answers (not when the master listens: workers boot later).
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                conn.request("GET", "/api/v1/games")
                if conn.getresponse().status == 200:
                    conn.close()
                    return
                conn.close()
            except (OSError, http.client.HTTPException):
                pass
            time.sleep(0.5)
        raise RuntimeError("gunicorn did not start: see gunicorn.log")

    def _gunicorn_config(self) -> Path:
        """The modules (not the app: no connection may be shared by forked workers) are
        imported in the master, so that a worker started after a kill serves at once, as
        with a warm deployment, rather than after seconds of imports."""
        path = self.folder / "gunicorn_conf.py"
        path.write_text(
            "def on_starting(server):\n"
            "    import web  # noqa: F401\n"
            "    import pbem.app.bootstrap  # noqa: F401\n"
        )
        return path

    def start_scheduler(self) -> None:
        process = self._spawn("scheduler", [str(BIN / "pbem"), "scheduler"])
        self.schedulers.append(process)
        self.every_scheduler_pid.append(process.pid)

    def scheduler_log(self) -> Path:
        return self.folder / "scheduler.log"

    def scheduler_pids(self) -> list[int]:
        return list(self.every_scheduler_pid)

    def workers(self) -> list[int]:
        assert self.gunicorn is not None
        pid = self.gunicorn.pid
        try:
            text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
        except OSError:
            return []
        return [int(p) for p in text.split()]

    def kill_worker(self, rng: random.Random) -> bool:
        workers = self.workers()
        if not workers:
            return False
        pid = rng.choice(workers)
        os.kill(pid, signal.SIGKILL)
        self.kills.append(Kill(time.time(), "worker", pid))
        return True

    def kill_scheduler(self, rng: random.Random) -> bool:
        alive = [p for p in self.schedulers if p.poll() is None]
        if not alive:
            return False
        process = rng.choice(alive)
        process.kill()  # SIGKILL
        process.wait()
        self.kills.append(Kill(time.time(), "scheduler", process.pid))
        self.schedulers.remove(process)
        return True

    def keep_schedulers_running(self) -> None:
        self.schedulers = [p for p in self.schedulers if p.poll() is None]
        while len(self.schedulers) < self.wanted_schedulers:
            self.start_scheduler()

    def stop(self) -> None:
        for process in [*self.schedulers, *([self.gunicorn] if self.gunicorn else [])]:
            if process.poll() is None:
                process.terminate()
        for process in [*self.schedulers, *([self.gunicorn] if self.gunicorn else [])]:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for out in self._logs:
            out.close()


# -- the players ---------------------------------------------------------------------------------


class Http:
    """One keep-alive connection; a dropped one (a killed worker) is opened again."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn: http.client.HTTPConnection | None = None

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
        raw: bytes | None = None,
    ) -> tuple[int, Any]:
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        sent = dict(headers or {})
        data: bytes | None = raw
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        try:
            self.conn.request(method, path, body=data, headers=sent)
            response = self.conn.getresponse()
            payload = response.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.conn = None
            raise
        try:
            return response.status, json.loads(payload or b"null")
        except ValueError:
            return response.status, None

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()


@dataclass
class Tally:
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: (game, version, head hash) of every move answered 2xx
    acknowledged: list[tuple[str, int, str]] = field(default_factory=list)
    #: Message-IDs of the replies the webhook answered 200
    accepted_inbound: set[str] = field(default_factory=set)
    games: set[str] = field(default_factory=set)
    mail_games: set[str] = field(default_factory=set)
    connection_errors: int = 0
    server_errors: int = 0
    refused_moves: int = 0
    duplicate_deliveries: int = 0
    inbound_posts: int = 0

    def add(self, name: str, amount: int = 1) -> None:
        with self.lock:
            setattr(self, name, getattr(self, name) + amount)


def _retrying(conn: Http, tally: Tally, stop: threading.Event, *args: Any, **kw: Any) -> Any:
    """A request sent until it is answered below 500 (or the campaign stops)."""
    while True:
        try:
            status, payload = conn.call(*args, **kw)
        except (OSError, http.client.HTTPException):
            tally.add("connection_errors")
        else:
            if status < 500:
                return status, payload
            tally.add("server_errors")
        if stop.is_set():
            return None, None
        time.sleep(0.2)


def create_game(
    http: Http, tally: Tally, stop: threading.Event, prefix: str, mailed: int = 2
) -> tuple[str, list[str]] | None:
    """A Lancelot game; the first ``mailed`` seats have addresses (and get mail)."""
    players = [
        {"name": name, "email": f"{prefix}-{name.lower()}@players.example" if i < mailed else None}
        for i, name in enumerate(("Ann", "Bob"))
    ]
    status, created = _retrying(
        http, tally, stop, "POST", "/api/v1/games", {"game": "lancelot", "players": players}
    )
    if status != 201:
        if status is not None:
            log(f"creating a game: {status} {created}")
        return None
    with tally.lock:
        tally.games.add(created["id"])
    return created["id"], [s["token"] for s in created["seats"]]


def api_player(
    port: int, name: str, tally: Tally, stop: threading.Event, rng: random.Random, pause: float
) -> None:
    http = Http(port)
    try:
        while not stop.is_set():
            # Every fourth game has a seat with an address: its mails load the relay, leaving
            # it time for the games played by mail.
            mailed = 1 if rng.random() < 0.25 else 0
            made = create_game(http, tally, stop, f"api-{name}-{secrets.token_hex(3)}", mailed)
            if made is None:
                continue
            gid, tokens = made
            game: Any = None
            while not stop.is_set():
                if game is None:
                    status, game = _retrying(
                        http,
                        tally,
                        stop,
                        "GET",
                        f"/api/v1/games/{gid}",
                        headers={"Authorization": f"Bearer {tokens[0]}"},
                    )
                    if status != 200:
                        break
                if game["finished"] or not game["to_act"]:
                    break
                seat = game["to_act"][0]
                auth = {"Authorization": f"Bearer {tokens[seat]}"}
                _, seen = _retrying(http, tally, stop, "GET", f"/api/v1/games/{gid}", headers=auth)
                if seen is None or not seen.get("legal"):
                    break
                move = rng.choice(seen["legal"])
                body = {
                    "action": move,
                    "expected_version": seen["version"],
                    "idempotency_key": secrets.token_hex(8),
                }
                status, answer = _retrying(
                    http, tally, stop, "POST", f"/api/v1/games/{gid}/actions", body, headers=auth
                )
                if status is None:
                    break
                if 200 <= status < 300:
                    with tally.lock:
                        tally.acknowledged.append((gid, answer["version"], answer["head_hash"]))
                    game = answer
                else:
                    tally.add("refused_moves")
                    game = None
                time.sleep(pause)
    finally:
        http.close()


FIRST_SUGGESTION = re.compile(r"You can type, for example: ([^,\n…]+)")


def mail_player(
    port: int,
    sink: MailSink,
    tally: Tally,
    stop: threading.Event,
    rng: random.Random,
    games: int,
) -> None:
    """Plays ``games`` games at a time by mail only: every turn mail of them is answered."""
    http = Http(port)
    answered: set[str] = set()
    mine: set[str] = set()
    posted: list[bytes] = []
    auth = {"Authorization": f"Bearer {INBOUND_SECRET}", "Content-Type": "message/rfc822"}
    try:
        while not stop.is_set():
            while len(mine) < games and not stop.is_set():
                made = create_game(http, tally, stop, f"mail-{secrets.token_hex(3)}")
                if made is not None:
                    mine.add(made[0])
                    with tally.lock:
                        tally.mail_games.add(made[0])
            for delivery in sink.received():
                if delivery.game_id not in mine or delivery.message_id in answered:
                    continue
                answered.add(delivery.message_id)
                if delivery.kind == "end":
                    mine.discard(delivery.game_id)
                    continue
                if delivery.kind == "invitation":
                    command = "accept"  # an address new to the service is invited first
                elif delivery.kind == "turn":
                    text = message_from_bytes(delivery.raw, policy=policy.default)
                    body = text.get_body(("plain",))
                    found = FIRST_SUGGESTION.search(str(body.get_content()) if body else "")
                    if found is None:
                        continue
                    command = found.group(1).strip()
                else:
                    continue
                message_id = f"campaign.{secrets.token_hex(8)}@client.example"
                reply = reply_to(delivery.raw, command, message_id=message_id)
                key = _deliver(http, tally, stop, reply, auth)
                if key is not None:
                    with tally.lock:
                        tally.accepted_inbound.add(key)
                    posted.append(reply)
                if posted and rng.random() < 0.1:  # a provider delivering a message twice
                    tally.add("duplicate_deliveries")
                    _deliver(http, tally, stop, rng.choice(posted), auth)
                if stop.is_set():
                    break
            time.sleep(0.1)
    finally:
        http.close()


def _deliver(
    http: Http, tally: Tally, stop: threading.Event, raw: bytes, headers: dict[str, str]
) -> str | None:
    """The message's key once the webhook answered 200 (it is stored), else None."""
    tally.add("inbound_posts")
    status, answer = _retrying(
        http, tally, stop, "POST", "/inbound/email", raw=raw, headers=headers
    )
    if status != 200:
        if status is not None:
            log(f"webhook answered {status}: {answer}")
        return None
    return str(answer["key"])


# -- one database's campaign ----------------------------------------------------------------------


@dataclass
class Figures:
    backend: str
    kills_worker: int = 0
    kills_scheduler: int = 0
    games: int = 0
    moves_acknowledged: int = 0
    moves_lost: int = 0
    mails_in_outbox: int = 0
    mails_received: int = 0
    mails_lost: int = 0
    inbound_accepted: int = 0
    inbound_stranded: int = 0
    sent_twice_outside_window: int = 0
    sent_twice_in_window: int = 0
    sent_twice_unattributed: int = 0
    games_failing_verify: int = 0
    bad_snapshots: int = 0
    settled_in_seconds: float | None = None
    #: how often the recovery paths ran: relays taking over a stopped relay's mails, and
    #: inbound messages processed again after their worker stopped
    relay_takeovers: int = 0
    inbound_recovered: int = 0
    details: list[str] = field(default_factory=list)
    load: dict[str, int] = field(default_factory=dict)
    kills: list[tuple[float, str, int]] = field(default_factory=list)


def run_campaign(backend: str, args: argparse.Namespace) -> Figures:
    rng = random.Random(args.seed)
    folder = Path(tempfile.mkdtemp(prefix=f"pbem-crash-{backend}-"))
    drop: Any = None
    if backend == "sqlite":
        url = f"sqlite:///{folder / 'pbem.db'}"
    else:
        url, drop = _new_postgres_database()
    port = free_port()
    deployment: Deployment | None = None
    sink = MailSink(args.smtp_delay, lambda: deployment.scheduler_pids() if deployment else [])
    env = {
        **os.environ,
        "PBEM_DATABASE_URL": url,
        "PBEM_VAR_DIR": str(folder / "var"),
        "PBEM_SECRET_KEY": secrets.token_hex(16),
        "PBEM_BASE_URL": f"http://127.0.0.1:{port}",
        "PBEM_DEV_PAGES": "false",
        "PBEM_LOG_LEVEL": "WARNING",
        "PBEM_SNAPSHOT_EVERY": "7",
        "PBEM_MAIL_SMTP_URL": f"smtp://127.0.0.1:{sink.port}",
        "PBEM_MAIL_INBOUND_SECRET": INBOUND_SECRET,
        "PBEM_MAIL_EMBEDDED_SCHEDULER": "false",
        "PBEM_MAIL_FROM_ADDRESS": "games@pbem.test",
        "PBEM_MAIL_REPLY_DOMAIN": "reply.pbem.test",
        "PBEM_MAIL_RELAY_INTERVAL": "1",
        "PBEM_MAIL_CONFIRMATIONS": "false",
        "PBEM_MAIL_RELAY_BATCH": "10",
        "PBEM_MAIL_LEASE_SECONDS": str(args.lease_seconds),
        "PBEM_MAIL_BACKOFF_BASE": "1",
        "PBEM_MAIL_BACKOFF_CAP": "5",
        "PBEM_MAIL_MAX_ATTEMPTS": "1000",
    }
    figures = Figures(backend)
    deployment = Deployment(env, folder, args.schedulers)
    tally = Tally()
    stop = threading.Event()
    threads: list[threading.Thread] = []
    try:
        deployment.upgrade()
        sink.start()
        deployment.start()
        log(f"{backend}: gunicorn on :{port}, SMTP on :{sink.port}, files in {folder}")
        for i in range(args.api_players):
            player = random.Random(rng.random())
            threads.append(
                threading.Thread(
                    target=api_player,
                    args=(port, str(i), tally, stop, player, args.move_pause),
                )
            )
        threads.append(
            threading.Thread(
                target=mail_player,
                args=(port, sink, tally, stop, random.Random(rng.random()), args.mail_games),
            )
        )
        for t in threads:
            t.start()
        time.sleep(3)  # let the load start before the first kill
        _kill_loop(deployment, args.kills, rng)
        time.sleep(2)
        stop.set()
        for t in threads:
            t.join(120)
        deployment.keep_schedulers_running()
        log(f"{backend}: load stopped; waiting for the outbox and inbound mail to settle")
        figures.settled_in_seconds = _settle(url, deployment)
        time.sleep(max(2.0, args.smtp_delay * 4))  # a last mail in flight
        _count(figures, url, env["PBEM_SECRET_KEY"], tally, sink, deployment, args.lease_seconds)
    finally:
        stop.set()
        deployment.stop()
        sink.stop()
        if drop is not None:
            drop()
    log(f"{backend}: logs kept in {folder}")
    return figures


def _kill_loop(deployment: Deployment, kills: int, rng: random.Random) -> None:
    done = 0
    while done < kills:
        time.sleep(rng.uniform(1.5, 4.0))
        deployment.keep_schedulers_running()
        target = rng.choice(("worker", "scheduler"))
        killed = (
            deployment.kill_worker(rng) if target == "worker" else deployment.kill_scheduler(rng)
        )
        if not killed:
            continue
        done += 1
        if target == "scheduler":
            time.sleep(rng.uniform(0.1, 1.0))  # the supervisor's pause before a restart
            deployment.keep_schedulers_running()
        if done % 10 == 0:
            log(f"  {done} kills")


def _settle(url: str, deployment: Deployment) -> float | None:
    """Seconds until no mail waits to be sent and no inbound message waits for an outcome."""
    from sqlalchemy import func
    from sqlmodel import col, select

    from pbem.core.db import Database
    from pbem.mail.models import PENDING, SENDING, InboundMail, OutboxMail

    db = Database(url)
    started = time.time()
    try:
        while time.time() - started < SETTLE_SECONDS:
            deployment.keep_schedulers_running()
            with db.read() as session:
                waiting = session.exec(
                    select(func.count()).where(col(OutboxMail.status).in_([PENDING, SENDING]))
                ).one()
                unfinished = session.exec(
                    select(func.count()).where(
                        col(InboundMail.status).in_(["stored", "processing"])
                    )
                ).one()
            if waiting == 0 and unfinished == 0:
                return round(time.time() - started, 1)
            time.sleep(1)
        return None
    finally:
        db.dispose()


def _count(
    figures: Figures,
    url: str,
    key: str,
    tally: Tally,
    sink: MailSink,
    deployment: Deployment,
    lease_seconds: int,
) -> None:
    from sqlmodel import select

    import engine
    from pbem.app.bootstrap import register_features
    from pbem.core.db import Database
    from pbem.core.models import Event, Game
    from pbem.core.replay import verify
    from pbem.mail.models import SENT, InboundMail, OutboxMail

    # The features' event types (the clock's, undo's, the disputes', the invitations'): the
    # replay below reads every event of the games, and no service is built here.
    register_features()

    kills = deployment.kills
    figures.kills_worker = sum(1 for k in kills if k.target == "worker")
    figures.kills_scheduler = sum(1 for k in kills if k.target == "scheduler")
    figures.kills = [(round(k.at, 3), k.target, k.pid) for k in kills]
    received = sink.received()
    figures.mails_received = len(received)
    copies = collections.Counter(d.message_id for d in received)
    db = Database(url)
    try:
        with db.read() as session:
            # Moves: every acknowledged (version, head hash) is in the log.
            figures.moves_acknowledged = len(tally.acknowledged)
            for gid, version, head in tally.acknowledged:
                row = session.get(Event, (gid, version))
                if row is None or row.hash != head:
                    figures.moves_lost += 1
                    figures.details.append(f"move lost: game {gid} version {version}")
            # Mail: every outbox row sent, and received at least once.
            rows = session.exec(select(OutboxMail)).all()
            figures.mails_in_outbox = len(rows)
            for mail in rows:
                if mail.status != SENT or copies[mail.message_id] == 0:
                    figures.mails_lost += 1
                    figures.details.append(
                        f"mail lost: {mail.message_id} ({mail.kind}) status {mail.status}, "
                        f"received {copies[mail.message_id]} time(s)"
                    )
            # Inbound: every message accepted by the webhook has an outcome.
            figures.inbound_accepted = len(tally.accepted_inbound)
            stored = {r.key: r for r in session.exec(select(InboundMail)).all()}
            for key_ in sorted(tally.accepted_inbound):
                found = stored.get(key_)
                if found is None or found.outcome is None or found.status != "done":
                    figures.inbound_stranded += 1
                    figures.details.append(
                        f"inbound stranded: {key_}: "
                        + (f"status {found.status}, outcome {found.outcome}" if found else "no row")
                    )
            for message in stored.values():
                if message.key not in tally.accepted_inbound and message.status in (
                    "stored",
                    "processing",
                ):
                    figures.inbound_stranded += 1
                    figures.details.append(f"inbound stranded (not acknowledged): {message.key}")
            # Every game's log and snapshots.
            games = [g.id for g in session.exec(select(Game)).all()]
            figures.games = len(games)
            for gid in games:
                report = verify(session, gid, engine.REGISTRY, snapshot_key=key)
                if not report.ok:
                    figures.games_failing_verify += 1
                    figures.details.append(f"verify failed: {gid}: {report.problems[:2]}")
                if not getattr(report, "snapshots_ok", True):
                    figures.bad_snapshots += 1
                    figures.details.append(f"bad snapshot: {gid}")
    finally:
        db.dispose()
    # Mails sent twice: inside the window if the sender of the first copy died right after.
    scheduler_log = deployment.scheduler_log().read_text(errors="replace")
    taken_over = {(m["message_id"], int(m["pid"])) for m in TAKEN_OVER.finditer(scheduler_log)}
    figures.relay_takeovers = len(TAKEN_OVER.findall(scheduler_log))
    figures.inbound_recovered = scheduler_log.count("stopped before recording an outcome")
    first: dict[str, Delivery] = {}
    for d in sorted(received, key=lambda d: d.at):
        first.setdefault(d.message_id, d)
    for message_id, count in copies.items():
        if count < 2:
            continue
        copy = first[message_id]
        if copy.pid is None:
            figures.sent_twice_unattributed += 1
            figures.details.append(f"sent {count} times, sender unknown: {message_id}")
            continue
        death = next((k for k in kills if k.pid == copy.pid), None)
        # The documented window: the relay that sent the first copy was killed after the
        # server took it (or while it was answering), within the mail's lease, and the relay
        # that sent it again found it still unrecorded under the dead relay's lease.
        if (
            death is not None
            and copy.at - 1.0 <= death.at <= copy.at + lease_seconds
            and (message_id, copy.pid) in taken_over
        ):
            figures.sent_twice_in_window += 1
            figures.details.append(
                f"sent {count} times in the window: {message_id} (its relay pid {copy.pid} "
                f"killed {death.at - copy.at:+.3f} s after the server took it)"
            )
        else:
            figures.sent_twice_outside_window += 1
            figures.details.append(
                f"sent {count} times OUTSIDE the window: {message_id} (first by pid {copy.pid}, "
                + ("never killed" if death is None else f"killed {death.at - copy.at:+.1f} s after")
                + ")"
            )
    figures.load = {
        "connection_errors": tally.connection_errors,
        "server_errors": tally.server_errors,
        "refused_moves": tally.refused_moves,
        "inbound_posts": tally.inbound_posts,
        "duplicate_deliveries": tally.duplicate_deliveries,
        "mail_games": len(tally.mail_games),
    }


def _new_postgres_database() -> tuple[str, Any]:
    import psycopg
    from sqlalchemy.engine import make_url

    server = os.environ.get("PBEM_TEST_POSTGRES_URL") or DEFAULT_POSTGRES
    admin = make_url(server).set(drivername="postgresql").render_as_string(hide_password=False)
    name = f"pbem_crash_{os.getpid()}_{secrets.token_hex(3)}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')

    def drop() -> None:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    return make_url(server).set(database=name).render_as_string(hide_password=False), drop


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--kills", type=int, default=50, help="kill -9 per database")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--schedulers", type=int, default=2, help="pbem scheduler at once")
    parser.add_argument("--api-players", type=int, default=4)
    parser.add_argument("--move-pause", type=float, default=0.1, help="seconds between moves")
    parser.add_argument("--mail-games", type=int, default=6, help="games played by mail at once")
    parser.add_argument("--smtp-delay", type=float, default=0.05, help="seconds per mail")
    parser.add_argument("--lease-seconds", type=int, default=10, help="mail.lease_seconds")
    parser.add_argument("--json", help="write the figures here as JSON")
    args = parser.parse_args()
    backends = ["sqlite", "postgres"] if args.backend == "both" else [args.backend]
    log("command: " + " ".join([Path(sys.executable).name, *sys.argv]))
    results = [run_campaign(b, args) for b in backends]
    failed = False
    for f in results:
        print(
            f"\n== {f.backend}: {f.kills_worker} gunicorn workers and {f.kills_scheduler} "
            f"schedulers killed (kill -9) =="
        )
        print(f"games {f.games} ({f.load.get('mail_games', 0)} by mail); load: {f.load}")
        print(f"acknowledged moves lost:        {f.moves_lost} of {f.moves_acknowledged}")
        print(
            f"mails lost:                     {f.mails_lost} of {f.mails_in_outbox} "
            f"({f.mails_received} received)"
        )
        print(f"inbound messages stranded:      {f.inbound_stranded} of {f.inbound_accepted}")
        print(f"sent twice outside the window:  {f.sent_twice_outside_window}")
        print(f"sent twice, sender unknown:     {f.sent_twice_unattributed}")
        print(
            f"games failing replay --verify:  {f.games_failing_verify}; bad snapshots "
            f"{f.bad_snapshots}"
        )
        print(
            f"sent twice in the documented window (relay killed between 250 and recording): "
            f"{f.sent_twice_in_window}"
        )
        print(f"settled in: {f.settled_in_seconds} s after the load stopped")
        print(
            f"recovery paths taken: {f.relay_takeovers} mails taken over from a killed relay, "
            f"{f.inbound_recovered} inbound messages processed again after their worker died"
        )
        for line in f.details[:40]:
            print("  " + line)
        failed |= bool(
            f.moves_lost
            or f.mails_lost
            or f.inbound_stranded
            or f.sent_twice_outside_window
            or f.sent_twice_unattributed
            or f.games_failing_verify
            or f.bad_snapshots
            or f.settled_in_seconds is None
        )
    if args.json:
        Path(args.json).write_text(
            json.dumps([{**f.__dict__} for f in results], indent=2, default=str)
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
