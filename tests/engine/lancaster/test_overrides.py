"""Config overrides of the component data (issue 4: "a game's config may override any
value"): validated, recorded in the config, and used by every rule that reads the value."""

from __future__ import annotations

import pytest

from engine.core.protocol import ConfigError
from tests.engine.lancaster.helpers import BLUE, RED, YELLOW, Game, R


def config(**data: object) -> dict[str, object]:
    return {"players": 3, "data": data}


def test_a_law_price_of_0_gold_is_refused_instead_of_breaking_the_law_phase() -> None:
    # "Buy 1 voting marker for N gold each": with N = 0 the number a player may buy has no
    # limit (and dividing by the price failed when the law applied).
    for law in ("buy_voting_markers", "buy_power_points"):
        with pytest.raises(ConfigError, match=f"laws.{law}.params.gold.*from 1 to 20"):
            R.validate_config(config(laws={law: {"params": {"gold": 0}}}))


def test_a_law_price_override_is_what_the_law_charges() -> None:
    g = Game(
        3,
        start=BLUE,
        cards=(1, 4),
        laws=("buy_power_points", "strength_1_power", "extensions_power"),
        config={"data": {"laws": {"buy_power_points": {"params": {"gold": 2}}}}},
    )
    g.setup(1, 1, 1)
    g.place_rest_in_castles()
    g.stop_after("law", 2)
    g.reject_all_new_laws()
    assert g.head == ("law_choice", "buy_power_points", BLUE)
    assert g.legal(BLUE) == ["buy 0 power points", "buy 1 power point"]  # 2 gold, 2 each
    g.moves((BLUE, "1"), (YELLOW, "none"), (RED, "none"))
    assert (g.c(BLUE).gold, g.c(BLUE).power) == (0, 1)
