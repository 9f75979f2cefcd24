"""Player preferences: ``player_preferences``, one row per address (lower-cased) with the
time zone its deadlines are also shown in. A plain table written by the player's mail
command, like the outbox: not a projection of any game's log.

Revision ID: 0010_player_preferences
Revises: 0009_deadlines
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_player_preferences"
down_revision: str | None = "0009_deadlines"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "player_preferences",
        sa.Column("address", sa.String(length=320), nullable=False),
        sa.Column("time_zone", sa.String(length=64), nullable=True),
        sa.Column("updated_at", sa.String(length=32), nullable=False),
        sa.PrimaryKeyConstraint("address"),
    )


def downgrade() -> None:
    op.drop_table("player_preferences")
