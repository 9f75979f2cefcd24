"""``pbem sweep`` as a real process, killed (SIGKILL) at random points and rerun, and two of
them started at once, on SQLite and PostgreSQL: each missed deadline gets exactly one
deadline move, each reminder goes once, no outbox mail is written twice, and the read models
still match the log.

The games are created on a manual clock an hour behind the real one, with time controls of
minutes, so the command (which runs on the real clock) finds their deadlines and reminders
due. Kills land at random delays after the start (often still importing) and at random
amounts of committed work (within a transaction or between two)."""

from __future__ import annotations

import json
import os
import random
import secrets
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from sqlmodel import col, func, select

from pbem.app.bootstrap import build_service
from pbem.app.service import GameService
from pbem.clock import events as ce
from pbem.core import events as ev
from pbem.core.db import Database
from pbem.core.models import Deadline, ReminderSent
from pbem.core.time_source import ManualClock
from pbem.mail.models import OutboxMail
from tests.service.deadline_helpers import accept_all
from tests.service.helpers import REGISTRY
from tests.settings import make_settings
from web.cli import main

# The console command as installed (its entry point is web.cli:main).
PBEM = str(Path(sys.executable).with_name("pbem"))
SECRET = "test-only-secret"  # make_settings' key: the command signs links as the test does
#: created an hour ago: seat 0's deadline passed half an hour ago (its reminder with it, so
#: that is not sent); seat 1's, which the deadline move starts, is half an hour after the sweep
SHORT: dict[str, Any] = {"kind": "fixed", "per_decision": "30m", "reminders": ["10m"]}
#: reminders 90 and 70 minutes before a deadline two hours on (and "80% gone"): all due
#: within the hour the sweep looks ahead, the deadline an hour after the sweep
LONG: dict[str, Any] = {"kind": "fixed", "per_decision": "2h", "reminders": ["90m", "70m"]}


@dataclass
class Batch:
    """Games created an hour ago: ``late`` ones whose deadline passed, ``reminded`` ones
    with reminders due (seat 0's address shared by two games: one mail for both)."""

    late: list[str]
    reminded: list[str]
    #: game -> seat 0's due time and reminder keys, as projected before any sweep
    due: dict[str, tuple[str, set[str]]]
    #: seat 0's address of each reminded game
    address: dict[str, str]


def make_batch(database: Database, tmp_path: Path, late: int, reminded: int) -> Batch:
    started = datetime.now(UTC) - timedelta(hours=1)
    service = build_service(
        make_settings(database.url, tmp_path),
        db=database,
        registry=REGISTRY,
        listeners=[],
        clock=ManualClock(started),
    )
    tag = secrets.token_hex(3)

    def game(tc: dict[str, Any], first: str) -> str:
        players = [
            {"name": "Ann", "email": first},
            {"name": "Bob", "email": f"bob-{secrets.token_hex(4)}@example.org"},
        ]
        return accept_all(service, service.create_game("lancelot", {}, players, time_control=tc).id)

    late_games = [game(SHORT, f"ann-{secrets.token_hex(4)}@example.org") for _ in range(late)]
    address = {
        game(LONG, f"pair{i // 2}-{tag}@example.org"): f"pair{i // 2}-{tag}@example.org"
        for i in range(reminded)
    }
    due = {}
    with database.read() as s:
        for gid in [*late_games, *address]:
            row = s.get(Deadline, (gid, 0))
            assert row is not None and row.status == "running" and row.due_at is not None
            due[gid] = (row.due_at, {key for key, _ in json.loads(row.reminders)})
    return Batch(late_games, list(address), due, address)


def progress(database: Database, batch: Batch) -> int:
    """Deadlines handled and reminders claimed so far (committed)."""
    games = [*batch.late, *batch.reminded]
    with database.read() as s:
        running = s.exec(
            select(func.count())
            .select_from(Deadline)
            .where(col(Deadline.game_id).in_(batch.late), Deadline.seat == 0)
            .where(Deadline.status == "running")
        ).one()
        claimed = s.exec(
            select(func.count())
            .select_from(ReminderSent)
            .where(col(ReminderSent.game_id).in_(games))
        ).one()
    return len(batch.late) - running + claimed


def total_work(batch: Batch) -> int:
    return len(batch.late) + sum(len(batch.due[g][1]) for g in batch.reminded)


def command_env(database: Database, tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PBEM_DATABASE_URL": database.url,
        "PBEM_VAR_DIR": str(tmp_path / "var"),
        "PBEM_SECRET_KEY": SECRET,
        "PBEM_LOG_LEVEL": "WARNING",
    }


def start_sweep(env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [PBEM, "sweep"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )


def finish(process: subprocess.Popen[bytes], timeout: float = 60) -> str:
    out, _ = process.communicate(timeout=timeout)
    text = out.decode(errors="replace")
    assert process.returncode == 0, text
    return text


def kill_at_random_points(
    database: Database, batch: Batch, env: dict[str, str], rng: random.Random, kills: int
) -> list[tuple[str, int]]:
    """Start ``pbem sweep`` ``kills`` times and SIGKILL it: by turns after a random delay
    (0.05 to 1.5 s: while importing, while working, or while exiting) and once a random
    amount of the work is committed, more each time (plus up to 10 ms: inside the next
    transaction as often as between two). Returns how each run ended, ``killed`` or
    ``finished``, with the work committed after it."""
    total = total_work(batch)
    targets = sorted(rng.sample(range(1, total * 4 // 5), kills // 2))
    ends = []
    for i in range(kills):
        process = start_sweep(env)
        if i % 2:
            until = time.monotonic() + rng.uniform(0.05, 1.5)
            while time.monotonic() < until and process.poll() is None:
                time.sleep(0.002)
        else:
            target = targets[i // 2]
            while progress(database, batch) < target and process.poll() is None:
                time.sleep(0.002)
            time.sleep(rng.uniform(0, 0.01))
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
        process.communicate(timeout=60)
        end = "killed" if process.returncode == -signal.SIGKILL else "finished"
        assert end == "killed" or process.returncode == 0
        ends.append((end, progress(database, batch)))
    return ends


def check_once(database: Database, tmp_path: Path, batch: Batch) -> None:
    """Each late game: one DeadlineMissed for its deadline, one deadline move, its two mails
    (the late seat's notice, the next seat's turn) once. Each reminded game: every reminder
    key claimed, one mail per address. No outbox mail twice. Read models match the log."""
    service: GameService = build_service(
        make_settings(database.url, tmp_path), db=database, registry=REGISTRY, listeners=[]
    )
    for gid in batch.late:
        payloads = [e.payload for e in service.raw_events(gid)]
        missed = [p for p in payloads if isinstance(p, ce.DeadlineMissed)]
        assert [(p.seat, p.due_at, p.move) for p in missed] == [(0, batch.due[gid][0], True)]
        moves = [p for p in payloads if isinstance(p, ev.ActionApplied) and p.channel == "deadline"]
        assert [p.seat for p in moves] == [0]
    games = [*batch.late, *batch.reminded]
    with database.read() as s:
        mails = s.exec(select(OutboxMail)).all()
        sent = s.exec(select(ReminderSent).where(col(ReminderSent.game_id).in_(games))).all()
    # No mail written twice: one per game, seat, kind, version and recipient.
    shown = Counter(
        (m.game_id, m.seat, m.kind, m.version, m.recipient) for m in mails if m.kind != "reminder"
    )
    assert [k for k, n in shown.items() if n > 1] == []
    for gid in batch.late:
        assert sorted(m.kind for m in mails if m.game_id == gid) == ["notice", "turn"]
    claimed = Counter((r.game_id, r.seat, r.due_at, r.reminder) for r in sent)
    expected = {(g, 0, batch.due[g][0], key) for g in batch.reminded for key in batch.due[g][1]}
    assert set(claimed) == expected and set(claimed.values()) == {1}
    addresses = set(batch.address.values())
    reminders = [m for m in mails if m.kind == "reminder" and m.recipient in addresses]
    assert sorted(m.recipient for m in reminders) == sorted(addresses)
    for mail in reminders:
        body = mail.message.decode()
        assert all(g in body for g, a in batch.address.items() if a == mail.recipient)
    # Nobody of this batch was reminded but seat 0 of the reminded games.
    late_seats = {(g, s) for g in batch.late for s in (0, 1)}
    assert not [r for r in sent if (r.game_id, r.seat) in late_seats]
    runner = CliRunner()
    env = {"PBEM_DATABASE_URL": database.url, "PBEM_VAR_DIR": str(tmp_path / "var")}
    env["PBEM_SECRET_KEY"] = SECRET
    # ``replay --verify`` compares the read models with the log (the rebuild the service's
    # first_difference makes, each game's costliest check): it says so only when they match.
    for gid in games:
        result = runner.invoke(main, ["replay", gid, "--verify"], env=env)
        assert result.exit_code == 0, result.output
        assert "read models (games, seats, undo requests, disputes) match the log" in result.output


def test_sweeps_killed_at_random_points_then_rerun_act_once(
    database: Database, tmp_path: Path
) -> None:
    batch = make_batch(database, tmp_path, late=20, reminded=10)
    env = command_env(database, tmp_path)
    rng = random.Random(10)
    ends = kill_at_random_points(database, batch, env, rng, kills=8)
    # At least one kill cut a sweep short with part of the work committed (the kills by
    # committed work make sure of it), so the rerun below has something left to finish.
    total = total_work(batch)
    assert any(end == "killed" and 0 < done < total for end, done in ends), ends
    finish(start_sweep(env))
    assert progress(database, batch) == total
    # One more run finds nothing of this batch left to do.
    again = finish(start_sweep(env))
    assert not [g for g in [*batch.late, *batch.reminded] if g in again]
    check_once(database, tmp_path, batch)


def test_two_sweeps_started_at_once_act_once(database: Database, tmp_path: Path) -> None:
    batch = make_batch(database, tmp_path, late=12, reminded=6)
    env = command_env(database, tmp_path)
    processes = [start_sweep(env) for _ in range(2)]
    outputs = [finish(p) for p in processes]
    assert progress(database, batch) == total_work(batch)
    # Between them they reported each deadline move once.
    reported = [line for out in outputs for line in out.splitlines() if " missed; " in line]
    assert sorted(line.split()[1] for line in reported) == sorted(batch.late)
    check_once(database, tmp_path, batch)
