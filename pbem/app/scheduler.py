"""The background runner: APScheduler 3 running the mail relay, the webhook relay
(``pbem.webhooks.relay``), the inbound recovery (messages left by a worker that died,
``pbem.mail.inbound.recovery``), the IMAP poll, the deadline sweep (``pbem.clock.sweep``)
and the daily digest (``pbem.clock.digest``) on intervals.

Embedded in ``pbem serve`` by default (``mail.embedded_scheduler``), or its own process as
``pbem scheduler`` when several web workers run. Jobs live in a MemoryJobStore (nothing is
pickled: they are created from the settings at every start), every job has
``misfire_grace_time=None`` (a late run is never skipped), ``coalesce=True`` (runs missed
while the process was busy or asleep collapse into one) and ``max_instances=1``.

The work itself is safe to run from several processes at once (leases in the database), so
a second scheduler is wasteful, never harmful.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
from collections.abc import Callable
from datetime import UTC, datetime

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.jobstores.memory import MemoryJobStore
from apscheduler.schedulers.background import BackgroundScheduler

from pbem.app.bootstrap import (
    build_digester,
    build_inbound,
    build_relay,
    build_service,
    build_sweeper,
    build_webhook_relay,
)
from pbem.app.config import Settings
from pbem.app.service import GameService
from pbem.clock.digest import INTERVAL_SECONDS as DIGEST_INTERVAL
from pbem.clock.sweep import Sweeper, SweepReport
from pbem.mail.inbound.imap import parse_imap_url, poll
from pbem.mail.inbound.pipeline import Inbound, TooLarge
from pbem.mail.inbound.recovery import recover_stranded

log = logging.getLogger(__name__)

JOB_DEFAULTS = {"misfire_grace_time": None, "coalesce": True, "max_instances": 1}


def poll_imap(settings: Settings, inbound: Inbound) -> int:
    """One IMAP poll: every new message goes through the inbound pipeline."""

    def handle(raw: bytes) -> None:
        try:
            inbound.receive(raw, "imap")
        except TooLarge as error:
            log.warning("IMAP message refused: %s", error)

    return poll(
        parse_imap_url(settings.mail.imap_url),
        handle,
        max_bytes=settings.mail.max_inbound_bytes,
    )


def _logged(name: str, job: Callable[[], object]) -> Callable[[], None]:
    def run() -> None:
        try:
            result = job()
            log.debug("%s: %s", name, result)
        except Exception:  # a job failing must not stop the scheduler; it runs again later
            log.exception("%s failed", name)

    return run


def _sweep_logged(sweeper: Sweeper) -> Callable[[], None]:
    """The sweep, each deadline move and reminder mail it made logged at INFO: what an
    operator reads to know why a move was played for someone (``pbem sweep`` prints the
    same lines). A sweep that found nothing says nothing, every second or so."""

    def sweep() -> SweepReport:
        report = sweeper.sweep()
        if report.moves or report.mails or report.failed:
            for line in report.lines():
                log.info("deadline sweep: %s", line)
        return report

    return _logged("deadline sweep", sweep)


def log_to_stderr(settings: Settings) -> None:
    """Show the service's log on stderr at ``log_level`` in a long-running process. Without
    a handler Python prints only warnings and errors (its last-resort handler), whatever
    ``log_level`` says, and the INFO lines (the jobs started, the deadline moves) were
    lost. A handler someone configured already (gunicorn's, a test's) is left alone."""
    logger = logging.getLogger("pbem")
    if logger.handlers or logging.getLogger().handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(settings.log_level.upper())


def build_scheduler(settings: Settings, service: GameService | None = None) -> BackgroundScheduler:
    """A scheduler with the mail jobs (not started)."""
    service = service or build_service(settings)
    scheduler = BackgroundScheduler(
        jobstores={"default": MemoryJobStore()},
        executors={"default": ThreadPoolExecutor(max_workers=4)},
        job_defaults=JOB_DEFAULTS,
        timezone=UTC,
    )
    relay = build_relay(service, settings)
    now = datetime.now(UTC)
    scheduler.add_job(
        _logged("mail relay", relay.run_once),
        "interval",
        seconds=max(1, settings.mail.relay_interval),
        id="mail-relay",
        next_run_time=now,  # send what waited while the service was down, at once
        **JOB_DEFAULTS,
    )
    webhook_relay = build_webhook_relay(service, settings)
    scheduler.add_job(
        _logged("webhook relay", webhook_relay.run_once),
        "interval",
        seconds=max(1, settings.webhooks.relay_interval),
        id="webhook-relay",
        next_run_time=now,  # deliver what waited while the service was down, at once
        **JOB_DEFAULTS,
    )
    inbound = build_inbound(service, settings)
    scheduler.add_job(
        _logged("inbound recovery", lambda: recover_stranded(inbound)),
        "interval",
        # As often as the relay: a stranded message waits for its lease to run out first.
        seconds=max(1, settings.mail.relay_interval),
        id="mail-inbound-recovery",
        next_run_time=now,  # what a crash left before this start, at once
        **JOB_DEFAULTS,
    )
    sweeper = build_sweeper(service, settings)
    scheduler.add_job(
        _sweep_logged(sweeper),
        "interval",
        seconds=max(1, settings.deadlines.sweep_interval),
        id="deadline-sweep",
        # Deadlines that passed while the service was down are acted on at once; the next
        # seat's time counts from then (the move's recorded time), not from the past.
        next_run_time=now,
        **JOB_DEFAULTS,
    )
    digester = build_digester(service, settings)
    scheduler.add_job(
        _logged("daily digest", digester.run),
        "interval",
        # Hourly: the first run of a UTC day sends its digests (claimed once per day).
        seconds=DIGEST_INTERVAL,
        id="daily-digest",
        next_run_time=now,
        **JOB_DEFAULTS,
    )
    if settings.mail.imap_url:
        scheduler.add_job(
            _logged("IMAP poll", lambda: poll_imap(settings, inbound)),
            "interval",
            seconds=max(5, settings.mail.imap_interval),
            id="mail-imap",
            next_run_time=now,
            **JOB_DEFAULTS,
        )
    return scheduler


def serve_hook(settings: Settings) -> Callable[[], None]:
    """For ``pbem serve``: start the embedded scheduler; returns the function that stops it."""
    if not settings.mail.embedded_scheduler:
        return lambda: None
    log_to_stderr(settings)
    scheduler = build_scheduler(settings)
    scheduler.start()
    log.info("embedded scheduler started: %s", ", ".join(j.id for j in scheduler.get_jobs()))
    return lambda: scheduler.shutdown(wait=True)


def run_forever(settings: Settings) -> None:
    """``pbem scheduler``: run the jobs until SIGINT or SIGTERM."""
    log_to_stderr(settings)
    scheduler = build_scheduler(settings)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    scheduler.start()
    log.info("scheduler running: %s", ", ".join(j.id for j in scheduler.get_jobs()))
    stop.wait()
    scheduler.shutdown(wait=True)
