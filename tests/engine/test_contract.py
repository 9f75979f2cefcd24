"""The engine contract over every game in the registry, every player count and variant
(Lancaster's cases are in ``test_contract_lancaster.py``).

A plain run checks every position of one seeded game per config; ``-m slow`` a second one,
as the contract checked every config before (the positions and moves differ, the checks are
the same).
"""

from __future__ import annotations

from typing import Any

import pytest

from engine import REGISTRY
from tests.engine.contract_cases import cases, check

CASES = cases(lambda name: name != "lancaster")


@pytest.mark.parametrize(("name", "version", "config"), CASES)
def test_contract(name: str, version: str, config: dict[str, Any]) -> None:
    check(name, version, config, game=0)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "version", "config"), CASES)
def test_contract_on_a_second_game(name: str, version: str, config: dict[str, Any]) -> None:
    check(name, version, config, game=1)


def test_every_game_is_registered() -> None:
    assert {"lancelot", "lancaster"} <= set(REGISTRY), sorted(REGISTRY)
