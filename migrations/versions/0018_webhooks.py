"""Outgoing webhooks (docs/webhooks.md): ``webhook_subscriptions`` (a player's per address, or
a game's administrator's per game) and ``webhook_outbox``, the notices to deliver. Plain
tables, like the mail outbox and ``player_preferences``: not projections (a subscription
holds a secret, which no game's log may carry).

Revision ID: 0018_webhooks
Revises: 0013_drop_request_invitations
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018_webhooks"
down_revision: str | None = "0017_rematch"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "webhook_subscriptions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("address", sa.String(length=320), nullable=True),
        sa.Column("game_id", sa.String(length=32), nullable=True),
        sa.Column("url", sa.String(length=500), nullable=False),
        sa.Column("form", sa.String(length=10), nullable=False),
        sa.Column("secret", sa.String(length=128), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("confirm_hash", sa.String(length=64), nullable=True),
        sa.Column("confirm_until", sa.String(length=32), nullable=True),
        sa.Column("channel", sa.String(length=10), nullable=False),
        sa.Column("created_at", sa.String(length=32), nullable=False),
        sa.Column("removed_at", sa.String(length=32), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("confirm_hash"),
    )
    op.create_index(
        "ix_webhook_subscriptions_address", "webhook_subscriptions", ["address", "status"]
    )
    op.create_index("ix_webhook_subscriptions_game", "webhook_subscriptions", ["game_id", "status"])
    op.create_table(
        "webhook_outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("delivery_id", sa.String(length=64), nullable=False),
        sa.Column("subscription_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=32), nullable=True),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("body", sa.LargeBinary(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.String(length=32), nullable=False),
        sa.Column("lease_owner", sa.String(length=64), nullable=True),
        sa.Column("lease_expires_at", sa.String(length=32), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.String(length=32), nullable=False),
        sa.Column("sent_at", sa.String(length=32), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("delivery_id"),
    )
    op.create_index("ix_webhook_outbox_due", "webhook_outbox", ["status", "next_attempt_at"])
    op.create_index("ix_webhook_outbox_game_id", "webhook_outbox", ["game_id"])
    op.create_index("ix_webhook_outbox_subscription_id", "webhook_outbox", ["subscription_id"])


def downgrade() -> None:
    op.drop_table("webhook_outbox")
    op.drop_table("webhook_subscriptions")
