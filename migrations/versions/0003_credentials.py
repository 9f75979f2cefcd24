"""Credentials leave the read models: the seed and the admin token hash move from ``games`` to
``game_secrets``, the seat token hashes from ``seats`` to ``seat_tokens``. What is left in
``games`` and ``seats`` is derived from the events alone, so it can be rebuilt from them.

Revision ID: 0003_credentials
Revises: 0002_mail
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_credentials"
down_revision: str | None = "0002_mail"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "game_secrets",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seed", sa.String(length=80), nullable=False),
        sa.Column("admin_token_hash", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("game_id"),
    )
    op.create_table(
        "seat_tokens",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seat"),
        sa.UniqueConstraint("token_hash", name="uq_seat_tokens_token_hash"),
    )
    op.execute(
        "INSERT INTO game_secrets (game_id, seed, admin_token_hash) "
        "SELECT id, seed, admin_token_hash FROM games"
    )
    op.execute(
        "INSERT INTO seat_tokens (game_id, seat, token_hash) "
        "SELECT game_id, seat, token_hash FROM seats"
    )
    # The games projection dates a game by its first event; before, the row took its own
    # reading of the clock, a few microseconds apart.
    op.execute(
        "UPDATE games SET created_at = (SELECT e.recorded_at FROM events e "
        "WHERE e.game_id = games.id AND e.version = 1) "
        "WHERE EXISTS (SELECT 1 FROM events e WHERE e.game_id = games.id AND e.version = 1)"
    )
    with op.batch_alter_table("games") as batch:
        batch.drop_column("seed")
        batch.drop_column("admin_token_hash")
    with op.batch_alter_table("seats") as batch:
        batch.drop_constraint("uq_seats_token_hash", type_="unique")
        batch.drop_column("token_hash")


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("token_hash", sa.String(length=64), nullable=True))
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("seed", sa.String(length=80), nullable=True))
        batch.add_column(sa.Column("admin_token_hash", sa.String(length=64), nullable=True))
    op.execute(
        "UPDATE seats SET token_hash = (SELECT t.token_hash FROM seat_tokens t "
        "WHERE t.game_id = seats.game_id AND t.seat = seats.seat)"
    )
    op.execute(
        "UPDATE games SET seed = (SELECT s.seed FROM game_secrets s WHERE s.game_id = games.id), "
        "admin_token_hash = (SELECT s.admin_token_hash FROM game_secrets s "
        "WHERE s.game_id = games.id)"
    )
    with op.batch_alter_table("seats") as batch:
        batch.alter_column("token_hash", existing_type=sa.String(length=64), nullable=False)
        batch.create_unique_constraint("uq_seats_token_hash", ["token_hash"])
    with op.batch_alter_table("games") as batch:
        batch.alter_column("seed", existing_type=sa.String(length=80), nullable=False)
        batch.alter_column("admin_token_hash", existing_type=sa.String(length=64), nullable=False)
    op.drop_table("seat_tokens")
    op.drop_table("game_secrets")
