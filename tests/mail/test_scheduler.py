"""The background runner: relay and IMAP poll jobs, run by a real APScheduler on real time.

A run that overruns its interval is never doubled, a run that comes late is made rather
than skipped, and runs missed in a row (a paused or busy process) are made once.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from apscheduler.events import EVENT_JOB_EXECUTED, EVENT_JOB_MISSED, JobExecutionEvent
from apscheduler.jobstores.memory import MemoryJobStore
from apscheduler.schedulers.background import BackgroundScheduler
from imapclient import IMAPClient

from pbem.app.bootstrap import reply_words
from pbem.app.scheduler import build_scheduler, poll_imap
from pbem.mail.inbound.pipeline import Inbound
from tests.mail.helpers import MailWorld, reply_to
from tests.mail.servers import Dovecot, SmtpTestServer, free_port
from tests.settings import with_mail


def _wait_for(condition, timeout: float = 10.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_jobs_are_in_memory_and_the_imap_poll_only_when_configured(world: MailWorld) -> None:
    settings = with_mail(world.settings, imap_url="imap://u:p@127.0.0.1:1/INBOX")
    scheduler = build_scheduler(settings, world.service)
    jobs = {job.id: job for job in scheduler.get_jobs()}
    assert set(jobs) == {
        "mail-relay",
        "webhook-relay",
        "mail-inbound-recovery",
        "mail-imap",
        "deadline-sweep",
        "daily-digest",
    }
    assert jobs["deadline-sweep"].trigger.interval.total_seconds() == 30
    assert jobs["daily-digest"].trigger.interval.total_seconds() == 3600
    for job in jobs.values():
        assert job.misfire_grace_time is None
        assert job.coalesce is True
        assert job.max_instances == 1
    assert isinstance(scheduler._jobstores["default"], MemoryJobStore)
    assert "mail-imap" not in {
        j.id for j in build_scheduler(world.settings, world.service).get_jobs()
    }


class _Runs:
    """What the scheduler did with the relay job: each run's start and end (real time), and
    the time each executed run was due."""

    def __init__(self, scheduler: BackgroundScheduler) -> None:
        self.lock = threading.Lock()
        self.spans: list[tuple[float, float]] = []
        self.due: list[datetime] = []
        self.missed: list[datetime] = []
        job = scheduler.get_job("mail-relay")
        relay: Callable[[], None] = job.func

        def timed() -> None:  # the relay's own run, timed
            started = time.monotonic()
            try:
                relay()
            finally:
                with self.lock:
                    self.spans.append((started, time.monotonic()))

        job.modify(func=timed)
        scheduler.add_listener(self._event, EVENT_JOB_EXECUTED | EVENT_JOB_MISSED)

    def _event(self, event: JobExecutionEvent) -> None:
        if event.job_id == "mail-relay":
            with self.lock:
                (self.due if event.code == EVENT_JOB_EXECUTED else self.missed).append(
                    event.scheduled_run_time
                )


@pytest.fixture
def started() -> Iterator[list[BackgroundScheduler]]:
    """Schedulers a test starts; each is shut down at its end, whatever happened."""
    schedulers: list[BackgroundScheduler] = []
    yield schedulers
    for scheduler in schedulers:
        scheduler.shutdown(wait=True)


def _paused(world: MailWorld, started: list[BackgroundScheduler], interval: int) -> Any:
    scheduler = build_scheduler(with_mail(world.settings, relay_interval=interval), world.service)
    scheduler.start(paused=True)  # started, but processing no job: a process held up
    started.append(scheduler)
    return scheduler, _Runs(scheduler)


def test_a_run_due_while_the_scheduler_was_held_up_is_made_late_not_skipped(
    world: MailWorld, started: list[BackgroundScheduler]
) -> None:
    scheduler, runs = _paused(world, started, interval=60)
    # The first relay run (due at start) is now 1.5 s late: past APScheduler's default grace
    # of 1 s, which would have skipped it.
    time.sleep(1.5)
    scheduler.resume()
    assert _wait_for(lambda: runs.due or runs.missed)
    time.sleep(0.3)
    assert runs.missed == []
    assert len(runs.due) == 1 and len(runs.spans) == 1


def test_runs_missed_in_a_row_are_made_once(
    world: MailWorld, started: list[BackgroundScheduler]
) -> None:
    scheduler, runs = _paused(world, started, interval=1)
    time.sleep(2.6)  # three runs fall due meanwhile, one a second
    resumed = datetime.now(UTC)
    scheduler.resume()
    assert _wait_for(lambda: len(runs.due) >= 1)
    time.sleep(1.5)  # the next regular runs come
    late = [due for due in runs.due if due < resumed]
    # Coalesced: of the runs missed while held up only the last one is made.
    assert len(late) == 1, runs.due
    assert late[0] > resumed - timedelta(seconds=1)
    assert runs.missed == []


class _SlowSmtp:
    """A real SMTP server that takes ``delay`` seconds to accept each mail."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.recipients: list[str] = []
        self.port = free_port()
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        await asyncio.sleep(self.delay)
        self.recipients.extend(envelope.rcpt_tos)
        return "250 2.0.0 Ok: queued"


def test_a_run_overrunning_its_interval_is_never_doubled(
    world: MailWorld, started: list[BackgroundScheduler]
) -> None:
    smtp = _SlowSmtp(delay=0.8)
    smtp.controller.start()
    try:
        world.new_game()
        world.new_game()  # four mails: one relay run takes over 3 s, its interval is 1 s
        settings = with_mail(world.settings, smtp_url=f"smtp://127.0.0.1:{smtp.port}")
        scheduler = build_scheduler(with_mail(settings, relay_interval=1), world.service)
        scheduler.start(paused=True)
        started.append(scheduler)
        runs = _Runs(scheduler)
        scheduler.resume()
        assert _wait_for(lambda: len(smtp.recipients) == 4)
        time.sleep(2.5)  # the runs after the long one
        scheduler.shutdown(wait=True)
        started.remove(scheduler)
    finally:
        smtp.controller.stop()
    spans = sorted(runs.spans)
    assert spans[0][1] - spans[0][0] > 3  # the first run overran its interval three times
    # No run began before the previous one ended, and the job went on after the long run.
    assert all(later[0] >= earlier[1] for earlier, later in itertools.pairwise(spans))
    assert len(spans) >= 2
    assert sorted(smtp.recipients) == sorted(
        ["alice@example.com", "bob@example.com"] * 2
    )  # each mail sent once


def test_the_running_scheduler_sends_the_outbox(
    world: MailWorld, smtp_server: SmtpTestServer
) -> None:
    settings = with_mail(world.settings, smtp_url=smtp_server.url, relay_interval=1)
    scheduler = build_scheduler(settings, world.service)
    scheduler.start()
    try:
        world.new_game()
        assert _wait_for(lambda: len(smtp_server.messages()) == 2)
    finally:
        scheduler.shutdown(wait=True)
    assert sorted(r.rcpt_tos[0] for r in smtp_server.messages()) == [
        "alice@example.com",
        "bob@example.com",
    ]


def test_the_sweep_job_logs_each_deadline_move_at_info(
    world: MailWorld, caplog: pytest.LogCaptureFixture
) -> None:
    seats = [
        {"name": "Alice", "email": "alice@example.com"},
        {"name": "Bob", "email": "bob@example.com"},
    ]
    world.welcome(seats)
    game = world.service.create_game("lancelot", {}, seats, channel="api", time_control="1h")
    sweep = build_scheduler(world.settings, world.service).get_job("deadline-sweep").func
    with caplog.at_level(logging.INFO, logger="pbem"):
        sweep()  # nothing due: nothing said
        assert not [r for r in caplog.records if r.name == "pbem.app.scheduler"]
        world.clock.advance(timedelta(hours=2))
        sweep()
    lines = [r.getMessage() for r in caplog.records if r.name == "pbem.app.scheduler"]
    assert any(f"game {game.id} seat 0: deadline" in line and "played" in line for line in lines), (
        lines
    )
    assert lines[-1].endswith("1 deadline(s), 0 reminder mail(s), 0 skipped, 0 failed")


def test_a_reply_in_the_imap_mailbox_is_applied_once(world: MailWorld, dovecot: Dovecot) -> None:
    game = world.new_game()
    turn = next(m for m in world.outbox(game.id) if m.kind == "turn")
    with IMAPClient("127.0.0.1", port=dovecot.port, ssl=False) as client:
        client.login(dovecot.user, dovecot.password)
        client.append("INBOX", reply_to(turn, "E5"))
        client.append("INBOX", b"From: x@spam.example\r\nSubject: hi\r\n\r\nbuy now\r\n")
    settings = with_mail(world.settings, imap_url=dovecot.url)
    inbound = Inbound(
        world.db, settings, world.service, world.clock, words=reply_words(world.service)
    )
    assert poll_imap(settings, inbound) == 2
    assert poll_imap(settings, inbound) == 0
    events = world.service.raw_events(game.id)
    assert [e.data["canonical"] for e in events if e.type == "ActionApplied"] == ["E5"]
    assert events[-1].data["channel"] == "email"
