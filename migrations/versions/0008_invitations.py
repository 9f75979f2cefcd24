"""Invitations and game requests: ``invitations`` (a read model projected from GameCreated
V3's ``invited`` and InvitationAccepted) and ``game_requests`` (who asked for each game, how
many invitations it sent, and its idempotency key). Games created before hold no invited
seat (their GameCreated upcasts to ``invited = []``): their players keep getting every mail.

Revision ID: 0008_invitations
Revises: 0007_seat_token_rotation
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_invitations"
down_revision: str | None = "0007_seat_token_rotation"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "invitations",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("address", sa.String(length=320), nullable=False),
        sa.Column("invited_at", sa.String(length=32), nullable=False),
        sa.Column("accepted_at", sa.String(length=32), nullable=True),
        sa.Column("accepted_version", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("game_id", "seat"),
    )
    op.create_index("ix_invitations_address", "invitations", ["address", "invited_at"])
    op.create_table(
        "game_requests",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("requester", sa.String(length=100), nullable=False),
        sa.Column("invitations", sa.Integer(), nullable=False),
        sa.Column("key_hash", sa.String(length=64), nullable=True),
        sa.Column("request_hash", sa.String(length=64), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("head_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.String(length=32), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("key_hash", name="uq_game_requests_key_hash"),
    )
    op.create_index("ix_game_requests_game_id", "game_requests", ["game_id"])
    op.create_index("ix_game_requests_requester", "game_requests", ["requester", "created_at"])


def downgrade() -> None:
    op.drop_table("game_requests")
    op.drop_table("invitations")
