"""The read models are projections of the log: ``pbem db rebuild-projections`` rebuilds every
row of games, seats and undo requests from the events alone, identical to the rows the
commands left; ``pbem replay GAME --verify`` fails, naming the table, row and column, once a
stored row no longer agrees with the log. On SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from sqlalchemy import text

import engine
from pbem.app.bootstrap import build_service
from pbem.app.service import GameService
from pbem.core.db import Database
from pbem.core.projections.runner import snapshot_rows
from pbem.core.read_models import game_ids
from tests.settings import make_settings
from web.cli import main

PLAYERS = [{"name": n, "email": f"{n.lower()}@example.org"} for n in ("Ann", "Bob", "Cy")]


@pytest.fixture
def service(database: Database, tmp_path: Path) -> GameService:
    return build_service(
        make_settings(database.url, tmp_path), db=database, registry=engine.REGISTRY
    )


@pytest.fixture
def run(database: Database, tmp_path: Path):  # type: ignore[no-untyped-def]
    env = {"PBEM_DATABASE_URL": database.url, "PBEM_VAR_DIR": str(tmp_path / "var")}

    def invoke(*args: str) -> Result:
        return CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)

    return invoke


def _play(service: GameService, gid: str, seat: int | None = None) -> int:
    """``seat`` (default: the first to act) plays the engine's default action."""
    loaded = service.load(gid)
    seat = min(loaded.to_act) if seat is None else seat
    action = loaded.rules.auto_action(loaded.state, seat)
    text_ = loaded.rules.format_action(loaded.state, action)
    service.submit(gid, seat, text_, expected_version=loaded.version, channel="api")
    return seat


def _lancelot_with_every_kind_of_undo(service: GameService, *, finish: bool) -> str:
    gid = service.create_game("lancelot", {}, PLAYERS[:2]).id
    _play(service, gid, 0)
    _play(service, gid, 1)
    assert service.undo(gid, 1, channel="api").status == "retracted"  # its own move
    _play(service, gid, 1)
    _play(service, gid, 0)
    asked = service.undo(gid, 1, channel="api")  # over seat 0's move: needs its consent
    assert asked.status == "requested" and asked.request is not None
    assert service.decide_undo(gid, 0, asked.request, True, channel="api").status == "retracted"
    _play(service, gid, 1)
    _play(service, gid, 0)
    lapsing = service.undo(gid, 1, channel="api")
    assert lapsing.status == "requested"
    _play(service, gid, 1)  # the game moves on: the request lapses
    _play(service, gid, 0)
    declined = service.undo(gid, 0, channel="api")
    _play(service, gid)  # seat 0 is asked nothing; the request waits for seat 1
    if declined.status == "requested" and declined.request is not None:
        loaded = service.load(gid)
        if not loaded.finished:
            service.decide_undo(gid, 1, declined.request, False, channel="api")
    if finish:
        while not service.load(gid).finished and service.load(gid).to_act:
            _play(service, gid)
    return gid


def _games(service: GameService) -> list[str]:
    ids = [
        _lancelot_with_every_kind_of_undo(service, finish=False),
        _lancelot_with_every_kind_of_undo(service, finish=True),
    ]
    # Lancaster, 3 players: a few moves, one seat resigns (its turns are then automatic).
    gid = service.create_game("lancaster", {}, PLAYERS).id
    for _ in range(4):
        _play(service, gid)
    service.resign(gid, 2, channel="api")
    for _ in range(3):
        _play(service, gid)
    ids.append(gid)
    # Lancaster, 2 players, finished by a resignation (its seed revealed).
    gid = service.create_game("lancaster", {}, PLAYERS[:2]).id
    for _ in range(3):
        _play(service, gid)
    service.resign(gid, 0, channel="api")
    ids.append(gid)
    # Lancaster, 3 players, ended by its administrator.
    created = service.create_game("lancaster", {}, PLAYERS)
    _play(service, created.id)
    service.admin_end(created.id, created.admin_token)
    ids.append(created.id)
    return ids


def _rows(database: Database) -> dict[str, Any]:
    with database.read() as session:
        return {gid: snapshot_rows(session, gid) for gid in game_ids(database)}


def test_rebuilding_the_projections_leaves_every_read_model_row_identical(
    service: GameService, database: Database, run: Any
) -> None:
    ids = _games(service)
    before = _rows(database)
    statuses = {row["status"] for gid in ids for row in before[gid]["undo_requests"].values()}
    assert {"accepted", "lapsed"} <= statuses, statuses
    assert any(row["finished"] for gid in ids for row in before[gid]["games"].values())
    assert any(row["resigned"] for gid in ids for row in before[gid]["seats"].values())
    with database.write() as s:  # wipe them: the rebuild must come from the events alone
        for table in ("games", "seats", "undo_requests"):
            s.execute(text(f"DELETE FROM {table}"))
    result = run("db", "rebuild-projections")
    assert result.exit_code == 0, result.output
    assert _rows(database) == before
    for gid in ids:
        verified = run("replay", gid, "--verify")
        assert verified.exit_code == 0, verified.output
        assert (
            "read models (games, seats, undo requests, disputes) match the log" in verified.output
        )


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ("DELETE FROM seats WHERE game_id = :g AND seat = 1", "seats (1): the row is missing"),
        ("UPDATE games SET to_act = '[0,1,2]' WHERE id = :g", "games ({g}), column to_act"),
        (
            "UPDATE seats SET name = 'Mallory' WHERE game_id = :g AND seat = 0",
            "seats (0), column name",
        ),
        (
            "UPDATE undo_requests SET status = 'withdrawn' WHERE game_id = :g",
            "undo_requests (",
        ),
        ("DELETE FROM games WHERE id = :g", "games ({g}): the row is missing"),
    ],
)
def test_a_changed_read_model_row_fails_replay_verify_and_is_named(
    service: GameService, database: Database, run: Any, change: str, named: str
) -> None:
    gid = _lancelot_with_every_kind_of_undo(service, finish=False)
    assert run("replay", gid, "--verify").exit_code == 0
    with database.write() as s:
        s.execute(text(change), {"g": gid})
    result = run("replay", gid, "--verify")
    assert result.exit_code == 1, result.output
    assert named.format(g=gid) in result.output, result.output
    assert "the read models do not match the log" in result.output
