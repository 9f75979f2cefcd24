"""Alembic environment: the schema of pbem is owned by these migrations.

Run through ``pbem db upgrade`` (which passes its own connection in
``config.attributes["connection"]``), or with Alembic's own command:
``alembic -c migrations/alembic.ini upgrade head`` (the URL then comes from the settings:
``PBEM_DATABASE_URL`` or the config file).
"""

from __future__ import annotations

from alembic import context

from pbem.app.config import load_settings
from pbem.core.db import Database
from pbem.core.migrate import table_models

config = context.config
target_metadata = table_models()


def _render_as_batch(connection: object) -> bool:
    # SQLite cannot ALTER most things in place: batch mode rebuilds the table instead.
    return getattr(getattr(connection, "dialect", None), "name", "") == "sqlite"


def run_migrations_offline() -> None:
    url = config.attributes.get("url") or load_settings().database_url
    context.configure(
        url=url,
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=_render_as_batch(connection),
        )
        with context.begin_transaction():
            context.run_migrations()
        return
    db = Database(config.attributes.get("url") or load_settings().database_url)
    try:
        with db.engine.begin() as conn:
            context.configure(
                connection=conn,
                target_metadata=target_metadata,
                render_as_batch=_render_as_batch(conn),
            )
            with context.begin_transaction():
                context.run_migrations()
    finally:
        db.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
