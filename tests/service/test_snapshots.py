"""Snapshots are a cache the service seals with its secret key: a changed snapshot row never
changes what the service serves or accepts, ``replay --verify`` checks every stored snapshot
against the log, and a bad one is ignored and reported. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import text

from pbem.app.bootstrap import build_service
from pbem.app.service import GameService
from pbem.core import events as ev
from pbem.core.db import Database
from pbem.core.errors import AgainstTheRules
from pbem.core.fold import Fold
from pbem.core.models import Snapshot
from pbem.core.replay import verify
from tests.helpers import database_of
from tests.service.helpers import REGISTRY
from tests.settings import make_settings
from web.cli import main

FORGED_GEM = "gem-ffffffffffff"


def _play(service: GameService, game_id: str, seat: int, text: str) -> None:
    version = service.load(game_id).version
    service.submit(game_id, seat, text, expected_version=version, channel="api")


def _game_with_snapshot_at_head(service: GameService) -> str:
    """A Hoard game at version 5 (a snapshot is taken every 5 versions), seat 1 to stake."""
    gid = service.create_game(
        "hoard", {"rounds": 3}, [{"name": "Ann", "email": None}, {"name": "Bob", "email": None}]
    ).id
    _play(service, gid, 0, "draw")
    _play(service, gid, 1, "draw")
    _play(service, gid, 0, "pass")
    assert service.load(gid).version == 5
    return gid


def _snapshot(service: GameService, gid: str, version: int) -> Snapshot:
    with database_of(service).read() as s:
        row = s.get(Snapshot, (gid, version))
    assert row is not None, f"no snapshot at version {version}"
    return row


def _forge_a_gem_for_bob(service: GameService, gid: str, version: int) -> None:
    """What someone with write access to the database (and not the service's key) can do."""
    state = json.loads(_snapshot(service, gid, version).state)
    state["purses"][1].append(FORGED_GEM)
    with database_of(service).write() as s:
        s.execute(
            text("UPDATE snapshots SET state = :state WHERE game_id = :g AND version = :v"),
            {"state": ev.canonical_json(state), "g": gid, "v": version},
        )


def _fresh(service: GameService, tmp_path: Path) -> GameService:
    """Another process on the same database: no state in memory yet."""
    return build_service(
        make_settings(database_of(service).url, tmp_path),
        db=database_of(service),
        registry=REGISTRY,
        listeners=[],
    )


def test_a_changed_snapshot_changes_neither_the_view_nor_the_moves_accepted(
    service: GameService, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    gid = _game_with_snapshot_at_head(service)
    honest = service.load(gid).view(1)
    _forge_a_gem_for_bob(service, gid, 5)
    other = _fresh(service, tmp_path)
    with caplog.at_level(logging.WARNING, logger="pbem"):
        loaded = other.load(gid)
    assert loaded.view(1) == honest
    assert FORGED_GEM not in json.dumps(loaded.view(1))
    assert f"stake {FORGED_GEM}" not in loaded.legal(1)
    with pytest.raises(AgainstTheRules):
        _play(other, gid, 1, f"stake {FORGED_GEM}")
    assert other.load(gid).version == 5
    reported = [r.getMessage() for r in caplog.records if "snapshot" in r.getMessage()]
    assert any(gid in m and "version 5" in m and "ignored" in m for m in reported), reported
    # The game goes on from the log's state: Bob passes, and the log verifies.
    _play(other, gid, 1, "pass")
    with database_of(other).read() as s:
        assert verify(s, gid, REGISTRY).ok


def test_a_snapshot_copied_from_another_version_is_ignored(
    service: GameService, tmp_path: Path
) -> None:
    """A sealed state moved to another version (its event hash made to match) is refused."""
    gid = _game_with_snapshot_at_head(service)
    for text_ in ("pass", "keep", "draw", "pass"):  # round 2 begins at 6, its vote at 8
        loaded = service.load(gid)
        _play(service, gid, min(loaded.to_act), text_)
    assert service.load(gid).version == 9
    at_ten = service.load(gid)
    _play(service, gid, min(at_ten.to_act), at_ten.legal(min(at_ten.to_act))[0])
    five, ten = _snapshot(service, gid, 5), _snapshot(service, gid, 10)
    with database_of(service).write() as s:
        s.execute(
            text(
                "UPDATE snapshots SET state = :state, mac = :mac "
                "WHERE game_id = :g AND version = 10"
            ),
            {"state": five.state, "mac": five.mac, "g": gid},
        )
    other = _fresh(service, tmp_path)
    assert other.load(gid).view(None)["round"] == 3  # not round 1, as at version 5
    assert ten.state != five.state


def test_a_sealed_snapshot_is_used(
    service: GameService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check does not turn snapshots off: a fresh process folds from the snapshot."""
    gid = _game_with_snapshot_at_head(service)
    _play(service, gid, 1, "pass")
    other = _fresh(service, tmp_path)

    def no_fold_from_the_start(*_: Any) -> Fold:
        raise AssertionError("folded from the first event although a snapshot was sealed")

    monkeypatch.setattr(Fold, "from_start", no_fold_from_the_start)
    assert other.load(gid).version == 6


def test_replay_verify_checks_every_stored_snapshot(service: GameService) -> None:
    gid = _game_with_snapshot_at_head(service)
    key = service.settings.secret_key
    with database_of(service).read() as s:
        report = verify(s, gid, REGISTRY, snapshot_key=key)
    assert report.ok and report.snapshots_ok and report.snapshots_checked == 1
    _forge_a_gem_for_bob(service, gid, 5)
    with database_of(service).read() as s:
        report = verify(s, gid, REGISTRY, snapshot_key=key)
    assert report.ok  # the log itself is sound
    assert not report.snapshots_ok
    messages = [(p.version, p.message) for p in report.snapshot_problems]
    assert (5, "its state is not the state the log gives at version 5") in messages
    assert (
        "snapshot at version 5: its seal does not verify under this service's secret key, so "
        "the service does not use it"
    ) in report.notes


def test_replay_verify_on_the_command_line_reports_a_bad_snapshot(
    database_url: str, tmp_path: Path
) -> None:
    env = {
        "PBEM_DATABASE_URL": database_url,
        "PBEM_VAR_DIR": str(tmp_path / "var"),
        "PBEM_SNAPSHOT_EVERY": "3",
    }
    runner = CliRunner()

    def run(*args: str) -> Any:
        return runner.invoke(main, list(args), env=env, catch_exceptions=False)

    created = run("new-game", "lancelot", "--player", "Ann", "--player", "Bob")
    gid = created.output.split()[1]
    assert run("act", gid, "0", "E5").exit_code == 0
    good = run("replay", gid, "--verify")
    assert good.exit_code == 0, good.output
    assert "1 stored snapshot matches the log" in good.output
    db = Database(database_url)
    try:
        with db.write() as s:
            s.execute(
                text("UPDATE snapshots SET state = state || ' ' WHERE game_id = :g"),
                {"g": gid},
            )
    finally:
        db.dispose()
    bad = run("replay", gid, "--verify")
    assert bad.exit_code == 1
    assert "snapshot at version 3: its state is not the state the log gives" in bad.output
    assert "the log verifies; 1 stored snapshot does not match it" in bad.output
