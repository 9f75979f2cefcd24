"""The test game honours the engine contract, so what the service tests learn from it holds
for real games."""

from __future__ import annotations

import pytest

from engine.core import contract
from tests.service.hidden_game import HOARD


@pytest.mark.parametrize("config", HOARD.contract_configs(), ids=str)
def test_hoard_passes_the_engine_contract(config: dict) -> None:
    assert contract.check_config(HOARD, config, contract.CONTRACT_SEEDS[0], games=2) > 0


def test_hoard_hides_purses_and_stakes_from_other_seats() -> None:
    state = HOARD.initial_state({"players": 2}, 7)
    state = HOARD.apply(state, 0, ("draw",)).state
    gem = state.purses[0][0]
    state = HOARD.apply(state, 1, ("keep",)).state
    state = HOARD.apply(state, 0, ("stake", gem)).state
    assert gem in str(HOARD.view(state, 0))
    assert gem not in str(HOARD.view(state, 1)) and gem not in str(HOARD.view(state, None))
    reveal = HOARD.apply(state, 1, ("pass",))
    assert reveal.irreversible and gem in str(HOARD.view(reveal.state, 1))
