"""The webhook relay: delivers the webhook outbox's notices that are due, with the mail
relay's guarantees (``pbem.mail.outbound.relay``):

- rows are claimed in a short transaction (``FOR UPDATE SKIP LOCKED`` on PostgreSQL; on
  SQLite the named lease ``webhook-relay`` lets one relay run at a time) and leased for
  ``webhooks.lease_seconds``, renewed as the batch goes on once half of it is gone;
- each result is written right after its attempt, only while this relay still holds the
  row: 2xx is delivered; a refusal that will not change (another 4xx, a redirect, a URL no
  longer allowed) is dead at once; anything else (5xx, 408, 429, refused connection,
  timeout) is retried after ``backoff_base`` seconds, doubled each time up to
  ``backoff_cap``, and is dead after ``max_attempts``;
- a removed subscription's deliveries are dropped, never sent.

As with mail, one window remains where a notice goes twice: a relay stopped after the
receiver answered and before it recorded the answer. The row is taken over when its lease
runs out and sent again with the same bytes and the same ``X-Pbem-Delivery``, so the
receiver recognises it (docs/webhooks.md, "Duplicates").
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import or_, update
from sqlmodel import Session, col, select

from pbem.app.config import Settings
from pbem.core.db import Database
from pbem.core.time_source import Clock, SystemClock, format_time
from pbem.mail.outbound.relay import default_owner, release_lease, take_lease
from pbem.webhooks import safety
from pbem.webhooks.forms import headers_for
from pbem.webhooks.models import (
    ACTIVE,
    DEAD,
    PENDING,
    SENDING,
    SENT,
    WebhookDelivery,
    WebhookSubscription,
)

log = logging.getLogger(__name__)

#: A removed subscription's deliveries: never sent, not dead letters either.
DROPPED = "dropped"
LEASE_NAME = "webhook-relay"

#: How a delivery is made (``safety.post``; tests wrap it to stop a relay midway).
Post = Callable[[safety.Target, bytes, Mapping[str, str], float], safety.Answer]


@dataclass
class WebhookRelayResult:
    sent: int = 0
    retried: int = 0
    dead: int = 0
    dropped: int = 0
    skipped: bool = False


@dataclass(frozen=True)
class _Failure:
    reason: str
    permanent: bool


def backoff(settings: Settings, failures: int) -> timedelta:
    """The wait after the ``failures``-th failure: base, 2·base, 4·base … up to the cap."""
    hooks = settings.webhooks
    seconds = hooks.backoff_base * 2 ** min(max(failures - 1, 0), 30)
    return timedelta(seconds=min(hooks.backoff_cap, seconds))


def _judged(answer: safety.Answer) -> _Failure | None:
    if 200 <= answer.status < 300:
        return None
    said = f"HTTP {answer.status}: {answer.text[:200]}".strip()
    if 300 <= answer.status < 400:
        return _Failure(f"{said} (redirects are not followed)", True)
    if answer.status in (408, 425, 429) or answer.status >= 500:
        return _Failure(said, False)
    return _Failure(said, True)


class WebhookRelay:
    def __init__(
        self,
        db: Database,
        settings: Settings,
        clock: Clock | None = None,
        owner: str | None = None,
        resolve: safety.Resolver = safety.system_resolver,
        post: Post = safety.post,
    ) -> None:
        self.db = db
        self.settings = settings
        self.clock: Clock = clock or SystemClock()
        self.owner = owner or default_owner()
        self.resolve = resolve
        self.post = post

    def _claim(self) -> list[tuple[WebhookDelivery, WebhookSubscription | None]]:
        hooks = self.settings.webhooks
        now = self.clock.now()
        stamp = format_time(now)
        with self.db.write() as session:
            if self.db.is_sqlite and not take_lease(
                session, LEASE_NAME, self.owner, now, hooks.lease_seconds
            ):
                raise _LeaseHeld
            due = or_(
                (col(WebhookDelivery.status) == PENDING)
                & (col(WebhookDelivery.next_attempt_at) <= stamp),
                # A relay that stopped while delivering: its lease ran out, the row is due.
                (col(WebhookDelivery.status) == SENDING)
                & (col(WebhookDelivery.lease_expires_at) < stamp),
            )
            rows = list(
                session.exec(
                    select(WebhookDelivery)
                    .where(due)
                    .order_by(col(WebhookDelivery.id))
                    .limit(hooks.relay_batch)
                    .with_for_update(skip_locked=True)
                )
            )
            until = format_time(now + timedelta(seconds=hooks.lease_seconds))
            claimed = []
            for row in rows:
                if row.status == SENDING:
                    log.warning(
                        "webhook relay: delivery %s was being made by %s, which stopped "
                        "before recording the result; it may have arrived already and goes "
                        "again with the same delivery id",
                        row.delivery_id,
                        row.lease_owner,
                    )
                row.status, row.lease_owner, row.lease_expires_at = SENDING, self.owner, until
                session.add(row)
                sub = session.get(WebhookSubscription, row.subscription_id)
                claimed.append((row, sub))
            session.flush()
            # Read after the transaction: detached, with the values claimed.
            session.expunge_all()
        return claimed

    def _attempt(
        self, row: WebhookDelivery, sub: WebhookSubscription | None
    ) -> _Failure | str | None:
        """Deliver one row: None when delivered, DROPPED, or the failure."""
        if sub is None or sub.status != ACTIVE:
            return DROPPED
        try:
            # Checked again at every delivery, and the connection goes to the address
            # checked now (DNS rebinding: the name may answer differently than when added).
            target = safety.check_url(sub.url, self.settings.webhooks, self.resolve)
        except safety.UnsafeUrl as e:
            return _Failure(f"URL refused: {e.message}", True)
        headers = headers_for(
            sub.form, sub.secret, row.body, row.delivery_id, row.created_at, row.kind
        )
        try:
            answer = self.post(target, row.body, headers, float(self.settings.webhooks.timeout))
        except OSError as e:
            return _Failure(f"no answer: {e}", False)
        return _judged(answer)

    def _settle(self, row: WebhookDelivery, outcome: _Failure | str | None) -> str:
        now = self.clock.now()
        attempts = row.attempts + (0 if outcome == DROPPED else 1)
        values: dict[str, object] = {"attempts": attempts, "lease_owner": None}
        if outcome is None:
            values.update(status=SENT, sent_at=format_time(now), last_error=None)
        elif outcome == DROPPED:
            values.update(status=DROPPED, last_error="the subscription was removed")
        else:
            assert isinstance(outcome, _Failure)
            if outcome.permanent or attempts >= self.settings.webhooks.max_attempts:
                values.update(status=DEAD, last_error=outcome.reason[:2000])
            else:
                values.update(
                    status=PENDING,
                    last_error=outcome.reason[:2000],
                    next_attempt_at=format_time(now + backoff(self.settings, attempts)),
                )
        with self.db.write() as session:
            session.exec(
                update(WebhookDelivery)
                .where(
                    col(WebhookDelivery.id) == row.id,
                    col(WebhookDelivery.lease_owner) == self.owner,
                )
                .values(**values)
            )
        return str(values["status"])

    def _renew(self, rows: list[WebhookDelivery], now: datetime) -> list[WebhookDelivery]:
        """Extend this relay's lease on the rows still to deliver; those it still holds."""
        seconds = self.settings.webhooks.lease_seconds
        until = format_time(now + timedelta(seconds=seconds))
        with self.db.write() as session:
            if self.db.is_sqlite:
                take_lease(session, LEASE_NAME, self.owner, now, seconds)
            ours = (
                col(WebhookDelivery.id).in_([r.id for r in rows]),
                col(WebhookDelivery.lease_owner) == self.owner,
                col(WebhookDelivery.status) == SENDING,
            )
            session.exec(update(WebhookDelivery).where(*ours).values(lease_expires_at=until))
            still = set(session.exec(select(WebhookDelivery.id).where(*ours)))
        kept = [r for r in rows if r.id in still]
        for r in kept:
            r.lease_expires_at = until
        return kept

    def run_once(self) -> WebhookRelayResult:
        result = WebhookRelayResult()
        try:
            claimed = self._claim()
        except _LeaseHeld:
            result.skipped = True
            return result
        try:
            subs = {row.id: sub for row, sub in claimed}
            pending = [row for row, _ in claimed]
            half = timedelta(seconds=self.settings.webhooks.lease_seconds / 2)
            while pending:
                now = self.clock.now()
                if min(r.lease_expires_at or "" for r in pending) < format_time(now + half):
                    pending = self._renew(pending, now)
                    if not pending:
                        break
                row = pending.pop(0)
                status = self._settle(row, self._attempt(row, subs[row.id]))
                _count(result, status)
            return result
        finally:
            if self.db.is_sqlite:
                with self.db.write() as session:
                    release_lease(session, LEASE_NAME, self.owner, self.clock.now())


class _LeaseHeld(Exception):
    pass


def _count(result: WebhookRelayResult, status: str) -> None:
    if status == SENT:
        result.sent += 1
    elif status == DEAD:
        result.dead += 1
    elif status == DROPPED:
        result.dropped += 1
    else:
        result.retried += 1


def requeue_dead(session: Session, now: datetime, ids: list[int] | None = None) -> int:
    """Put dead deliveries back in the queue (all, or those with these ids), with the same
    delivery id and bytes."""
    query = update(WebhookDelivery).where(col(WebhookDelivery.status) == DEAD)
    if ids is not None:
        query = query.where(col(WebhookDelivery.id).in_(ids))
    done = session.exec(query.values(status=PENDING, attempts=0, next_attempt_at=format_time(now)))
    return int(done.rowcount or 0)
