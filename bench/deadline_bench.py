"""Deadline benchmark (not a test): finding what is due among many active games, and handling
it (reminder mails, deadline moves with their mails).

For each run, on a fresh database:

- ``--due`` real two-player Lancelot games are created through the game service (time
  control: 1 hour per move, default reminders), both players accepting their invitations, at
  a stopped clock's T0; each game's players have addresses of their own;
- the deadlines of ``--games`` − ``--due`` more active games are added to the ``deadlines``
  read model directly, all due in 30 days (the sweep reads that table alone, through its
  indexes, so these rows cost the finding exactly what real games' rows would; making
  100,000 real games would take the benchmark an hour);
- **find**: ``find_due`` at T0 + 2 h (every real game's deadline has passed), timed
  ``--find-repeat`` times (read only), median reported; it must find exactly ``--due``;
- **reminders**: one sweep at T0 + 50 min, when every real game's "80% gone" reminder is
  due: ``--due`` reminder mails written to the outbox;
- **moves**: one sweep at T0 + 2 h: ``--due`` deadline moves, each with DeadlineMissed, the
  default move and every seat's mails in the outbox.

    .venv/bin/python bench/deadline_bench.py                 # SQLite file in a temp folder
    .venv/bin/python bench/deadline_bench.py --postgres postgresql://postgres@127.0.0.1/test
    .venv/bin/python bench/deadline_bench.py --games 100000 --due 1000 --repeat 3

Target: finding under 1 s on SQLite and on PostgreSQL. Medians over ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import secrets
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psycopg
from sqlalchemy import insert
from sqlalchemy.engine import make_url

from pbem.app.bootstrap import build_service, build_sweeper
from pbem.app.config import DeadlineSettings, MailSettings, Settings
from pbem.clock.sweep import find_due
from pbem.core.db import Database
from pbem.core.migrate import upgrade
from pbem.core.models import Deadline
from pbem.core.time_source import ManualClock, format_time

T0 = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)
TIME_CONTROL = {"kind": "fixed", "per_decision": "1h"}


def _settings(url: str, var: Path, batch: int) -> Settings:
    return Settings(
        database_url=url,
        secret_key="bench-secret-0123456789abcdef",
        var_dir=str(var),
        mail=MailSettings(from_address="games@pbem.bench", reply_domain="reply.pbem.bench"),
        deadlines=DeadlineSettings(sweep_batch=batch),
    )


def _postgres_database(url: str) -> tuple[str, str]:
    name = f"pbem_bench_{secrets.token_hex(4)}"
    admin = make_url(url).set(drivername="postgresql").render_as_string(False)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return make_url(url).set(database=name).render_as_string(False), admin


def _fill(db: Database, count: int) -> None:
    """``count`` running deadlines of other games, due in 30 days."""
    due = T0 + timedelta(days=30)
    rows = [
        {
            "game_id": f"x{i:09d}",
            "seat": 0,
            "status": "running",
            "owes_since": format_time(T0),
            "due_at": format_time(due),
            "act_at": format_time(due),
            "reminders": "[]",
            "next_reminder_at": format_time(due - timedelta(hours=4)),
            "bank": None,
            "standing_order": None,
            "away_until": None,
        }
        for i in range(count)
    ]
    with db.write() as session:
        for start in range(0, len(rows), 5000):
            session.execute(insert(Deadline), rows[start : start + 5000])


def one_run(url: str, var: Path, args: argparse.Namespace) -> dict[str, float]:
    db = Database(url)
    try:
        upgrade(db)
        settings = _settings(url, var, args.due)
        clock = ManualClock(T0)
        service = build_service(settings, db=db, clock=clock)
        started = time.perf_counter()
        for i in range(args.due):
            tag = secrets.token_hex(4)
            created = service.create_game(
                "lancelot",
                {},
                [
                    {"name": "Ann", "email": f"ann-{tag}@bench.example"},
                    {"name": "Bob", "email": f"bob-{tag}@bench.example"},
                ],
                time_control=TIME_CONTROL,
            )
            for seat in (0, 1):
                service.accept_invitation(created.id, seat, channel="web")
            if (i + 1) % 200 == 0:
                print(f"  {i + 1}/{args.due} games made", file=sys.stderr)
        made = time.perf_counter() - started
        _fill(db, args.games - args.due)
        print(
            f"  {args.due} games in {made:.1f} s, {args.games - args.due} rows added",
            file=sys.stderr,
        )

        at = T0 + timedelta(hours=2)
        finds = []
        for _ in range(args.find_repeat):
            with db.read() as session:
                t = time.perf_counter()
                due = find_due(session, at, args.due)
                finds.append(time.perf_counter() - t)
            if len(due.deadlines) != args.due:
                raise SystemExit(f"found {len(due.deadlines)} due deadlines, not {args.due}")

        sweeper = build_sweeper(service, settings)
        t = time.perf_counter()
        reminded = sweeper.sweep(T0 + timedelta(minutes=50))
        reminders = time.perf_counter() - t
        if len(reminded.mails) != args.due or reminded.failed:
            raise SystemExit(
                f"reminder sweep: {len(reminded.mails)} mails, {reminded.failed} failed"
            )

        clock.set(at)
        t = time.perf_counter()
        moved = sweeper.sweep(at)
        moves = time.perf_counter() - t
        if len(moved.moves) != args.due or moved.failed:
            raise SystemExit(f"deadline sweep: {len(moved.moves)} moves, {moved.failed} failed")
        return {"find": statistics.median(finds), "reminders": reminders, "moves": moves}
    finally:
        db.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000, help="active games in all")
    parser.add_argument("--due", type=int, default=1000, help="of which due (real games)")
    parser.add_argument("--repeat", type=int, default=3, help="runs on fresh databases")
    parser.add_argument("--find-repeat", type=int, default=9, help="finds timed per run")
    parser.add_argument("--postgres", help="a PostgreSQL server URL (a database is created)")
    args = parser.parse_args()
    results = []
    for run in range(args.repeat):
        var = Path(tempfile.mkdtemp(prefix="pbem-deadline-bench-"))
        admin = None
        if args.postgres:
            url, admin = _postgres_database(args.postgres)
        else:
            url = f"sqlite:///{var}/bench.db"
        print(f"run {run + 1}/{args.repeat} on {make_url(url).get_backend_name()}", file=sys.stderr)
        try:
            results.append(one_run(url, var, args))
        finally:
            if admin is not None:
                with psycopg.connect(admin, autocommit=True) as conn:
                    conn.execute(f'DROP DATABASE "{make_url(url).database}" WITH (FORCE)')
    backend = "postgresql" if args.postgres else "sqlite"
    n = args.due

    def med(key: str) -> float:
        return statistics.median(r[key] for r in results)

    print(f"database {backend}: {args.games} active games, {n} due; medians of {len(results)} runs")
    print(f"find       {med('find') * 1000:8.1f} ms for {n} due deadlines")
    print(
        f"reminders  {med('reminders'):8.2f} s  for {n} mails     "
        f"{med('reminders') / n * 1000:6.1f} ms each"
    )
    print(
        f"moves      {med('moves'):8.2f} s  for {n} deadline moves "
        f"{med('moves') / n * 1000:6.1f} ms each (with every seat's mails)"
    )


if __name__ == "__main__":
    main()
