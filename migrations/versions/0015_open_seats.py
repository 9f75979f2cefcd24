"""Open seats (``pbem.create.open_seats``): ``games.open_seats`` counts a waiting game's
seats still open (a read model column, projected from GameCreated, SeatTaken and
SeatsClosed: 0 for every game created before), ``game_secrets.join_key_hash`` keeps the hash
of a game's join link, and ``seat_joins`` records who took each open seat, for the hourly
limits on joins (not a read model: the log does not hold who asked).

Revision ID: 0015_open_seats
Revises: 0013_drop_request_invitations
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015_open_seats"
down_revision: str | None = "0014_table_talk"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("open_seats", sa.Integer(), nullable=False, server_default="0"))
    with op.batch_alter_table("game_secrets") as batch:
        batch.add_column(sa.Column("join_key_hash", sa.String(length=64), nullable=True))
    op.create_table(
        "seat_joins",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("requester", sa.String(length=100), nullable=False),
        sa.Column("address_key", sa.String(length=320), nullable=False),
        sa.Column("joined_at", sa.String(length=32), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seat"),
    )
    op.create_index("ix_seat_joins_requester", "seat_joins", ["requester", "joined_at"])
    op.create_index("ix_seat_joins_address", "seat_joins", ["address_key", "joined_at"])


def downgrade() -> None:
    op.drop_index("ix_seat_joins_address", table_name="seat_joins")
    op.drop_index("ix_seat_joins_requester", table_name="seat_joins")
    op.drop_table("seat_joins")
    with op.batch_alter_table("game_secrets") as batch:
        batch.drop_column("join_key_hash")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("open_seats")
