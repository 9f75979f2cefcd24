"""The clock's commands on the command line, on SQLite and PostgreSQL: ``pbem deadlines``,
and the administrator's ``extend``, ``pause``, ``resume`` and ``time-control`` (the admin
token required: a wrong one is refused and changes nothing)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from pbem.app.bootstrap import build_service
from pbem.app.service import GameService
from pbem.clock import events as ce
from pbem.core.db import Database
from pbem.core.models import Deadline
from tests.helpers import database_of
from tests.service.helpers import REGISTRY
from tests.settings import make_settings
from web.cli import main

Run = Callable[..., Result]


@pytest.fixture
def service(database: Database, tmp_path: Path) -> GameService:
    return build_service(
        make_settings(database.url, tmp_path), db=database, registry=REGISTRY, listeners=[]
    )


@pytest.fixture
def run(database_url: str, tmp_path: Path) -> Run:
    env = {"PBEM_DATABASE_URL": database_url, "PBEM_VAR_DIR": str(tmp_path / "var")}
    runner = CliRunner()

    def invoke(*args: str, token: str | None = None) -> Result:
        extra = {"PBEM_ADMIN_TOKEN": token} if token else {}
        return runner.invoke(main, list(args), env={**env, **extra}, catch_exceptions=False)

    return invoke


def _row(service: GameService, game_id: str, seat: int) -> Deadline:
    with database_of(service).read() as session:
        found = session.get(Deadline, (game_id, seat))
        assert found is not None
        session.expunge(found)
        return found


def test_the_administrator_runs_the_clock_from_the_command_line(
    service: GameService, run: Run
) -> None:
    players = [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob"}]
    g = service.create_game("lancelot", {}, players, time_control="48h")
    service.accept_invitation(g.id, 0, channel="web")  # an invited seat is timed from then
    table = run("deadlines", g.id).output.splitlines()
    assert table[0].split() == [
        "game",
        "seat",
        "name",
        "status",
        "due",
        "(UTC)",
        "standing",
        "order",
    ]
    ann = next(line for line in table if " Ann " in line)
    assert "running" in ann and "in 1 day 23 hours" in ann and ann.endswith("no")
    due = _row(service, g.id, 0).due_at
    assert due is not None

    other = service.create_game("lancelot", {}, players, time_control="48h")
    version = service.load(g.id).version
    for token in ("not-the-token", other.admin_token, g.seats[0].token):
        refused = run("extend", g.id, "0", "24h", token=token)
        assert refused.exit_code == 1 and "admin token" in refused.output
        assert run("pause", g.id, token=token).exit_code == 1
    assert run("extend", g.id, "0", "24h").exit_code == 2  # no token at all
    assert service.load(g.id).version == version

    done = run("extend", g.id, "0", "24h", token=g.admin_token)
    assert done.exit_code == 0, done.output
    assert "Ann (Red)'s deadline extended by 1 day" in done.output, done.output
    assert _row(service, g.id, 0).due_at > due  # type: ignore[operator]
    assert "in 2 days 23 hours" in run("deadlines", g.id).output

    nobody = run("extend", g.id, "1", "1h", token=g.admin_token)
    assert nobody.exit_code == 1 and "owes no decision" in nobody.output
    bad = run("extend", g.id, "0", "soon", token=g.admin_token)
    assert bad.exit_code == 1 and "extension" in bad.output

    assert run("pause", g.id, token=g.admin_token).exit_code == 0
    assert _row(service, g.id, 0).status == "paused"
    again = run("pause", g.id, token=g.admin_token)
    assert again.exit_code == 1 and "already paused" in again.output
    assert run("resume", g.id, token=g.admin_token).exit_code == 0
    assert _row(service, g.id, 0).status == "running"
    assert run("resume", g.id, token=g.admin_token).exit_code == 1

    changed = run("time-control", g.id, "fast", token=g.admin_token)
    assert changed.exit_code == 0 and "next decision" in changed.output
    unknown = run("time-control", g.id, "glacial", token=g.admin_token)
    assert unknown.exit_code == 1 and "preset" in unknown.output
    broken = run("time-control", g.id, '{"kind": "clock"', token=g.admin_token)
    assert broken.exit_code == 2 and "not JSON" in broken.output
    events = service.raw_events(g.id)
    kinds = [(e.type, getattr(e.payload, "by", None)) for e in events[-4:]]
    assert kinds == [
        ("DeadlineExtended", "administrator"),
        ("GamePaused", "administrator"),
        ("GameResumed", "administrator"),
        ("TimeControlSet", "administrator"),
    ]
    assert all(e.payload.channel == "cli" for e in events[-4:])  # type: ignore[attr-defined]
    as_json = run("time-control", g.id, '{"kind": "clock", "initial": "3d"}', token=g.admin_token)
    assert as_json.exit_code == 0, as_json.output
    last = service.raw_events(g.id)[-1].payload
    assert isinstance(last, ce.TimeControlSet) and last.time_control["kind"] == "clock"
    everything = run("deadlines").output
    assert g.id in everything and other.id in everything
    assert run("deadlines", "nosuchgame").exit_code == 1
