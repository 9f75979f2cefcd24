"""``table_talk``: the read model of table talk (``pbem.talk.projection``), one row per
message, with the administrator's hiding. Rebuilt from the log by ``pbem db
rebuild-projections``; a database upgraded past a log that already holds messages (none
can, before this revision) would rebuild it the same way.

Revision ID: 0014_table_talk
Revises: 0013_drop_request_invitations
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014_table_talk"
down_revision: str | None = "0013_drop_request_invitations"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "table_talk",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("recipients", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("channel", sa.String(length=10), nullable=False),
        sa.Column("channel_ref", sa.Text(), nullable=True),
        sa.Column("sent_at", sa.String(length=32), nullable=False),
        sa.Column("hidden_reason", sa.Text(), nullable=True),
        sa.Column("hidden_at", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("game_id", "version"),
    )
    op.create_index("ix_table_talk_sender", "table_talk", ["game_id", "seat", "sent_at"])


def downgrade() -> None:
    op.drop_index("ix_table_talk_sender", table_name="table_talk")
    op.drop_table("table_talk")
