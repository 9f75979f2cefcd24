"""The read models of rematches: ``rematch_proposals`` (a rematch proposed at the end of a
game, who agreed, and the new game once started) and ``rematch_origins`` (a game that is a
rematch, and the game it is a rematch of). Both are projections of the rematch events
(``pbem.rematch.projection``): a database upgraded past this revision rebuilds them from the
log with ``pbem db rebuild-projections``; before it, no game had such events.

Revision ID: 0017_rematch
Revises: 0013_drop_request_invitations
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017_rematch"
down_revision: str | None = "0016_seat_handover"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "rematch_proposals",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("proposal", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("seating", sa.String(length=8), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("agreed_by", sa.Text(), nullable=False),
        sa.Column("declined_by", sa.Integer(), nullable=True),
        sa.Column("new_game_id", sa.String(length=32), nullable=True),
        sa.PrimaryKeyConstraint("game_id", "proposal"),
    )
    op.create_table(
        "rematch_origins",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("of_game_id", sa.String(length=32), nullable=False),
        sa.Column("proposal", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("game_id"),
    )


def downgrade() -> None:
    op.drop_table("rematch_origins")
    op.drop_table("rematch_proposals")
