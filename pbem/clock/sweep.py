"""The sweep: find the deadlines and reminders that are due, and act on each exactly once.

``find_due`` reads the ``deadlines`` read model through its indexes (``act_at``,
``next_reminder_at``): no game is replayed to know what is due. ``Sweeper.sweep`` then makes
each deadline move through the application service (``GameService.deadline_passed``, which
checks again under the game's lock) and sends the reminders (``pbem.clock.reminders``,
claimed by their ``ReminderSent`` rows). So two sweeps at once, or a sweep rerun after a
crash, act once: the loser of a race finds nothing left to do.

APScheduler only triggers it (``pbem.app.scheduler``, job ``deadline-sweep``); ``pbem sweep``
runs one by hand.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from pbem.app.config import Settings
from pbem.app.service import GameService
from pbem.clock.deadline_moves import DeadlineAct
from pbem.clock.preferences import address_key
from pbem.clock.reminders import DueReminder, ReminderMail, due_reminders
from pbem.clock.reminders import send_reminders as write_reminders
from pbem.core.db import Database
from pbem.core.models import Deadline
from pbem.core.time_source import format_time

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DueDeadline:
    game_id: str
    seat: int
    due_at: str


@dataclass(frozen=True)
class Due:
    deadlines: list[DueDeadline]
    reminders: list[DueReminder]


def find_due(session: Session, now: datetime, limit: int) -> Due:
    """The running deadlines whose act time has come, and the reminders due and not sent,
    at most ``limit`` of each, the oldest first."""
    stamp = format_time(now)
    rows = session.exec(
        select(Deadline.game_id, Deadline.seat, Deadline.due_at)
        .where(col(Deadline.act_at) <= stamp, Deadline.status == "running")
        .order_by(col(Deadline.act_at))
        .limit(limit)
    ).all()
    deadlines = [DueDeadline(g, s, d) for g, s, d in rows if d is not None]
    return Due(deadlines, due_reminders(session, now, now, limit))


@dataclass
class SweepReport:
    """What one sweep did."""

    moves: list[DeadlineAct] = field(default_factory=list)
    mails: list[ReminderMail] = field(default_factory=list)
    #: due items another sweep handled first (or that changed before they were handled)
    skipped: int = 0
    #: items that failed (logged; the next sweep tries them again)
    failed: int = 0

    def lines(self) -> list[str]:
        out = []
        for m in self.moves:
            if not m.move:
                what = "the game waits"
            elif m.played is None:
                what = f"a secret action was played ({m.reason})"
            else:
                what = f"played {m.played} ({m.reason})"
            out.append(f"game {m.game_id} seat {m.seat}: deadline {m.due_at} missed; {what}")
        for r in self.mails:
            games = ", ".join(f"{g} seat {s}" for g, s in r.seats)
            out.append(f"reminder to {r.address}: {r.reminders} reminder(s) for {games}")
        out.append(
            f"{len(self.moves)} deadline(s), {len(self.mails)} reminder mail(s), "
            f"{self.skipped} skipped, {self.failed} failed"
        )
        return out


#: What else a reminder mail causes, in its transaction (given the session, the mail and the
#: time): the composition root passes the webhooks' notices (``pbem.webhooks.listener``).
OnReminded = Callable[[Session, ReminderMail, datetime], None]


class Sweeper:
    """Acts on what is due (built by ``pbem.app.bootstrap.build_sweeper``)."""

    def __init__(
        self,
        db: Database,
        service: GameService,
        settings: Settings,
        on_reminded: OnReminded | None = None,
    ) -> None:
        #: what is due is read, and the reminders claimed, in this database; each deadline
        #: move goes through ``service``
        self.db = db
        self.service = service
        self.settings = settings
        #: run in the transaction that writes a reminder mail (the webhooks' notices of it)
        self.on_reminded = on_reminded

    def sweep(self, now: datetime | None = None) -> SweepReport:
        """One sweep at ``now`` (the service's clock by default)."""
        now = now or self.service.clock.now()
        limit = self.settings.deadlines.sweep_batch
        with self.db.read() as session:
            due = find_due(session, now, limit)
        report = SweepReport()
        for d in due.deadlines:
            try:
                act = self.service.deadline_passed(d.game_id, d.seat, d.due_at, now)
            except Exception:  # one game's failure must not stop the others; retried next time
                log.exception("deadline of game %s seat %s failed", d.game_id, d.seat)
                report.failed += 1
                continue
            if act is None:
                report.skipped += 1
            else:
                report.moves.append(act)
        # The moves made above ended those decisions: their reminders are no longer due.
        self._remind(due.reminders, now, report)
        return report

    def _remind(self, due: list[DueReminder], now: datetime, report: SweepReport) -> None:
        addresses: dict[str, str] = {}
        for r in due:
            addresses.setdefault(address_key(r.address), r.address)
        for address in addresses.values():
            try:
                mail = self._remind_address(address, now)
            except IntegrityError:
                report.skipped += 1  # another sweep claimed one of them first: it sends them
                continue
            except Exception:
                log.exception("reminders to %s failed", address)
                report.failed += 1
                continue
            if mail is None:
                report.skipped += 1
            else:
                report.mails.append(mail)

    def _remind_address(self, address: str, now: datetime) -> ReminderMail | None:
        limit = self.settings.deadlines.sweep_batch
        with self.db.write() as session:
            # The game as it stands: its seats' names (labels such as colours come from its
            # public view) and what its deadline would play for the reminded seat.
            mail = write_reminders(session, self.settings, address, now, self.service.load, limit)
            if mail is not None and self.on_reminded is not None:
                self.on_reminded(session, mail, now)
            return mail
