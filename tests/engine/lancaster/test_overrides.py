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


def test_a_law_text_shows_the_overridden_numbers() -> None:
    # Players vote on the printed text: it must say what the law will actually do.
    s = R.initial_state(config(laws={"counties_power": {"params": {"power": 4, "per": 3}}}), seed=1)
    law = s.data.law("counties_power")
    assert law.text == (
        "All players gain 4 power points for every 3 counties occupied by their own knights."
    )
    one = R.initial_state(config(laws={"squires_for_strength_2": {"params": {"squires": 2}}}), 1)
    assert one.data.law("squires_for_strength_2").text.startswith("Players recruit 2 squires for")


def test_the_printed_law_texts_are_unchanged_without_overrides() -> None:
    s = R.initial_state({"players": 3}, 1)
    texts = {law.key: law.text for law in s.data.laws}
    assert texts["buy_voting_markers"] == (
        "Players may buy 1 voting marker for 1 gold each, any number (in player order)."
    )
    assert texts["squires_for_strength_2"] == (
        "Players recruit 1 squire for each of their deployed strength-2 knights."
    )
    assert texts["extensions_power"] == (
        "Players gain 5 power points for every 3 extension tiles in their castle."
    )
    assert all("{" not in t and "}" not in t for t in texts.values())
