"""The webhook tables (migration ``0018_webhooks``).

``webhook_subscriptions`` is a plain table, like ``player_preferences`` and the outbox: not a
projection of any game's log. A subscription holds a secret (the signing key of the JSON
form, or a Discord/Slack URL, which is itself a credential), and a game's log is exported
and shown to every seat: no secret may ever be in it. A per-address subscription belongs to
no game at all. So the table is written only by the subscription commands
(``pbem.webhooks.subscriptions``), a rebuild neither reads nor rewrites it, and no chain
records it (docs/webhooks.md, "Where subscriptions live").

``webhook_outbox`` is the webhooks' own outbox, beside ``mail_outbox`` rather than in it:
a delivery has a URL, a body and headers instead of an RFC 822 message, and the two relays
retry and give up on different schedules. It keeps the mail outbox's statuses and lease.
"""

from __future__ import annotations

from sqlalchemy import Column, Index, LargeBinary, Text
from sqlmodel import Field, SQLModel

#: Delivery statuses, as in the mail outbox: pending -> sending (leased) -> sent | pending
#: (retry) | dead.
PENDING, SENDING, SENT, DEAD = "pending", "sending", "sent", "dead"
#: Subscription statuses: waiting (for the address's confirmation) -> active -> removed.
WAITING, ACTIVE, REMOVED = "waiting", "active", "removed"
#: Forms a subscription's notices take.
DISCORD, SLACK, JSON = "discord", "slack", "json"
FORMS = (DISCORD, SLACK, JSON)


class WebhookSubscription(SQLModel, table=True):
    """One URL that receives notices: an address's (its seats' notices in every game) or a
    game's (public notices, added by the game's administrator)."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "webhook_subscriptions"
    __table_args__ = (
        Index("ix_webhook_subscriptions_address", "address", "status"),
        Index("ix_webhook_subscriptions_game", "game_id", "status"),
    )

    id: int | None = Field(default=None, primary_key=True)
    #: the subscriber: an address (lower-cased) for a player's, None for a game's
    address: str | None = Field(default=None, max_length=320)
    #: the game of an administrator's subscription; None for a player's
    game_id: str | None = Field(default=None, max_length=32)
    url: str = Field(max_length=500)
    #: discord | slack | json
    form: str = Field(max_length=10)
    #: the HMAC key of the json form (hex); empty for discord and slack
    secret: str = Field(default="", max_length=128)
    status: str = Field(default=ACTIVE, max_length=10)
    #: sha256 (hex) of the confirmation link's token, while it waits for confirmation
    confirm_hash: str | None = Field(default=None, max_length=64, unique=True)
    #: until when the confirmation link works
    confirm_until: str | None = Field(default=None, max_length=32)
    #: through which door it was asked for: email | web | api | cli
    channel: str = Field(max_length=10)
    created_at: str = Field(max_length=32)
    removed_at: str | None = Field(default=None, max_length=32)


class WebhookDelivery(SQLModel, table=True):
    """One notice to one subscription, written in the transaction that caused it."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "webhook_outbox"
    __table_args__ = (Index("ix_webhook_outbox_due", "status", "next_attempt_at"),)

    id: int | None = Field(default=None, primary_key=True)
    #: set when the row is written; every retry sends it again (``X-Pbem-Delivery``)
    delivery_id: str = Field(max_length=64, unique=True)
    subscription_id: int = Field(index=True)
    game_id: str | None = Field(default=None, max_length=32, index=True)
    #: turn | reminder | deadline | end | talk | … (the notice's kind)
    kind: str = Field(max_length=20)
    #: the exact bytes sent, every time (the signature is over them)
    body: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    version: int | None = None
    status: str = Field(default=PENDING, max_length=10)
    attempts: int = 0
    next_attempt_at: str = Field(max_length=32)
    lease_owner: str | None = Field(default=None, max_length=64)
    lease_expires_at: str | None = Field(default=None, max_length=32)
    last_error: str | None = Field(default=None, sa_type=Text)
    created_at: str = Field(max_length=32)
    sent_at: str | None = Field(default=None, max_length=32)
