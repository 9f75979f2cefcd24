"""Inbound recovery: messages a worker stored or claimed and never finished are processed
again once that worker's lease has run out. The scheduler runs ``recover_stranded`` beside
the relay (``pbem mail recover`` runs it once).

A message is stranded when its worker died (``kill -9``, a lost machine, a database that went
away before the outcome could be written): it is ``processing`` with an expired lease, or
``stored`` but never claimed and older than a lease. The door that received it has already
answered "stored" (webhook 200, ``pbem mail-in`` exit 0, IMAP marked), and a redelivery during
the lease is answered "queued", so without this job nothing would ever process it again.

Each message is claimed through ``Inbound.process`` under its row lock, so several
schedulers, a redelivery and this job racing for one message give it one outcome; a message
whose commands the dead worker had applied is recorded as applied and not applied again (the
game's log is checked for its Message-ID).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import or_
from sqlmodel import col, select

from pbem.core.time_source import format_time
from pbem.mail.inbound.pipeline import Inbound
from pbem.mail.models import PROCESSING, STORED, InboundMail

log = logging.getLogger(__name__)


@dataclass
class RecoveryResult:
    #: messages this run processed to their outcome
    processed: int = 0
    #: messages another worker (a redelivery, another scheduler) took first
    taken: int = 0


def stranded_keys(inbound: Inbound, limit: int) -> list[str]:
    """The keys of the messages whose worker's lease has run out, oldest first."""
    now = inbound.clock.now()
    lease = timedelta(seconds=inbound.settings.mail.lease_seconds)
    expired = or_(
        (col(InboundMail.status) == PROCESSING)
        & (col(InboundMail.lease_expires_at) <= format_time(now)),
        (col(InboundMail.status) == STORED)
        & (col(InboundMail.received_at) <= format_time(now - lease)),
    )
    with inbound.db.read() as session:
        query = (
            select(InboundMail.key)
            .where(expired)
            .order_by(col(InboundMail.received_at))
            .limit(limit)
        )
        return list(session.exec(query))


def recover_stranded(inbound: Inbound, limit: int = 50) -> RecoveryResult:
    """Process (at most ``limit``) stranded messages; the rest wait for the next run."""
    result = RecoveryResult()
    for key in stranded_keys(inbound, limit):
        outcome = inbound.process(key, redelivery=True)
        if outcome.duplicate:
            result.taken += 1
        else:
            result.processed += 1
            log.warning(
                "inbound %s: its worker stopped before recording an outcome; processed again: %s",
                key,
                outcome.outcome,
            )
    return result
