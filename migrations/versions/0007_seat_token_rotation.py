"""Seat tokens can be replaced (``pbem rotate-token``): ``revoked_seat_tokens`` keeps the hash
of each replaced token, so that it is refused as replaced rather than as unknown.

Revision ID: 0007_seat_token_rotation
Revises: 0006_snapshot_seal
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_seat_token_rotation"
down_revision: str | None = "0006_snapshot_seal"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "revoked_seat_tokens",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("revoked_at", sa.String(length=32), nullable=False),
        sa.PrimaryKeyConstraint("token_hash"),
    )


def downgrade() -> None:
    op.drop_table("revoked_seat_tokens")
