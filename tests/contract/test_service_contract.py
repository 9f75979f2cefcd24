"""The service contract: every game of the registry, at every player count and config, is
played to the end through each door of the service, and the stored game verifies.

The service-level twin of ``engine/core/contract.py``. A game added to ``engine.REGISTRY`` is
covered here with no test written for it (``players.cases``). Each game is a seeded random
game (``players.Chooser``) with a pinned game seed, so each door must also reach the very
state the engine alone reaches with the same choices.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from pbem.app.service import GameService
from tests.contract.conftest import check_replay
from tests.contract.players import (
    REGISTRY,
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
OTHERS = [case for case in CASES if case not in COVERING]
OTHER_IDS = [case_id(name, config) for name, config in OTHERS]
#: The seeds of a plain run (one game per case and door) and of ``-m slow``.
SEEDS = (1,)
SLOW_SEEDS = (2, 3, 4, 5)


def test_the_api_and_mail_doors_cover_every_count_and_option_set_each_run() -> None:
    for name in REGISTRY:
        every = [config for n, config in CASES if n == name]
        covered = [config for n, config in COVERING if n == name]
        assert {c["players"] for c in covered} == {c["players"] for c in every}, name

        def option_set(c: Mapping[str, Any]) -> tuple[Any, ...]:
            return (c.get("variants"), c.get("expansions"), c.get("new_laws"))

        for options in [option_set(c) for c in every]:
            assert options in [option_set(c) for c in covered]


def test_every_player_count_of_every_game_is_a_case() -> None:
    for name, rules in REGISTRY.items():
        counts = {config["players"] for n, config in CASES if n == name}
        assert counts == set(rules.player_counts), name
        configs = [config for n, config in CASES if n == name]
        for config in rules.contract_configs():
            assert rules.validate_config(config) in configs


def _finished(
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


def _by_service(
    service: GameService,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    config: Any,
    seed: int,
    tmp_path: Path,
) -> Played:
    with pinned_seed(monkeypatch, game_seed(seed)):
        played = play_by_service(service, name, config, seed)
    _finished(service, played, name, config, seed, tmp_path)
    return played


def _by_api(
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
    _finished(service, played, name, config, seed, tmp_path)
    return played


def _by_email(
    door: MailDoor,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    config: Any,
    seed: int,
    tmp_path: Path,
) -> Played:
    with pinned_seed(monkeypatch, game_seed(seed)):
        played = play_by_email(door, name, config, seed)
    _finished(door.service, played, name, config, seed, tmp_path)
    if played.most_at_once > 1:
        # Seats that owed a move together each answered their own mail, made before the
        # others' replies came in.
        assert played.stale_replies > 0
    return played


@pytest.mark.parametrize(("name", "config"), CASES, ids=IDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_random_games_finish_through_the_service(
    service: GameService,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    name: str,
    config: dict[str, Any],
    seed: int,
) -> None:
    _by_service(service, monkeypatch, name, config, seed, tmp_path)


@pytest.mark.parametrize(("name", "config"), COVERING, ids=COVERING_IDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_random_games_finish_through_the_json_api(
    service: GameService,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    name: str,
    config: dict[str, Any],
    seed: int,
) -> None:
    _by_api(service, monkeypatch, name, config, seed, tmp_path)


@pytest.mark.parametrize(("name", "config"), COVERING, ids=COVERING_IDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_random_games_finish_by_email_replies(
    mail_door: MailDoor,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    name: str,
    config: dict[str, Any],
    seed: int,
) -> None:
    _by_email(mail_door, monkeypatch, name, config, seed, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "config"), CASES, ids=IDS)
@pytest.mark.parametrize("seed", SLOW_SEEDS)
def test_more_random_games_finish_through_every_door(
    service: GameService,
    mail_door: MailDoor,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    name: str,
    config: dict[str, Any],
    seed: int,
) -> None:
    _by_service(service, monkeypatch, name, config, seed, tmp_path)
    _by_api(service, monkeypatch, name, config, seed, tmp_path)
    _by_email(mail_door, monkeypatch, name, config, seed, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "config"), OTHERS, ids=OTHER_IDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_the_other_cases_finish_through_the_api_and_by_email(
    service: GameService,
    mail_door: MailDoor,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    name: str,
    config: dict[str, Any],
    seed: int,
) -> None:
    _by_api(service, monkeypatch, name, config, seed, tmp_path)
    _by_email(mail_door, monkeypatch, name, config, seed, tmp_path)
