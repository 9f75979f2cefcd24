"""The engine contract over every release of Lancaster, every player count, expansion set
and New Laws option (``contract_configs``): one seeded game per config on a plain run, a
second with ``-m slow``."""

from __future__ import annotations

from typing import Any

import pytest

from tests.engine.contract_cases import cases, check

CASES = cases(lambda name: name == "lancaster")


@pytest.mark.parametrize(("name", "version", "config"), CASES)
def test_contract(name: str, version: str, config: dict[str, Any]) -> None:
    check(name, version, config, game=0)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "version", "config"), CASES)
def test_contract_on_a_second_game(name: str, version: str, config: dict[str, Any]) -> None:
    check(name, version, config, game=1)
