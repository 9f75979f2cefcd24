"""Mail benchmark (not a test): inbound replies per second and relay throughput.

- ``parse``: ``read_message`` alone (decode, classify, strip quotes, find commands) on the
  reply corpus in ``tests/mail/corpus``, messages per second;
- ``inbound``: whole replies through ``Inbound.receive``, the pipeline behind every door
  (webhook, IMAP, ``pbem mail-in``) — store the raw message, parse it, route it by its
  token, check the sender, apply the move through the game service (which writes the
  notification mails into the outbox in the same transaction) and record the outcome —
  replies per second, for Lancelot games played to the end by replies to their "your turn"
  mails (both players first accept their invitations by link). Only ``receive`` is timed
  (not making the games, accepting, or finding the mail to answer); each of ``--repeat``
  runs plays new games, and the median run is the result. "cpu" is
  this process's CPU time per reply (the database server's is not in it);
- ``relay``: outbox mails sent per second by ``Relay.run_once`` to a local aiosmtpd server;
- ``--workers N``: the inbound run is played by N processes at once (each its own games, as
  N web workers or mail doors would), and the figure is all their replies over the wall
  time from the common start to the last one's end — which includes each process's own
  untimed work (making its games, finding the mail to answer), so it is a lower bound.

    .venv/bin/python bench/mail_bench.py                       # SQLite file in a temp folder
    .venv/bin/python bench/mail_bench.py --postgres postgresql://postgres@127.0.0.1/test
    .venv/bin/python bench/mail_bench.py --games 10            # more games (more replies)
    .venv/bin/python bench/mail_bench.py --repeat 7 --parse-rounds 0 --no-relay
    .venv/bin/python bench/mail_bench.py --workers 2 --parse-rounds 0 --no-relay
"""

from __future__ import annotations

import argparse
import multiprocessing
import re
import secrets
import socket
import statistics
import sys
import tempfile
import time
from email import message_from_bytes, policy
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psycopg
from aiosmtpd.controller import Controller
from sqlalchemy.engine import make_url
from sqlmodel import col, select

from pbem.app.bootstrap import build_service, reply_words
from pbem.app.config import MailSettings, Settings
from pbem.core.db import Database
from pbem.core.migrate import upgrade
from pbem.core.time_source import SystemClock
from pbem.mail.inbound.pipeline import Inbound
from pbem.mail.inbound.reading import read_message
from pbem.mail.models import PENDING, OutboxMail
from pbem.mail.outbound.relay import Relay
from pbem.mail.outbound.smtp import transport_for

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "mail" / "corpus"


def _settings(url: str, var: Path) -> Settings:
    return Settings(
        database_url=url,
        secret_key="bench-secret-0123456789abcdef",
        var_dir=str(var),
        mail=MailSettings(
            from_address="games@pbem.bench", reply_domain="reply.pbem.bench", relay_batch=200
        ),
    )


def _reply(raw: bytes, move: str) -> bytes:
    original = message_from_bytes(raw, policy=policy.default)
    to = original["Reply-To"].addresses[0].addr_spec
    sender = original["To"].addresses[0].addr_spec
    text = original.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    quoted = "\n".join("> " + line for line in text.splitlines())
    return (
        f"From: <{sender}>\r\nTo: <{to}>\r\nSubject: Re: game\r\n"
        f"Message-ID: <bench.{secrets.token_hex(8)}@client.example>\r\n"
        f"In-Reply-To: {original['Message-ID']}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"\r\n{move}\r\n\r\nOn Monday, pbem wrote:\r\n{quoted}\r\n"
    ).encode()


def bench_parse(rounds: int) -> None:
    if rounds <= 0:
        return
    corpus = [p.read_bytes() for p in sorted(CORPUS.glob("*.eml"))]
    start = time.perf_counter()
    for _ in range(rounds):
        for raw in corpus:
            read_message(raw, ("pbem.example.org",))
    elapsed = time.perf_counter() - start
    n = rounds * len(corpus)
    print(f"parse    {n:6d} messages  {elapsed:7.2f} s  {n / elapsed:8.0f} messages/s")


def bench_inbound(db: Database, settings: Settings, games: int) -> float:
    """One run: ``games`` new games played to the end by replies; returns replies/s."""
    replies, elapsed, cpu = _play(db, settings, games)
    print(
        f"inbound  {replies:6d} replies   {elapsed:7.2f} s  {replies / elapsed:8.1f} replies/s"
        f"  cpu {1000 * cpu / replies:5.2f} ms/reply"
        f"  ({games} games to the end; store, parse, route, apply, outbox write)",
        flush=True,
    )
    return replies / elapsed


def _play(db: Database, settings: Settings, games: int) -> tuple[int, float, float]:
    """``games`` new games played to the end by replies: (replies, seconds and CPU seconds
    spent in ``receive``)."""
    clock = SystemClock()
    service = build_service(settings, db=db, clock=clock)
    inbound = Inbound(db, settings, service, clock, words=reply_words(service))
    elapsed = cpu = 0.0
    replies = 0
    for g in range(games):
        created = service.create_game(
            "lancelot",
            {"players": 2},
            [{"name": "A", "email": f"a{g}@x.bench"}, {"name": "B", "email": f"b{g}@x.bench"}],
        )
        # New addresses are invited, and their turn mails wait until they accept: both
        # players accept by their link first (not timed, like making the game).
        for seat in (0, 1):
            service.accept_invitation(created.id, seat, channel="web")
        while True:
            loaded = service.load(created.id)
            if loaded.finished:
                break
            (seat,) = loaded.to_act
            with db.read() as session:
                turn = session.exec(
                    select(OutboxMail)
                    .where(OutboxMail.game_id == created.id, OutboxMail.seat == seat)
                    .where(OutboxMail.kind == "turn")
                    .order_by(col(OutboxMail.id).desc())
                ).first()
                assert turn is not None
                raw_turn = turn.message
            turn_mail = message_from_bytes(raw_turn, policy=policy.default)
            body = turn_mail.get_body(("plain",)).get_content()  # type: ignore[union-attr]
            move = re.search(r"for example: ([^,…\n]+)", body).group(1).strip()  # type: ignore[union-attr]
            raw = _reply(raw_turn, move)
            start, start_cpu = time.perf_counter(), time.process_time()
            result = inbound.receive(raw, "webhook")
            elapsed += time.perf_counter() - start
            cpu += time.process_time() - start_cpu
            assert result.outcome == "applied", result
            replies += 1
    return replies, elapsed, cpu


def _worker(url: str, var: str, games: int, start: Any, done: Any) -> None:
    db = Database(url)
    try:
        settings = _settings(url, Path(var))
        start.wait(timeout=120)
        done.put(_play(db, settings, games)[0])
    finally:
        db.dispose()


def bench_inbound_workers(url: str, var: Path, games: int, workers: int) -> float:
    """One run by ``workers`` processes at once; returns all their replies per wall second."""
    ctx = multiprocessing.get_context("spawn")
    start, done = ctx.Barrier(workers + 1), ctx.Queue()
    processes = [
        ctx.Process(target=_worker, args=(url, str(var), games, start, done))
        for _ in range(workers)
    ]
    for process in processes:
        process.start()
    start.wait(timeout=120)
    began = time.perf_counter()
    replies = sum(done.get(timeout=600) for _ in processes)
    elapsed = time.perf_counter() - began
    for process in processes:
        process.join(timeout=60)
    print(
        f"inbound  {replies:6d} replies   {elapsed:7.2f} s  {replies / elapsed:8.1f} replies/s"
        f"  ({workers} processes at once, {games} games each, wall time)",
        flush=True,
    )
    return replies / elapsed


class _Sink:
    def __init__(self) -> None:
        self.count = 0

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.count += 1
        return "250 OK"


def bench_relay(db: Database, settings: Settings) -> None:
    with db.read() as session:
        pending = len(session.exec(select(OutboxMail.id).where(OutboxMail.status == PENDING)).all())
    sink = _Sink()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        relay = Relay(db, settings, transport_for(f"smtp://127.0.0.1:{port}", ""), SystemClock())
        start = time.perf_counter()
        sent = 0
        while True:
            result = relay.run_once()
            sent += result.sent
            if result.sent == 0:
                break
        elapsed = time.perf_counter() - start
    finally:
        controller.stop()
    assert sent == pending == sink.count, (sent, pending, sink.count)
    print(
        f"relay    {sent:6d} mails     {elapsed:7.2f} s  {sent / elapsed:8.0f} mails/s (aiosmtpd)"
    )


def _postgres_database(url: str) -> tuple[str, str]:
    name = f"pbem_bench_{secrets.token_hex(4)}"
    admin = make_url(url).set(drivername="postgresql").render_as_string(False)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return make_url(url).set(database=name).render_as_string(False), admin


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5, help="Lancelot games played by reply")
    parser.add_argument("--postgres", help="a PostgreSQL server URL (a database is created)")
    parser.add_argument(
        "--parse-rounds", type=int, default=20, help="rounds over the corpus (0: skip)"
    )
    parser.add_argument(
        "--repeat", type=int, default=5, help="inbound runs (new games each); median reported"
    )
    parser.add_argument("--no-relay", action="store_true", help="skip the relay benchmark")
    parser.add_argument(
        "--workers", type=int, default=1, help="processes replying at once (default 1)"
    )
    args = parser.parse_args()
    var = Path(tempfile.mkdtemp(prefix="pbem-mail-bench-"))
    admin = None
    if args.postgres:
        url, admin = _postgres_database(args.postgres)
    else:
        url = f"sqlite:///{var}/bench.db"
    print(f"database: {make_url(url).get_backend_name()}")
    db = Database(url)
    try:
        upgrade(db)
        settings = _settings(url, var)
        bench_parse(args.parse_rounds)
        runs = range(max(args.repeat, 1))
        if args.workers > 1:
            rates = [bench_inbound_workers(url, var, args.games, args.workers) for _ in runs]
        else:
            rates = [bench_inbound(db, settings, args.games) for _ in runs]
        print(
            f"inbound  median {statistics.median(rates):.1f} replies/s over {len(rates)} runs"
            f" (min {min(rates):.1f}, max {max(rates):.1f})"
        )
        if not args.no_relay:
            bench_relay(db, settings)
    finally:
        db.dispose()
        if admin is not None:
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE "{make_url(url).database}" WITH (FORCE)')


if __name__ == "__main__":
    main()
