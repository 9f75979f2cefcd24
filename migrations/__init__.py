"""The Alembic migrations of pbem's schema, shipped with the package (see pbem.core.resources)."""
