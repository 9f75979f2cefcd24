"""The engine contract over every game in the registry, every player count and variant."""

from __future__ import annotations

from typing import Any

import pytest

from engine import REGISTRY
from engine.core import contract

CASES = [
    pytest.param(name, config, id=f"{name}-{i}-{config}")
    for name, rules in sorted(REGISTRY.items())
    for i, config in enumerate(rules.contract_configs())
]


@pytest.mark.parametrize(("name", "config"), CASES)
def test_contract(name: str, config: dict[str, Any]) -> None:
    rules = REGISTRY[name]
    steps = contract.check_config(rules, config, contract.CONTRACT_SEEDS[0], games=2)
    assert steps > 0


def test_every_game_is_registered() -> None:
    assert {"lancelot", "lancaster"} <= set(REGISTRY), sorted(REGISTRY)
