"""Private games: ``games.private`` (projected from GameCreated V2's ``private``). Every game
created before it was public, which is what its V1 GameCreated upcasts to.

Revision ID: 0004_private_games
Revises: 0003_credentials
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_private_games"
down_revision: str | None = "0003_credentials"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(
            sa.Column("private", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("private")
