"""Limits on creations: ``creation_addresses``, one row per addressed seat of a created game
(its requester, its address as limits compare it, whether it was invited), so that every
mail a creation sends counts against its requester and every game naming an address counts
against that address, whatever the case or ``+tag`` it was written with. A plain table, like
``game_requests``: not a projection.

Revision ID: 0012_limits
Revises: 0011_digest
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012_limits"
down_revision: str | None = "0011_digest"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "creation_addresses",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("requester", sa.String(length=100), nullable=False),
        sa.Column("address_key", sa.String(length=320), nullable=False),
        sa.Column("invited", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.String(length=32), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seat"),
    )
    op.create_index(
        "ix_creation_addresses_address", "creation_addresses", ["address_key", "created_at"]
    )
    op.create_index(
        "ix_creation_addresses_requester", "creation_addresses", ["requester", "created_at"]
    )


def downgrade() -> None:
    op.drop_index("ix_creation_addresses_requester", table_name="creation_addresses")
    op.drop_index("ix_creation_addresses_address", table_name="creation_addresses")
    op.drop_table("creation_addresses")
