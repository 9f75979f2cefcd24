"""The three doors of the service contract, each playing one seeded random game to its end
and checking the stored game (shared by ``test_service_contract.py`` and the mail door's
files, ``test_*_by_email_replies.py``), and the cases each door plays on a plain run."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from pbem.app.service import GameService
from tests.contract.conftest import check_replay
from tests.contract.players import (
    MailDoor,
    Played,
    case_id,
    cases,
    covering_cases,
    engine_final_state_hash,
    game_seed,
    pinned_seed,
    play_by_api,
    play_by_email,
    play_by_service,
)
from web import create_app

CASES = cases()
IDS = [case_id(name, config) for name, config in CASES]
#: The API and mail doors play every count and every variant/expansion set once per run
#: (``covering_cases``); the other cases through those doors run with ``-m slow``.
COVERING = covering_cases(CASES)
COVERING_IDS = [case_id(name, config) for name, config in COVERING]
#: The mail door's covering cases, in two files so that pytest-xdist (which keeps a file on
#: one worker) can play them on both workers: Lancaster's, and every other game's.
MAIL_LANCASTER = [case for case in COVERING if case[0] == "lancaster"]
MAIL_OTHERS = [case for case in COVERING if case[0] != "lancaster"]
OTHERS = [case for case in CASES if case not in COVERING]
OTHER_IDS = [case_id(name, config) for name, config in OTHERS]
#: The seeds of a plain run (one game per case and door) and of ``-m slow``.
SEEDS = (1,)
SLOW_SEEDS = (2, 3, 4, 5)


def ids(some: list[tuple[str, dict[str, Any]]]) -> list[str]:
    return [case_id(name, config) for name, config in some]


def finished(
    service: GameService,
    played: Played,
    name: str,
    config: Mapping[str, Any],
    seed: int,
    tmp_path: Path,
) -> None:
    loaded = service.load(played.game_id)
    assert loaded.finished and not loaded.to_act
    assert loaded.outcome is not None and loaded.outcome["winners"]
    final = check_replay(service, played.game_id, tmp_path)
    assert final == engine_final_state_hash(name, config, game_seed(seed), seed), (
        "the door changed the game: its final state is not the engine's for the same choices"
    )


def by_service(
    service: GameService,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    config: Any,
    seed: int,
    tmp_path: Path,
) -> Played:
    with pinned_seed(monkeypatch, game_seed(seed)):
        played = play_by_service(service, name, config, seed)
    finished(service, played, name, config, seed, tmp_path)
    return played


def by_api(
    service: GameService,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    config: Any,
    seed: int,
    tmp_path: Path,
) -> Played:
    client = create_app(service.settings, service).test_client()
    with pinned_seed(monkeypatch, game_seed(seed)):
        played = play_by_api(client, name, config, seed)
    finished(service, played, name, config, seed, tmp_path)
    return played


def by_email(
    door: MailDoor,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    config: Any,
    seed: int,
    tmp_path: Path,
) -> Played:
    with pinned_seed(monkeypatch, game_seed(seed)):
        played = play_by_email(door, name, config, seed)
    finished(door.service, played, name, config, seed, tmp_path)
    if played.most_at_once > 1:
        # Seats that owed a move together each answered their own mail, made before the
        # others' replies came in.
        assert played.stale_replies > 0
    return played
