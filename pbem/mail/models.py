"""The mail tables (migration ``0002_mail``).

Times are ISO 8601 text in UTC (``pbem.core.time_source.format_time``), as in
``pbem.core.models``: fixed width, so comparing them as text compares the times.
"""

from __future__ import annotations

from sqlalchemy import Column, Index, LargeBinary, Text
from sqlmodel import Field, SQLModel

#: Outbox statuses: pending -> sending (leased by a relay) -> sent | pending (retry) | dead.
PENDING, SENDING, SENT, DEAD = "pending", "sending", "sent", "dead"
#: Inbound statuses: stored -> processing (leased by a worker) -> done | held (waits for the
#: seat's confirmation, then processing again). A worker that dies leaves ``stored`` or
#: ``processing``: ``pbem.mail.inbound.recovery`` takes the message over when the lease runs out.
STORED, PROCESSING, HELD, DONE = "stored", "processing", "held", "done"
#: The outcome a held message carries while it is processed after the seat confirmed it (so
#: that recovering it after a crash applies it instead of asking the seat again).
CONFIRMED = "confirmed"


class OutboxMail(SQLModel, table=True):
    """One mail to one recipient, written in the transaction that caused it."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "mail_outbox"
    __table_args__ = (Index("ix_mail_outbox_due", "status", "next_attempt_at"),)

    id: int | None = Field(default=None, primary_key=True)
    #: set when the row is written; every retry sends the same id
    message_id: str = Field(max_length=250, unique=True)
    game_id: str | None = Field(default=None, max_length=32, index=True)
    seat: int | None = None
    #: turn | applied | error | start | end | notice | confirm
    kind: str = Field(max_length=20)
    recipient: str = Field(max_length=320)
    envelope_from: str = Field(max_length=320)
    subject: str = Field(max_length=250)
    #: the whole RFC 822 message, ready to send
    message: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    #: the game version the mail shows (and that a reply to it was made against)
    version: int | None = None
    status: str = Field(default=PENDING, max_length=10)
    attempts: int = 0
    next_attempt_at: str = Field(max_length=32)
    lease_owner: str | None = Field(default=None, max_length=64)
    lease_expires_at: str | None = Field(default=None, max_length=32)
    last_error: str | None = Field(default=None, sa_type=Text)
    created_at: str = Field(max_length=32)
    sent_at: str | None = Field(default=None, max_length=32)


class InboundMail(SQLModel, table=True):
    """An incoming message, stored before anything else happens to it."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "mail_inbound"

    #: the Message-ID, or ``sha256:<hex>`` of the raw message when it has none
    key: str = Field(primary_key=True, max_length=300)
    raw: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    size: int
    #: webhook | imap | stdin | dev
    source: str = Field(max_length=10)
    sender: str = Field(default="", max_length=320)
    received_at: str = Field(max_length=32)
    #: stored -> processing (leased) -> done; held: waits for confirmation by link
    status: str = Field(default="stored", max_length=12, index=True)
    lease_owner: str | None = Field(default=None, max_length=64)
    lease_expires_at: str | None = Field(default=None, max_length=32)
    #: reply | auto_reply | bounce | list | own
    kind: str | None = Field(default=None, max_length=20)
    #: applied | refused | ignored | held | ... (the one outcome of the message)
    outcome: str | None = Field(default=None, max_length=40)
    #: what happened, for people (the audit page and ``pbem mail inbound``)
    detail: str | None = Field(default=None, sa_type=Text)
    game_id: str | None = Field(default=None, max_length=32, index=True)
    seat: int | None = None
    processed_at: str | None = Field(default=None, max_length=32)


class ErrorReplySent(SQLModel, table=True):
    """At most one error reply per sender, kind of error and day."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "mail_error_replies"

    sender: str = Field(primary_key=True, max_length=320)
    kind: str = Field(primary_key=True, max_length=40)
    #: YYYY-MM-DD (UTC)
    day: str = Field(primary_key=True, max_length=10)
    #: replies we did not send because of this row
    suppressed: int = 0


class AddressFailure(SQLModel, table=True):
    """An address that bounced: shown to the game's players until mail gets through again."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "mail_address_failures"

    address: str = Field(primary_key=True, max_length=320)
    failures: int = 0
    first_failed_at: str = Field(max_length=32)
    last_failed_at: str = Field(max_length=32)
    last_reason: str = Field(default="", sa_type=Text)


class SeatReplyKey(SQLModel, table=True):
    """A seat's reply-address key version; rotating it revokes the addresses handed out."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "mail_seat_keys"

    game_id: str = Field(primary_key=True, max_length=32)
    seat: int = Field(primary_key=True)
    key_version: int = 0
    rotated_at: str = Field(max_length=32)


class Lease(SQLModel, table=True):
    """A named lease for work that one process at a time should do (the SQLite relay, the
    IMAP poll): taken when free or expired, renewed by its owner."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "mail_leases"

    name: str = Field(primary_key=True, max_length=40)
    owner: str = Field(max_length=64)
    expires_at: str = Field(max_length=32)
