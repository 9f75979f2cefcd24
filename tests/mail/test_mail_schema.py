"""Migration 0002_mail creates exactly the mail models, on SQLite and PostgreSQL."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

import pbem.core.models  # noqa: F401
from pbem.core.db import Database
from pbem.mail import models as _mail_models  # noqa: F401  (registers the mail tables)


def test_the_mail_migration_creates_exactly_the_mail_models(database: Database) -> None:
    with database.engine.connect() as conn:
        diffs = compare_metadata(MigrationContext.configure(conn), SQLModel.metadata)
    mail_tables = {t for t in SQLModel.metadata.tables if t.startswith("mail_")}
    assert len(mail_tables) == 6

    def about_mail(diff: object) -> bool:
        return "mail_" in repr(diff)

    assert [d for d in diffs if about_mail(d)] == []
