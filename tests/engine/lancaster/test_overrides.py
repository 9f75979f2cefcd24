"""Config overrides of the component data (issue 4: "a game's config may override any
value"): validated, recorded in the config, and used by every rule that reads the value."""

from __future__ import annotations

import pytest

from engine.core.protocol import ConfigError, IllegalActionError
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
    with pytest.raises(IllegalActionError, match=r"You have only 2 gold \(2 gold each\)"):
        g.play(BLUE, "2")
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


# -- the values that were not overridable before (issue 4: "any value") --------------------


def test_the_knight_set_and_the_starting_courts_can_be_overridden() -> None:
    data = {"knights": [4, 1, 1, 2, 2, 3, 3], "start_court": [1, 1, 2]}
    norm = R.validate_config(config(**data))
    assert norm["data"]["knights"] == [1, 1, 2, 2, 3, 3, 4]  # recorded, sorted
    s = R.initial_state(norm, 5)
    assert s.colours[RED].court == (1, 1, 2) and s.colours[RED].reserve == (2, 3, 3, 4)
    two = R.initial_state({"players": 2, "data": {"ally_start_court": [1, 2]}}, 5)
    assert two.colours[2].court == (1, 2) and two.colours[2].reserve == (1, 1, 2, 3, 4)
    assert R.load_state(R.dump_state(s)) == s


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"start_court": [1, 4, 4]}, "start_court.*is not part of the knights"),
        ({"knights": [2, 2, 3]}, "start_court.*is not part of the knights"),
        ({"ally_start_court": [5]}, "ally_start_court.*is not part of the knights"),
        ({"start_court": []}, "at least 1 knight"),
        ({"knights": [1, 2, 10]}, "from 1 to 9"),
        ({"knights": "1112234"}, "a list of knight strengths"),
        ({"counties": {"G": {"minimum": 5}}}, "no knight is that strong"),
    ],
)
def test_knight_overrides_that_make_no_sense_are_refused(data: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        R.validate_config({"players": 2, "data": data})


def test_a_knight_set_with_a_strength_5_allows_a_county_minimum_of_5() -> None:
    norm = R.validate_config(
        config(knights=[1, 1, 1, 2, 2, 3, 4, 5], counties={"G": {"minimum": 5}})
    )
    assert R.initial_state(norm, 1).data.county("G").minimum == 5


def test_the_law_of_strength_1_knights_needs_at_least_one_such_knight() -> None:
    # With no strength-1 knights in the set, "all of them deployed" must not pay everyone.
    g = Game(
        3,
        cards=(1, 4),
        laws=("strength_1_power", "noblemen_knights", "extensions_power"),
        config={"data": {"knights": [2, 2, 2, 3, 3, 4, 4], "start_court": [2, 2]}},
    )
    g.setup(1, 1, 1)
    g.place_rest_in_castles()
    g.stop_after("law", 2)
    g.reject_all_new_laws()
    assert [g.c(s).power for s in range(3)] == [0, 0, 0]


def test_the_number_of_rounds_can_be_overridden_and_the_last_round_has_no_company() -> None:
    g = Game(3, config={"data": {"rounds": 2}})
    g.setup(1, 1, 1)
    g.auto_until()
    assert g.state.finished and g.state.round == 2
    assert g.said("Round 2 is over: the game ends with the final scoring.")
    round_2 = g.log[g.log.index(next(x for x in g.log if x.startswith("Round 2 begins"))) :]
    assert not any("company at table" in line for line in round_2)
    assert R.view(g.state, None)["rounds"] == 2
    with pytest.raises(ConfigError, match=r"rounds.*from 1 to 5"):
        R.validate_config(config(rounds=6))  # the law pile holds 3 new laws for 5 rounds


def test_the_conflict_cards_and_favor_tiles_removed_by_player_count_can_be_overridden() -> None:
    data = {"removed_conflicts": {"3": [1, 2], "2": [11, 12]}, "removed_favors": {"3": []}}
    s = R.initial_state(config(**data), 9)
    cards = {c.card for c in s.upper if c} | set(s.conflict_pile)
    assert cards == set(range(3, 13))
    assert s.favors == (1, 2, 3, 4, 5, 6)  # the upgrade tile stays with 3 players
    two = R.initial_state({"players": 2, "data": data}, 9)
    assert {c.card for c in two.upper if c} | set(two.conflict_pile) == set(range(1, 11))
    four = R.initial_state({"players": 4, "data": data}, 9)  # not overridden: 2 and 10
    assert {c.card for c in four.upper if c} | set(four.conflict_pile) == set(range(1, 13)) - {
        2,
        10,
    }
    five = R.initial_state({"players": 5, "data": {"removed_favors": {"5": [1, 6]}}}, 9)
    assert five.favors == (2, 3, 4, 5)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"removed_conflicts": {"3": [13]}}, "no conflict card 13"),
        ({"removed_conflicts": {"3": [4, 4]}}, "twice"),
        ({"removed_conflicts": {"3": list(range(1, 12))}}, "at least 2 conflict cards"),
        ({"removed_conflicts": {"6": [1]}}, "unknown key"),
        ({"removed_favors": {"3": [7]}}, "no king's favor tile 7"),
    ],
)
def test_removal_overrides_that_make_no_sense_are_refused(data: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        R.validate_config(config(**data))  # type: ignore[arg-type]


def test_the_cost_of_both_can_be_overridden() -> None:
    g = Game(3, cards=(1, 4), laws=NEUTRAL_LAWS, config={"data": {"both_cost": 2}})
    g.setup(1, 1, 1)
    g.stop_after("county", 8)
    g.play(RED, "knight 1 to A")
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    assert g.legal(RED) == ["both", "noble", "reward"]  # 2 gold is now enough
    g.play(RED, "both")
    assert g.c(RED).gold == 2 - 2 + 1 and g.c(RED).nobles == ("A",)
    assert g.said("Red pays 2 gold for both the nobleman and the reward of A.")


def test_company_at_table_can_be_overridden() -> None:
    g = Game(
        3,
        cards=(1, 4),
        laws=NEUTRAL_LAWS,
        config={"data": {"company": {"base": 0, "per_nobleman": 2}}},
    )
    g.setup(1, 1, 1)
    g.edit_colour(RED, nobles=("B", "C"))
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    g.auto_until("conflict")
    assert g.said("Red takes 4 voting markers for company at table.")
    assert not any(line.startswith("Blue takes") and "company" in line for line in g.log)


def test_the_final_majority_points_can_be_overridden() -> None:
    g = Game(3, config={"data": {"majority_points": {"first": 10, "second": 5}}})
    for seat, reserve in ((RED, ()), (BLUE, (1,)), (YELLOW, (1, 1))):
        g.edit_colour(seat, reserve=reserve, court=(), castle=(None,) * 6, extensions=(1,))
    g.edit_colour(RED, extensions=(1, 2, 3))
    g.edit(agenda=())
    outcome = R.outcome(g.state)
    assert outcome is not None
    assert [b["knighthood"] for b in outcome.breakdown] == [10, 5, 0]
    # Blue and Yellow tie for the second castle place (1 tile, 2 gold each): 5 // 2 each.
    assert [b["castle"] for b in outcome.breakdown] == [10, 2, 2]


def test_the_ransom_price_per_strength_point_can_be_overridden() -> None:
    from engine.lancaster.state import Conflict, Space

    g = Game(3, cards=(1, 4), laws=NEUTRAL_LAWS, config={"data": {"ransom_per_strength": 2}})
    g.setup(1, 1, 1)
    g.edit(lower=(Conflict(12, (Space(RED, (1, 2)),)), None))
    g.edit_colour(RED, court=(), reserve=(1, 1, 2, 3, 4), gold=4)
    g.rerun()
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    g.auto_until("ransom")
    assert g.legal(RED) == ["ransom none", "ransom 1", "ransom 2"]  # both would cost 6
    g.play(RED, "ransom 2")
    assert g.c(RED).gold == 0


def test_every_override_is_recorded_and_marked_as_config_in_the_provenance() -> None:
    from engine.lancaster.data import CONFIG
    from engine.lancaster.provenance import provenance

    data = {
        "knights": [1, 1, 1, 2, 2, 3, 4],
        "start_court": [1, 2],
        "ally_start_court": [2],
        "rounds": 4,
        "removed_conflicts": {"3": [9, 10]},
        "removed_favors": {"3": [2]},
        "both_cost": 4,
        "company": {"base": 1, "per_nobleman": 1},
        "majority_points": {"first": 8, "second": 4},
        "ransom_per_strength": 1,
    }
    norm = R.validate_config(config(**data))
    assert norm["data"] == data
    assert R.validate_config(norm) == norm
    marked = {p for p, v in provenance(R.initial_state(norm, 1).data).items() if v == CONFIG}
    assert marked == {
        "knights",
        "start_court",
        "ally_start_court",
        "rounds",
        "removed_conflicts.3",
        "removed_favors.3",
        "both_cost",
        "company",
        "majority_points",
        "ransom_per_strength",
    }


NEUTRAL_LAWS = ("strength_1_power", "noblemen_knights", "extensions_power")


@pytest.mark.parametrize(
    "data",
    [
        {"knights": [1, 1, 2, 2, 3, 3, 4, 5], "start_court": [1, 1, 2], "rounds": 3},
        {"knights": [2, 2, 3, 4], "start_court": [2], "ally_start_court": [3]},
        {"both_cost": 0, "ransom_per_strength": 0, "company": {"base": 3, "per_nobleman": 0}},
        {"removed_conflicts": {n: list(range(3, 13)) for n in ("2", "3", "4", "5")}},
        {"removed_favors": {n: [1, 2, 3, 4, 5, 6] for n in ("2", "3", "4", "5")}, "rounds": 1},
    ],
)
def test_random_games_under_overrides_keep_every_invariant(data: dict[str, object]) -> None:
    from engine.core import contract
    from tests.engine.lancaster.test_playouts import check_invariants

    for players in (2, 3, 5):
        for seed in range(4):
            state = contract.random_game(
                R,
                {"players": players, "data": data},
                seed,
                on_step=lambda _before, _seat, _action, after: check_invariants(after),
            )
            assert state.round == state.data.rounds and R.outcome(state) is not None
