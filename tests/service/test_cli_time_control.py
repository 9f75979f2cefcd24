"""``pbem new-game --time-control`` and the demo's time control, on SQLite and PostgreSQL:
a preset, a duration or a JSON object is taken and said back; a bad one ends the command
with what to change, and creates nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sqlmodel import select

from pbem.core.db import Database
from pbem.core.models import Deadline, Game, GameClockState
from web.cli import main


@pytest.fixture
def run(database_url: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    env = {"PBEM_DATABASE_URL": database_url, "PBEM_VAR_DIR": str(tmp_path / "var")}
    runner = CliRunner()

    def invoke(*args: str) -> Result:
        return runner.invoke(main, list(args), env=env, catch_exceptions=False)

    assert invoke("db", "upgrade").exit_code == 0
    return invoke


def _time_control(database_url: str, game_id: str) -> dict[str, object] | None:
    db = Database(database_url)
    try:
        with db.read() as session:
            row = session.get(GameClockState, game_id)
            return None if row is None else dict(json.loads(row.state)["time_control"])
    finally:
        db.dispose()


def _games(database_url: str) -> int:
    db = Database(database_url)
    try:
        with db.read() as session:
            return len(session.exec(select(Game)).all())
    finally:
        db.dispose()


def _new(run, *extra: str) -> Result:  # type: ignore[no-untyped-def]
    return run("new-game", "lancelot", "--player", "Ann", "--player", "Bob", *extra)


@pytest.mark.parametrize(
    ("given", "said", "per_decision"),
    [
        ("standard", "2 days per move", 2 * 86400),
        ("36h", "1 day 12 hours per move", 36 * 3600),
        ('{"preset": "fast", "grace": "30m"}', "12 hours per move, 30 minutes grace", 12 * 3600),
    ],
)
def test_new_game_takes_a_time_control(  # type: ignore[no-untyped-def]
    run, database_url: str, given: str, said: str, per_decision: int
) -> None:
    result = _new(run, "--time-control", given)
    assert result.exit_code == 0, result.output
    assert f"  time control: {said}\n" in result.output
    game_id = re.search(r"game (\w+) \(lancelot\)", result.output).group(1)  # type: ignore[union-attr]
    stored = _time_control(database_url, game_id)
    assert stored is not None and stored["per_decision"] == per_decision


def test_new_game_without_one_is_untimed(run, database_url: str) -> None:  # type: ignore[no-untyped-def]
    result = _new(run)
    assert result.exit_code == 0 and "time control" not in result.output
    game_id = re.search(r"game (\w+) \(lancelot\)", result.output).group(1)  # type: ignore[union-attr]
    assert _time_control(database_url, game_id) is None


@pytest.mark.parametrize(
    ("given", "code", "said"),
    [
        ("soon", 1, "The time control cannot be used: time control 'soon' is neither a preset"),
        ('{"kind": "clock"}', 1, "a clock needs initial"),
        ("{kind", 2, "not JSON"),
        ("400d", 1, "must be between 0 and 365 days"),
    ],
)
def test_a_bad_time_control_is_explained_and_creates_nothing(  # type: ignore[no-untyped-def]
    run, database_url: str, given: str, code: int, said: str
) -> None:
    before = _games(database_url)
    result = _new(run, "--time-control", given)
    assert result.exit_code == code and said in result.output, result.output
    assert _games(database_url) == before


def test_the_demo_game_has_the_demo_time_control(run, database_url: str) -> None:  # type: ignore[no-untyped-def]
    result = run("demo")
    assert result.exit_code == 0, result.output
    assert "time control: 3 minutes per move" in result.output
    game_id = re.search(r"demo Lancelot game (\w+)", result.output).group(1)  # type: ignore[union-attr]
    stored = _time_control(database_url, game_id)
    assert stored is not None and stored["per_decision"] == 180


def test_the_demo_games_clock_runs_from_the_start(run, database_url: str) -> None:  # type: ignore[no-untyped-def]
    # whoever runs the demo plays both seats: both invitations are accepted, so the first
    # player's 3 minutes run at once (a reminder, then the deadline move, within minutes)
    result = run("demo")
    assert result.exit_code == 0, result.output
    game_id = re.search(r"demo Lancelot game (\w+)", result.output).group(1)  # type: ignore[union-attr]
    db = Database(database_url)
    try:
        with db.read() as session:
            rows = session.exec(select(Deadline).where(Deadline.game_id == game_id)).all()
            assert sorted(r.status for r in rows) == ["idle", "running"]
    finally:
        db.dispose()
