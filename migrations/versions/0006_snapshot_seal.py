"""Snapshots carry a seal (``snapshots.mac``: an HMAC under the service's secret key), and the
service uses only a snapshot whose seal verifies (``pbem.core.snapshots``).

The snapshots stored before were never sealed, so the service would ignore them all: they are
deleted (a cache, rebuilt as games move on), rather than kept to be reported as unsealed.

Revision ID: 0006_snapshot_seal
Revises: 0005_disputes
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006_snapshot_seal"
down_revision: str | None = "0005_disputes"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("DELETE FROM snapshots")
    with op.batch_alter_table("snapshots") as batch:
        batch.add_column(sa.Column("mac", sa.String(length=64), nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("snapshots") as batch:
        batch.drop_column("mac")
