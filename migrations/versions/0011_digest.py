"""Daily digest: ``player_preferences.digest`` (the address wants one mail a day listing the
games waiting for it instead of its turn mails) and ``digests_sent``, the claim that makes the
digest go once per address and UTC day. Plain tables, like the outbox: not projections.

Revision ID: 0011_digest
Revises: 0010_player_preferences
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011_digest"
down_revision: str | None = "0010_player_preferences"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("player_preferences") as batch:
        batch.add_column(
            sa.Column("digest", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    op.create_table(
        "digests_sent",
        sa.Column("address", sa.String(length=320), nullable=False),
        sa.Column("day", sa.String(length=10), nullable=False),
        sa.Column("sent_at", sa.String(length=32), nullable=False),
        sa.PrimaryKeyConstraint("address", "day"),
    )


def downgrade() -> None:
    op.drop_table("digests_sent")
    with op.batch_alter_table("player_preferences") as batch:
        batch.drop_column("digest")
