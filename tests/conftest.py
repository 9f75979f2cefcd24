"""Shared fixtures: databases for the storage, API and mail suites.

PostgreSQL: ``PBEM_TEST_POSTGRES_URL`` names a server and a database to connect to for
administration (default ``postgresql://postgres@127.0.0.1:5432/test``). Each test module gets
its own freshly created database there, dropped at the end of the session. When the server
cannot be reached the PostgreSQL tests are skipped with the reason, unless
``PBEM_REQUIRE_POSTGRES=1`` (as in CI), where they fail instead.

``database_url`` is parametrized over SQLite and PostgreSQL and gives a migrated, empty
database per test module; ``database`` wraps it in a ``pbem.core.db.Database``.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
from flask import Flask
from sqlalchemy.engine import make_url

from pbem.app.bootstrap import register_features
from pbem.core.db import Database
from pbem.core.migrate import upgrade
from tests.form_client import FormClient

# Tests read and build the features' events (and project them) without a service too: the
# service registers them when it is built, the tests before any of them runs.
register_features()

# Every app's test client posts its forms with the page's CSRF token (tests/form_client.py).
Flask.test_client_class = FormClient

DEFAULT_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``slow`` (the same code paths as a plain run, at a larger scale: more seeds,
    more playouts, larger fuzzing campaigns) run only when the marker expression names them:
    ``pytest -m slow`` runs them alone, ``pytest -m "slow or not slow"`` runs everything. A
    plain run (``make test``) deselects them, so it stays within its time budget."""
    for item in items:
        # A module marked ``postgres_in_slow`` checks what its database does not change (a
        # page's or a mail's content, who may do what): its PostgreSQL run is a slow one.
        callspec = getattr(item, "callspec", None)
        if (
            item.get_closest_marker("postgres_in_slow")
            and callspec is not None
            and callspec.params.get("database_url") == "postgres"
        ):
            item.add_marker(pytest.mark.slow)
    if "slow" in (config.option.markexpr or ""):
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]


def _postgres_required() -> bool:
    return os.environ.get("PBEM_REQUIRE_POSTGRES", "") not in {"", "0", "false", "no"}


def _libpq_url(url: str) -> str:
    """psycopg wants ``postgresql://``, SQLAlchemy URLs may say ``postgresql+psycopg://``."""
    parsed = make_url(url).set(drivername="postgresql")
    return parsed.render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def postgres_server_url() -> str:
    """The administration URL of a reachable PostgreSQL server (or skip/fail with why)."""
    url = os.environ.get("PBEM_TEST_POSTGRES_URL") or DEFAULT_POSTGRES_URL
    try:
        with psycopg.connect(_libpq_url(url), connect_timeout=3, autocommit=True) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as e:
        reason = (
            f"PostgreSQL tests need a server at {url} (set PBEM_TEST_POSTGRES_URL); "
            f"connecting failed: {str(e).strip()}"
        )
        if _postgres_required():
            pytest.fail(reason + " (PBEM_REQUIRE_POSTGRES=1, so this is a failure)")
        pytest.skip(reason)
    return url


@pytest.fixture(scope="session")
def new_postgres_database(postgres_server_url: str) -> Iterator[Callable[[], str]]:
    """A factory of fresh, empty PostgreSQL databases; all are dropped after the session."""
    admin_url = _libpq_url(postgres_server_url)
    created: list[str] = []

    def create() -> str:
        name = f"pbem_test_{os.getpid()}_{secrets.token_hex(4)}"
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        created.append(name)
        return make_url(postgres_server_url).set(database=name).render_as_string(False)

    yield create
    with psycopg.connect(admin_url, autocommit=True) as conn:
        for name in created:
            # FORCE: a test that failed may have left a connection open.
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="module")
def postgres_url(new_postgres_database: Callable[[], str]) -> str:
    """A fresh, empty (not migrated) PostgreSQL database for this test module."""
    return new_postgres_database()


@pytest.fixture(scope="module")
def sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A fresh, empty (not migrated) SQLite file for this test module."""
    path: Path = tmp_path_factory.mktemp("sqlite") / "pbem.db"
    return f"sqlite:///{path}"


@pytest.fixture(
    scope="module",
    params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)],
)
def database_url(request: pytest.FixtureRequest) -> str:
    """A migrated, empty database for this module: SQLite and PostgreSQL."""
    url: str = request.getfixturevalue(f"{request.param}_url")
    db = Database(url)
    try:
        upgrade(db)
    finally:
        db.dispose()
    return url


@pytest.fixture(scope="module")
def database(database_url: str) -> Iterator[Database]:
    db = Database(database_url)
    yield db
    db.dispose()
