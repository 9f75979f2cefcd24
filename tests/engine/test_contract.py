"""The engine contract over every game in the registry, every player count and variant."""

from __future__ import annotations

from typing import Any

import pytest

from engine import REGISTRY
from engine.core import contract

# Every release, not only the latest: games created under an older one still play on.
CASES = [
    pytest.param(rules.name, rules.version, config, id=f"{rules.name}-{rules.version}-{i}-{config}")
    for rules in REGISTRY.releases()
    for i, config in enumerate(rules.contract_configs())
]


@pytest.mark.parametrize(("name", "version", "config"), CASES)
def test_contract(name: str, version: str, config: dict[str, Any]) -> None:
    rules = REGISTRY.release(name, version)
    steps = contract.check_config(rules, config, contract.CONTRACT_SEEDS[0], games=2)
    assert steps > 0


def test_every_game_is_registered() -> None:
    assert {"lancelot", "lancaster"} <= set(REGISTRY), sorted(REGISTRY)
