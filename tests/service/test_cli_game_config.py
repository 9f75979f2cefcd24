"""``pbem new-game --config``: a Lancaster game with data overrides of its owner is created with
the normalised overrides in its first event, as documented (docs/web.md); a malformed config,
a hostile ``new_laws`` among them, ends the command with the config's error and creates
nothing. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sqlmodel import select

from engine import REGISTRY as ENGINES
from pbem.core import events as ev
from pbem.core.db import Database
from pbem.core.models import Game
from pbem.core.store import read
from web.cli import main

#: the example of docs/web.md
EXAMPLE = {"players": 3, "data": {"counties": {"G": {"reward": {"power": 5}}}}}


@pytest.fixture
def run(database_url: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    env = {"PBEM_DATABASE_URL": database_url, "PBEM_VAR_DIR": str(tmp_path / "var")}
    runner = CliRunner()

    def invoke(*args: str) -> Result:
        return runner.invoke(main, list(args), env=env, catch_exceptions=False)

    return invoke


def _first_event(database_url: str, game_id: str) -> ev.GameCreated:
    db = Database(database_url)
    try:
        with db.read() as session:
            first = read(session, game_id)[0].payload
    finally:
        db.dispose()
    assert isinstance(first, ev.GameCreated)
    return first


def _games(database_url: str) -> int:
    db = Database(database_url)
    try:
        with db.read() as session:
            return len(session.exec(select(Game)).all())
    finally:
        db.dispose()


def test_the_documented_override_creates_a_game_that_records_it(run, database_url: str) -> None:  # type: ignore[no-untyped-def]
    players = ["--player", "Ann", "--player", "Bob", "--player", "Cat"]
    result = run("new-game", "lancaster", *players, "--config", json.dumps(EXAMPLE))
    assert result.exit_code == 0, result.output
    game_id = re.search(r"game (\w+) \(lancaster\)", result.output).group(1)  # type: ignore[union-attr]
    created = _first_event(database_url, game_id)
    assert created.config["data"] == {"counties": {"G": {"reward": {"power": 5}}}}
    assert created.config == ENGINES["lancaster"].validate_config(EXAMPLE)


@pytest.mark.parametrize(
    "config",
    [
        {"new_laws": "sometimes"},
        {"new_laws": ["base", "new"]},
        {"data": {"counties": {"Z": {"minimum": 2}}}},
    ],
    ids=["new-laws-word", "new-laws-short-list", "unknown-county"],
)
def test_a_malformed_config_is_refused_and_creates_nothing(  # type: ignore[no-untyped-def]
    run, database_url: str, config: dict[str, object]
) -> None:
    before = _games(database_url)
    result = run(
        "new-game", "lancaster", "--player", "A", "--player", "B", "--config", json.dumps(config)
    )
    assert result.exit_code == 1
    assert "The config is not valid for lancaster" in result.output
    assert _games(database_url) == before
