"""The relay: sends the outbox's mails (``pbem.mail.outbound.outbox``) that are due.

``Relay.run_once`` sends what is due. Rows are claimed in a short transaction (``FOR UPDATE
SKIP LOCKED`` on PostgreSQL, so concurrent relays take different rows; on SQLite a named
lease lets one relay run at a time) and leased for ``lease_seconds``. Each row's result is
written right after it is sent, and once half the lease is gone the same transaction renews
the lease of the rows still to send: every mail starts going out with at least half a lease
left, so however long a batch takes, another relay never takes a row this one will still
send (it could only if one mail took longer than half the lease to send). A failure is
retried with exponential backoff up to a cap; after ``max_attempts`` failures, or at once for
a permanent refusal, the row is dead.

One window remains where a mail goes out twice: a relay stopped (killed, the machine lost)
after the server's 250 and before recording it. Its rows are taken over when the lease runs
out and sent again — the same bytes, Message-ID included, so the recipient's client and our
own inbound pipeline see one message. The relay taking over logs each such row.
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, or_, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from pbem.app.config import Settings
from pbem.core.db import Database
from pbem.core.time_source import Clock, SystemClock, format_time
from pbem.mail.models import DEAD, PENDING, SENDING, SENT, AddressFailure, Lease, OutboxMail
from pbem.mail.outbound.smtp import SendError, Transport

log = logging.getLogger(__name__)


@dataclass
class RelayResult:
    sent: int = 0
    retried: int = 0
    dead: int = 0
    #: another relay held the lease (SQLite): nothing was tried
    skipped: bool = False


def default_owner() -> str:
    return f"{socket.gethostname()[:30]}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def take_lease(session: Session, name: str, owner: str, now: datetime, seconds: int) -> bool:
    """Take (or renew) the named lease; False when another owner holds it unexpired."""
    stamp, until = format_time(now), format_time(now + timedelta(seconds=seconds))
    row = session.exec(select(Lease).where(Lease.name == name).with_for_update()).first()
    if row is None:
        try:
            with session.begin_nested():
                session.add(Lease(name=name, owner=owner, expires_at=until))
        except IntegrityError:
            return False  # someone created it first: theirs now
        return True
    if row.owner != owner and row.expires_at > stamp:
        return False
    row.owner, row.expires_at = owner, until
    session.add(row)
    return True


def release_lease(session: Session, name: str, owner: str, now: datetime) -> None:
    row = session.get(Lease, name)
    if row is not None and row.owner == owner:
        row.expires_at = format_time(now)
        session.add(row)


def backoff(settings: Settings, failures: int) -> timedelta:
    """The wait after the ``failures``-th failure: base, 2·base, 4·base … up to the cap."""
    mail = settings.mail
    seconds = mail.backoff_base * 2 ** min(max(failures - 1, 0), 30)
    return timedelta(seconds=min(mail.backoff_cap, seconds))


class Relay:
    def __init__(
        self,
        db: Database,
        settings: Settings,
        transport: Transport,
        clock: Clock | None = None,
        owner: str | None = None,
    ) -> None:
        self.db = db
        self.settings = settings
        self.transport = transport
        self.clock: Clock = clock or SystemClock()
        self.owner = owner or default_owner()

    def _claim(self) -> list[OutboxMail]:
        mail = self.settings.mail
        now = self.clock.now()
        stamp = format_time(now)
        with self.db.write() as session:
            if self.db.is_sqlite and not take_lease(
                session, "relay", self.owner, now, mail.lease_seconds
            ):
                raise _LeaseHeld
            due = or_(
                (col(OutboxMail.status) == PENDING) & (col(OutboxMail.next_attempt_at) <= stamp),
                # A relay that died while sending: its lease ran out, the row is due again.
                (col(OutboxMail.status) == SENDING) & (col(OutboxMail.lease_expires_at) < stamp),
            )
            rows = list(
                session.exec(
                    select(OutboxMail)
                    .where(due)
                    .order_by(col(OutboxMail.id))
                    .limit(mail.relay_batch)
                    .with_for_update(skip_locked=True)
                )
            )
            until = format_time(now + timedelta(seconds=mail.lease_seconds))
            for row in rows:
                if row.status == SENDING:
                    log.warning(
                        "relay: mail %s <%s> to %s was being sent by %s, which stopped before "
                        "recording the result; it may have been sent already and goes again "
                        "with the same Message-ID",
                        row.id,
                        row.message_id,
                        row.recipient,
                        row.lease_owner,
                    )
                row.status, row.lease_owner, row.lease_expires_at = SENDING, self.owner, until
                session.add(row)
        return rows

    def _settle(
        self, row: OutboxMail, error: SendError | None, still_to_send: Sequence[OutboxMail] = ()
    ) -> tuple[str, list[OutboxMail]]:
        """Write one row's result (only while we still hold its lease) and, in the same
        transaction, renew the lease of the rows still to send when half of it is gone;
        returns the row's status and those of ``still_to_send`` this relay still holds (a row
        whose lease ran out may have been taken by another relay: not ours to send any more)."""
        now = self.clock.now()
        if error is None and (row.lease_expires_at or "") < format_time(now):
            log.warning(
                "relay: mail %s <%s> took longer to send than its lease (%s s): another relay "
                "may have sent it too",
                row.id,
                row.message_id,
                self.settings.mail.lease_seconds,
            )
        attempts = row.attempts + 1
        values: dict[str, object] = {"attempts": attempts, "lease_owner": None}
        if error is None:
            values.update(status=SENT, sent_at=format_time(now), last_error=None)
        elif error.permanent or attempts >= self.settings.mail.max_attempts:
            values.update(status=DEAD, last_error=str(error)[:2000])
        else:
            values.update(
                status=PENDING,
                last_error=str(error)[:2000],
                next_attempt_at=format_time(now + backoff(self.settings, attempts)),
            )
        with self.db.write() as session:
            session.exec(
                update(OutboxMail)
                .where(col(OutboxMail.id) == row.id, col(OutboxMail.lease_owner) == self.owner)
                .values(**values)
            )
            if error is not None and error.refused:
                record_failure(session, row.recipient, str(error), now)
            held = list(still_to_send)
            # Renewed once half the lease is gone: every mail starts going out with at least
            # half a lease left, and most mails cost no extra write (a renewal rewrites the
            # rest of the batch, message bodies included).
            half = timedelta(seconds=self.settings.mail.lease_seconds / 2)
            if held and min(r.lease_expires_at or "" for r in held) < format_time(now + half):
                held = self._renew(session, held, now)
        return str(values["status"]), held

    def _renew(self, session: Session, rows: list[OutboxMail], now: datetime) -> list[OutboxMail]:
        """Extend this relay's lease on ``rows``; the rows it still held. A row stays ours
        while its ``lease_owner`` is us: another relay claiming it writes its own name."""
        seconds = self.settings.mail.lease_seconds
        until = format_time(now + timedelta(seconds=seconds))
        if self.db.is_sqlite:  # keep the one-relay-at-a-time lease with the rows
            take_lease(session, "relay", self.owner, now, seconds)
        ids = [r.id for r in rows]
        ours = (
            col(OutboxMail.id).in_(ids),
            col(OutboxMail.lease_owner) == self.owner,
            col(OutboxMail.status) == SENDING,
        )
        renewed = session.exec(update(OutboxMail).where(*ours).values(lease_expires_at=until))
        if renewed.rowcount != len(ids):
            still = set(session.exec(select(OutboxMail.id).where(*ours)))
            rows = [r for r in rows if r.id in still]
        for r in rows:
            r.lease_expires_at = until
        return rows

    def run_once(self) -> RelayResult:
        result = RelayResult()
        try:
            rows = self._claim()
        except _LeaseHeld:
            result.skipped = True
            return result
        try:
            if not rows:
                return result
            pending = list(rows)
            try:
                with self.transport.session() as session:
                    while pending:
                        row = pending.pop(0)
                        try:
                            session.send(row.envelope_from, [row.recipient], row.message)
                            error: SendError | None = None
                        except SendError as e:
                            error = e
                        status, pending = self._settle(row, error, pending)
                        _count(result, status)
            except SendError as e:  # the connection could not be opened: retry them all
                log.warning("relay: %s", e)
                for row in pending:
                    _count(result, self._settle(row, e)[0])
            return result
        finally:
            if self.db.is_sqlite:
                with self.db.write() as session:
                    release_lease(session, "relay", self.owner, self.clock.now())


class _LeaseHeld(Exception):
    pass


def _count(result: RelayResult, status: str) -> None:
    if status == SENT:
        result.sent += 1
    elif status == DEAD:
        result.dead += 1
    else:
        result.retried += 1


def record_failure(session: Session, address: str, reason: str, now: datetime) -> None:
    """Mark an address as failing (a bounce or a refusal); shown to the game's players."""
    address = address.lower()
    stamp = format_time(now)
    row = session.get(AddressFailure, address)
    if row is None:
        row = AddressFailure(address=address, first_failed_at=stamp, last_failed_at=stamp)
    row.failures += 1
    row.last_failed_at = stamp
    row.last_reason = reason[:2000]
    session.add(row)


def clear_failure(session: Session, address: str) -> None:
    """Mail from this address reached us: it works again."""
    # One statement, not a lookup and then a delete (nothing in the session tracks these
    # rows, so it need not look for them there).
    session.exec(
        delete(AddressFailure)
        .where(col(AddressFailure.address) == address.lower())
        .execution_options(synchronize_session=False)
    )


def requeue_dead(db: Database, clock: Clock, ids: list[int] | None = None) -> int:
    """Put dead mails back in the queue (all of them, or those with these ids)."""
    with db.write() as session:
        query = update(OutboxMail).where(col(OutboxMail.status) == DEAD)
        if ids is not None:
            query = query.where(col(OutboxMail.id).in_(ids))
        done = session.exec(
            query.values(status=PENDING, attempts=0, next_attempt_at=format_time(clock.now()))
        )
        return int(done.rowcount or 0)
