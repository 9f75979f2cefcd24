"""The engine contract's cases, shared by ``test_contract.py`` and ``test_contract_lancaster.py``.

Lancaster (three releases, some twenty configs each) is its own test file so that pytest-xdist,
which keeps a file on one worker (``--dist loadfile``), can run it beside the other games.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engine import REGISTRY
from engine.core import contract


def cases(game: Callable[[str], bool]) -> list[Any]:
    """(name, version, config) of every release of the games ``game`` selects, every config.

    Every release, not only the latest: games created under an older one still play on."""
    return [
        pytest.param(
            rules.name, rules.version, config, id=f"{rules.name}-{rules.version}-{i}-{config}"
        )
        for rules in REGISTRY.releases()
        if game(rules.name)
        for i, config in enumerate(rules.contract_configs())
    ]


def check(name: str, version: str, config: dict[str, Any], game: int) -> None:
    """The whole contract on the ``game``-th seeded game of a config (0 on every run; the
    further seeds with ``-m slow``)."""
    rules = REGISTRY.release(name, version)
    steps = contract.check_config(rules, config, contract.CONTRACT_SEEDS[0] + game, games=1)
    assert steps > 0
