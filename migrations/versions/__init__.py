"""Alembic revisions, in order of their down_revision."""
