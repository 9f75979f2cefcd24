"""``game_requests.invitations`` is dropped: the limits on creations count the rows of
``creation_addresses`` (0012), and nothing read this count any more.

Downgrading restores the column with 0 for every request (the counts are not kept
elsewhere); the limits of a service downgraded past 0012 read only the requests it records
from then on.

Revision ID: 0013_drop_request_invitations
Revises: 0012_limits
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013_drop_request_invitations"
down_revision: str | None = "0012_limits"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("game_requests") as batch:
        batch.drop_column("invitations")


def downgrade() -> None:
    with op.batch_alter_table("game_requests") as batch:
        batch.add_column(sa.Column("invitations", sa.Integer(), nullable=False, server_default="0"))
