"""The mail queues as an operator sees them: how many mails wait, were sent or died, the
inbound messages' outcomes, the dead letters and the latest inbound messages; and what an
operator does to them (dead mails queued again, old raw mail purged). ``pbem mail status``,
``mail dead``, ``mail inbound``, ``mail retry`` and ``mail purge-inbound`` call these through
the service."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func
from sqlmodel import col, select

from pbem.app.config import Settings
from pbem.core.db import Database
from pbem.core.time_source import Clock
from pbem.mail.inbound import retention
from pbem.mail.models import DEAD, AddressFailure, InboundMail, OutboxMail
from pbem.mail.outbound import relay


@dataclass(frozen=True)
class MailCounts:
    """``outbox``: (status, count) per outbox status; ``inbound``: (outcome, count) per
    inbound outcome (None: not processed yet); ``failing_addresses``: the addresses whose
    mails bounce or fail."""

    outbox: Sequence[tuple[str, int]]
    inbound: Sequence[tuple[str | None, int]]
    failing_addresses: int


class MailQueues:
    """The outbox and the inbound messages, each read or change in its own transaction."""

    def __init__(self, db: Database, settings: Settings, clock: Clock) -> None:
        self.db = db
        self.settings = settings
        self.clock = clock

    def counts(self) -> MailCounts:
        """The outbox by status, the inbound messages by outcome, the failing addresses."""
        with self.db.read() as session:
            out = session.exec(
                select(OutboxMail.status, func.count()).group_by(col(OutboxMail.status))
            ).all()
            inbound = session.exec(
                select(InboundMail.outcome, func.count()).group_by(col(InboundMail.outcome))
            ).all()
            failing = session.exec(select(func.count()).select_from(AddressFailure)).one()
        return MailCounts(
            [(s, int(n)) for s, n in out], [(o, int(n)) for o, n in inbound], int(failing)
        )

    def dead_mails(self) -> list[OutboxMail]:
        """The mails that could not be sent (dead letters), oldest first."""
        with self.db.read() as session:
            return list(
                session.exec(
                    select(OutboxMail).where(OutboxMail.status == DEAD).order_by(col(OutboxMail.id))
                ).all()
            )

    def latest_inbound(self, limit: int) -> list[InboundMail]:
        """The ``limit`` inbound messages received last, newest first."""
        with self.db.read() as session:
            return list(
                session.exec(
                    select(InboundMail).order_by(col(InboundMail.received_at).desc()).limit(limit)
                ).all()
            )

    def requeue_dead(self, ids: list[int] | None = None) -> int:
        """Dead mails back in the queue (all of them, or those with these ids); how many."""
        return relay.requeue_dead(self.db, self.clock, ids)

    def purge_inbound(self, now: datetime) -> int:
        """The raw inbound mail past its retention deleted (``pbem.mail.inbound.retention``);
        how many."""
        return retention.purge_inbound(self.db, self.settings, now)
