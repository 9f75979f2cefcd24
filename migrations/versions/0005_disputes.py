"""Disputes: the ``disputes`` read model (projected from DisputeOpened, DisputeAnswered and
DisputeResolved), indexed by game and status so that an open dispute is found at once.

Revision ID: 0005_disputes
Revises: 0004_private_games
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_disputes"
down_revision: str | None = "0004_private_games"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "disputes",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("dispute", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("versions", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("answers", sa.Text(), nullable=False),
        sa.Column("opened_at", sa.String(length=32), nullable=False),
        sa.Column("resolved", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("game_id", "dispute"),
    )
    op.create_index("ix_disputes_open", "disputes", ["game_id", "status"])


def downgrade() -> None:
    op.drop_index("ix_disputes_open", table_name="disputes")
    op.drop_table("disputes")
