"""Deadlines: ``game_clocks`` and ``deadlines`` (read models projected from the clock's events,
``pbem.clock.projection``) and ``reminders_sent`` (each reminder mailed once).

Games created before hold no time control: they have no clock and no deadline.

Revision ID: 0009_deadlines
Revises: 0008_invitations
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_deadlines"
down_revision: str | None = "0008_invitations"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "game_clocks",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("game_id"),
    )
    op.create_table(
        "deadlines",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("owes_since", sa.String(length=32), nullable=True),
        sa.Column("due_at", sa.String(length=32), nullable=True),
        sa.Column("act_at", sa.String(length=32), nullable=True),
        sa.Column("reminders", sa.Text(), nullable=False),
        sa.Column("next_reminder_at", sa.String(length=32), nullable=True),
        sa.Column("bank", sa.Integer(), nullable=True),
        sa.Column("standing_order", sa.Text(), nullable=True),
        sa.Column("away_until", sa.String(length=32), nullable=True),
        sa.PrimaryKeyConstraint("game_id", "seat"),
    )
    op.create_index("ix_deadlines_act_at", "deadlines", ["act_at"])
    op.create_index("ix_deadlines_next_reminder_at", "deadlines", ["next_reminder_at"])
    op.create_table(
        "reminders_sent",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("due_at", sa.String(length=32), nullable=False),
        sa.Column("reminder", sa.String(length=40), nullable=False),
        sa.Column("address", sa.String(length=320), nullable=False),
        sa.Column("sent_at", sa.String(length=32), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seat", "due_at", "reminder"),
    )


def downgrade() -> None:
    op.drop_table("reminders_sent")
    op.drop_index("ix_deadlines_next_reminder_at", table_name="deadlines")
    op.drop_index("ix_deadlines_act_at", table_name="deadlines")
    op.drop_table("deadlines")
    op.drop_table("game_clocks")
