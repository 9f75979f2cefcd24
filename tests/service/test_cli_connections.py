"""Every ``pbem`` command gives back its database connections when it ends: run in-process
(as the tests, a shell loop or a long-lived supervisor do), none stays open behind it."""

from __future__ import annotations

import os
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner
from sqlalchemy.engine import make_url

from web.cli import main

COMMANDS = [
    ["db", "upgrade"],
    ["demo"],
    ["games"],
    ["mail", "status"],
]


def _open_connections(url: str) -> int:
    """Connections to this database still open: server sessions on PostgreSQL, open file
    descriptors of this process on the SQLite file (its -wal and -shm too)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        database = os.path.realpath(str(parsed.database))
        fds = Path("/proc/self/fd")
        targets = []
        for fd in fds.iterdir():
            try:
                targets.append(os.readlink(fd))
            except OSError:  # closed while listing
                continue
        return sum(1 for t in targets if t.startswith(database))
    admin = parsed.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(admin, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchone()
    assert row is not None
    return int(row[0])


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_command_leaves_no_database_connection_open(
    database_url: str, tmp_path: Path, command: list[str]
) -> None:
    env = {"PBEM_DATABASE_URL": database_url, "PBEM_VAR_DIR": str(tmp_path)}
    assert _open_connections(database_url) == 0
    result = CliRunner().invoke(main, command, env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert _open_connections(database_url) == 0
