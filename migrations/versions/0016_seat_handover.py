"""Substitutes: the ``seat_handovers`` read model (projected from SubstituteProposed,
SubstituteDecided and SeatHandedOver, ``pbem.handover``), indexed by game and status so that
the proposal waiting in a game is found at once.

Revision ID: 0016_seat_handover
Revises: 0013_drop_request_invitations
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016_seat_handover"
down_revision: str | None = "0015_open_seats"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "seat_handovers",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("proposal", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("by_seat", sa.Integer(), nullable=True),
        sa.Column("new_name", sa.String(length=200), nullable=False),
        sa.Column("new_email", sa.String(length=320), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("agreed_by", sa.Text(), nullable=False),
        sa.Column("handed_over", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("game_id", "proposal"),
    )
    op.create_index("ix_seat_handovers_status", "seat_handovers", ["game_id", "status"])


def downgrade() -> None:
    op.drop_index("ix_seat_handovers_status", table_name="seat_handovers")
    op.drop_table("seat_handovers")
