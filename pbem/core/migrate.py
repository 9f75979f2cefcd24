"""Running the Alembic migrations (``pbem db upgrade``) from Python."""

from __future__ import annotations

import importlib
import pkgutil

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import MetaData
from sqlmodel import SQLModel

import pbem
from pbem.core.db import Database
from pbem.core.resources import migrations_directory


def alembic_config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_directory()))
    return cfg


def upgrade(db: Database, revision: str = "head") -> None:
    """Bring the schema to ``revision`` (all migrations by default) in one transaction."""
    cfg = alembic_config()
    with db.engine.begin() as connection:
        cfg.attributes["connection"] = connection
        command.upgrade(cfg, revision)


def current_revisions(db: Database) -> set[str]:
    with db.engine.connect() as connection:
        return set(MigrationContext.configure(connection).get_current_heads())


def head_revisions() -> set[str]:
    return set(ScriptDirectory.from_config(alembic_config()).get_heads())


def table_models() -> MetaData:
    """The tables of every model in pbem (what autogenerate compares the schema with): each
    module is imported, so a model is found wherever it is defined."""
    for module in pkgutil.walk_packages(pbem.__path__, "pbem."):
        importlib.import_module(module.name)
    return SQLModel.metadata
