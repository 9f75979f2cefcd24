"""Mail: the outbox, inbound messages, the error-reply rate limit, address failures, seat
reply-key versions and named leases.

Revision ID: 0002_mail
Revises: 0001_initial
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002_mail"
down_revision: str | None = "0001_initial"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "mail_outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.String(length=250), nullable=False),
        sa.Column("game_id", sa.String(length=32), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("recipient", sa.String(length=320), nullable=False),
        sa.Column("envelope_from", sa.String(length=320), nullable=False),
        sa.Column("subject", sa.String(length=250), nullable=False),
        sa.Column("message", sa.LargeBinary(), nullable=False),
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
        # One Message-ID per mail, kept across retries.
        sa.UniqueConstraint("message_id"),
    )
    op.create_index("ix_mail_outbox_due", "mail_outbox", ["status", "next_attempt_at"])
    op.create_index("ix_mail_outbox_game_id", "mail_outbox", ["game_id"])
    op.create_table(
        "mail_inbound",
        sa.Column("key", sa.String(length=300), nullable=False),
        sa.Column("raw", sa.LargeBinary(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(length=10), nullable=False),
        sa.Column("sender", sa.String(length=320), nullable=False),
        sa.Column("received_at", sa.String(length=32), nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("lease_owner", sa.String(length=64), nullable=True),
        sa.Column("lease_expires_at", sa.String(length=32), nullable=True),
        sa.Column("kind", sa.String(length=20), nullable=True),
        sa.Column("outcome", sa.String(length=40), nullable=True),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.Column("game_id", sa.String(length=32), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("processed_at", sa.String(length=32), nullable=True),
        # The key is the idempotency of delivery: a second copy cannot be stored.
        sa.PrimaryKeyConstraint("key"),
    )
    op.create_index("ix_mail_inbound_status", "mail_inbound", ["status"])
    op.create_index("ix_mail_inbound_game_id", "mail_inbound", ["game_id"])
    op.create_table(
        "mail_error_replies",
        sa.Column("sender", sa.String(length=320), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("day", sa.String(length=10), nullable=False),
        sa.Column("suppressed", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("sender", "kind", "day"),
    )
    op.create_table(
        "mail_address_failures",
        sa.Column("address", sa.String(length=320), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("first_failed_at", sa.String(length=32), nullable=False),
        sa.Column("last_failed_at", sa.String(length=32), nullable=False),
        sa.Column("last_reason", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("address"),
    )
    op.create_table(
        "mail_seat_keys",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("key_version", sa.Integer(), nullable=False),
        sa.Column("rotated_at", sa.String(length=32), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seat"),
    )
    op.create_table(
        "mail_leases",
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("expires_at", sa.String(length=32), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )


def downgrade() -> None:
    op.drop_table("mail_leases")
    op.drop_table("mail_seat_keys")
    op.drop_table("mail_address_failures")
    op.drop_table("mail_error_replies")
    op.drop_index("ix_mail_inbound_game_id", table_name="mail_inbound")
    op.drop_index("ix_mail_inbound_status", table_name="mail_inbound")
    op.drop_table("mail_inbound")
    op.drop_index("ix_mail_outbox_game_id", table_name="mail_outbox")
    op.drop_index("ix_mail_outbox_due", table_name="mail_outbox")
    op.drop_table("mail_outbox")
