"""Games keep their rules: a game records the rules version it was created with and replays,
verifies (stored and exported) and plays on under that release, whatever has been released
since; new games get the latest; a version that is not installed is a clear error.

``LATER`` stands for any later release of Lancaster: the same engine over other data (every
player starts with 7 gold), so a game played under the wrong release shows at once."""

from __future__ import annotations

import random
import secrets
from dataclasses import replace
from pathlib import Path

import pytest

from engine.core.registry import Registry
from engine.lancaster import LANCASTER_1_0, LancasterRules
from engine.lancaster.data import BASE
from pbem.app.bootstrap import build_service
from pbem.app.service import GameService
from pbem.audit.export import export_game
from pbem.audit.verify import verify_bundle
from pbem.core import events as ev
from pbem.core.db import Database
from pbem.core.errors import RulesNotInstalled
from pbem.core.replay import verify
from tests.service.test_games import play
from tests.settings import make_settings

LATER = LancasterRules("9.0.0", replace(BASE, start_gold=7))
BEFORE = Registry((LANCASTER_1_0,))
AFTER = Registry((LANCASTER_1_0, LATER))
ONLY_LATER = Registry((LATER,))
SEED = 20_261_127


def _service(database: Database, tmp_path: Path, registry: Registry) -> GameService:
    return build_service(
        make_settings(database.url, tmp_path), db=database, registry=registry, listeners=[]
    )


def _create(service: GameService, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(secrets, "randbits", lambda bits: SEED)
    names = [{"name": f"P{i}", "email": f"p{i}@example.org"} for i in range(3)]
    gid = service.create_game("lancaster", {}, names).id
    monkeypatch.undo()
    return gid


def _play(service: GameService, gid: str, choose: random.Random, moves: int) -> None:
    """``moves`` seeded random legal moves (fewer if the game ends first)."""
    for _ in range(moves):
        loaded = service.load(gid)
        if loaded.finished or not loaded.to_act:
            return
        seat = min(loaded.to_act)
        play(service, gid, seat, choose.choice(loaded.legal(seat)))


def _moves(service: GameService, gid: str) -> list[tuple[object, ...]]:
    """Every applied action: who, what, and the engine's log of it."""
    return [
        (p.seat, p.canonical, tuple(p.log))
        for e in service.raw_events(gid)
        if isinstance(p := e.payload, ev.ActionApplied)
    ]


def test_a_game_keeps_the_rules_it_was_created_with_after_a_later_release(
    database: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _service(database, tmp_path, BEFORE)
    kept, reference = _create(before, monkeypatch), _create(before, monkeypatch)
    assert before.load(kept).state.colours[0].gold == 2  # 1.0.0: 2 gold to start
    _play(before, kept, random.Random(5), 40)
    _play(before, reference, random.Random(5), 40)

    # A later release is installed: the game started before it goes on under 1.0.0 (its
    # stored snapshots, taken under 1.0.0, are still used), to the very same end as the
    # same game played on without the release.
    after = _service(database, tmp_path, AFTER)
    assert after.load(kept).rules is LANCASTER_1_0
    _play(after, kept, random.Random(6), 5000)
    _play(before, reference, random.Random(6), 5000)
    assert after.load(kept).finished
    assert _moves(after, kept) == _moves(before, reference)
    assert after.load(kept).outcome == before.load(reference).outcome

    with database.read() as session:
        report = verify(session, kept, AFTER, snapshot_key="test-only-secret")
    assert report.problems == [], report.problems
    assert report.snapshots_checked > 0
    offline = verify_bundle(export_game(database, kept), AFTER)
    assert offline.problems == [], offline.problems

    new = after.create_game("lancaster", {}, [{"name": "A"}, {"name": "B"}]).id
    assert after.load(new).rules is LATER
    assert after.load(new).state.colours[0].gold == 7


def test_a_game_whose_rules_version_is_not_installed_is_refused_clearly(
    database: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _service(database, tmp_path, BEFORE)
    gid = _create(before, monkeypatch)
    _play(before, gid, random.Random(7), 5000)
    bundle = export_game(database, gid)

    elsewhere = _service(database, tmp_path, ONLY_LATER)
    with pytest.raises(RulesNotInstalled, match=r"lancaster version 1\.0\.0.*installed: 9\.0\.0"):
        elsewhere.load(gid)
    with database.read() as session:
        report = verify(session, gid, ONLY_LATER)
    assert [p.message for p in report.problems] == [
        "The rules of lancaster version 1.0.0 are not installed here (installed: 9.0.0); "
        "this game needs exactly the version it was created with."
    ]
    offline = verify_bundle(bundle, ONLY_LATER)
    assert any("1.0.0 are not installed" in p.message for p in offline.problems)
