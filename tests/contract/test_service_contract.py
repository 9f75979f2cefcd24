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
from tests.contract.doors import (
    CASES,
    COVERING,
    COVERING_IDS,
    IDS,
    MAIL_LANCASTER,
    MAIL_OTHERS,
    OTHER_IDS,
    OTHERS,
    SEEDS,
    SLOW_SEEDS,
    by_api,
    by_email,
    by_service,
)
from tests.contract.players import REGISTRY, MailDoor


def test_the_api_and_mail_doors_cover_every_count_and_option_set_each_run() -> None:
    for name in REGISTRY:
        every = [config for n, config in CASES if n == name]
        covered = [config for n, config in COVERING if n == name]
        assert {c["players"] for c in covered} == {c["players"] for c in every}, name

        def option_set(c: Mapping[str, Any]) -> tuple[Any, ...]:
            return (c.get("variants"), c.get("expansions"), c.get("new_laws"))

        for options in [option_set(c) for c in every]:
            assert options in [option_set(c) for c in covered]
    # The mail door's two files play the covering cases between them, each once.
    assert sorted(MAIL_LANCASTER + MAIL_OTHERS, key=str) == sorted(COVERING, key=str)


def test_every_player_count_of_every_game_is_a_case() -> None:
    for name, rules in REGISTRY.items():
        counts = {config["players"] for n, config in CASES if n == name}
        assert counts == set(rules.player_counts), name
        configs = [config for n, config in CASES if n == name]
        for config in rules.contract_configs():
            assert rules.validate_config(config) in configs


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
    by_service(service, monkeypatch, name, config, seed, tmp_path)


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
    by_api(service, monkeypatch, name, config, seed, tmp_path)


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
    by_service(service, monkeypatch, name, config, seed, tmp_path)
    by_api(service, monkeypatch, name, config, seed, tmp_path)
    by_email(mail_door, monkeypatch, name, config, seed, tmp_path)


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
    by_api(service, monkeypatch, name, config, seed, tmp_path)
    by_email(mail_door, monkeypatch, name, config, seed, tmp_path)
