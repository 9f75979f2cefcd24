"""Fixtures of the service contract suite: the service, the JSON API and the mail pipeline
built by the same bootstrap as production (``pbem.app.bootstrap.build_service``), on each database.

Cost: every (game, player count, config) is played once per door in a plain run; the tests
marked ``slow`` play more seeds and run only when asked for (``-m slow``).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

import engine
from pbem.app.bootstrap import build_service
from pbem.app.service import GameService
from pbem.cli.main import main
from pbem.core.db import Database
from pbem.core.migrate import upgrade
from pbem.core.replay import verify
from pbem.core.time_source import ManualClock
from pbem.mail.outbound.relay import Relay
from pbem.mail.outbound.smtp import transport_for
from tests.contract.players import REGISTRY, WEBHOOK_SECRET, MailDoor
from tests.helpers import database_of
from tests.mail.servers import SmtpTestServer
from tests.settings import contract_settings
from web import create_app

#: A memory-backed file system, where it exists (Linux).
MEMORY_FS = Path("/dev/shm")


@pytest.fixture(scope="module")
def sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A fresh SQLite file for this module, on a memory-backed file system when there is one.

    The service runs SQLite with ``synchronous=FULL``, so each of the thousands of commits a
    module's games make waits for the disk to flush; on tmpfs that flush returns at once. The
    database is the same file in the same WAL mode with the same pragmas: only the disk's
    speed differs (a shared CI disk made these games wait on fsync for most of their time)."""
    if not MEMORY_FS.is_dir():
        yield f"sqlite:///{tmp_path_factory.mktemp('sqlite') / 'pbem.db'}"
        return
    directory = Path(tempfile.mkdtemp(prefix="pbem-contract-", dir=MEMORY_FS))
    try:
        yield f"sqlite:///{directory / 'pbem.db'}"
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(
    scope="module",
    params=[
        "sqlite",
        pytest.param("postgres", marks=[pytest.mark.postgres, pytest.mark.slow]),
    ],
)
def database_url(request: pytest.FixtureRequest) -> str:
    """A migrated, empty database per module, as ``tests/conftest.py`` makes them; here
    PostgreSQL plays with the slow tests only, to keep a plain run's cost to one database."""
    url: str = request.getfixturevalue(f"{request.param}_url")
    db = Database(url)
    try:
        upgrade(db)
    finally:
        db.dispose()
    return url


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(datetime(2025, 6, 2, 9, 0, tzinfo=UTC))


@pytest.fixture
def service(database: Database, tmp_path: Path, clock: ManualClock) -> GameService:
    """The service as the CLI and web build it (the outbox listener included)."""
    settings = contract_settings(database.url, tmp_path, inbound_secret=WEBHOOK_SECRET)
    return build_service(settings, db=database, clock=clock, registry=REGISTRY)


@pytest.fixture(scope="module")
def smtp_server() -> Iterator[SmtpTestServer]:
    server = SmtpTestServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def mail_door(
    database: Database,
    tmp_path: Path,
    clock: ManualClock,
    smtp_server: SmtpTestServer,
) -> MailDoor:
    settings = contract_settings(
        database.url, tmp_path, inbound_secret=WEBHOOK_SECRET, smtp_url=smtp_server.url
    )
    service = build_service(settings, db=database, clock=clock, registry=REGISTRY)
    relay = Relay(database, settings, transport_for(settings.mail.smtp_url, ""), clock)
    client = create_app(settings, service).test_client()
    return MailDoor(service, relay, client, smtp_server)


def check_replay(service: GameService, game_id: str, tmp_path: Path) -> str:
    """``pbem replay --verify``: the command itself for games it knows (the installed
    registry), the function it calls for the test game; returns the final state hash."""
    with database_of(service).read() as session:
        report = verify(session, game_id, REGISTRY)
    assert report.ok, "\n".join(f"v{p.version}: {p.message}" for p in report.problems)
    assert report.final_state_hash
    name = service.load(game_id).game
    if name in engine.REGISTRY:
        env = {"PBEM_DATABASE_URL": database_of(service).url, "PBEM_VAR_DIR": str(tmp_path / "cli")}
        result = CliRunner().invoke(main, ["replay", "--verify", game_id], env=env)
        assert result.exit_code == 0, result.output
        checks = (
            "chain, legality and seed verified"
            if service.load(game_id).finished
            else "chain and legality verified; seed committed (revealed when the game ends)"
        )
        assert f"{game_id}: {report.events} events {checks}\n" in result.output, result.output
        assert f"final state hash {report.final_state_hash}" in result.output
    return report.final_state_hash
