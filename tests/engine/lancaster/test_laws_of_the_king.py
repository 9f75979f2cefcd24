"""Henry V, Laws of the King (rules text 001; decision 16): the 8 laws replacing the base
game's groups 2 and 3, with At the King's Court and The King's Resentment."""

from __future__ import annotations

import pytest

from engine.core.protocol import ConfigError
from tests.engine.lancaster.helpers import BLUE, RED, YELLOW, Game, R
from tests.engine.lancaster.test_court import place_all

ALL = {"expansions": {"kings_court": True, "resentment": True, "laws_of_the_king": True}}
KING_LAWS = {
    "dispose_most_squires_gold",
    "no_bishops_return_dishonor",
    "fewest_dishonor_power",
    "seals_for_squires_gold",
    "most_markers_seal",
    "most_squires_gold_power",
    "dishonor_for_counties",
    "tower_knights_power",
}
QUIET = ("strength_1_power", "noblemen_knights")  # give nothing in these positions


def law_game(law: str, *moves: tuple[int, str], stop: str = "law") -> Game:
    """3 players, ``law`` first among the current laws; the game stops right after the laws
    (or after the late return of voting markers)."""
    g = Game(3, cards=(1, 4), laws=(law, *QUIET), config=ALL)
    g.setup(1, 1, 1)
    g.moves(*moves)
    place_all(g)
    if stop == "law":
        g.stop_after("law", 2)
    else:
        g.stop_after(stop)
    return g


def test_the_laws_of_the_king_replace_the_base_laws_of_groups_2_and_3() -> None:
    s = R.initial_state({"players": 4, **ALL}, 1)
    pile = set(s.law_pile) | set(s.new_laws)
    assert pile >= KING_LAWS
    groups = {law.key: law.group for law in s.data.laws}
    assert not any(groups[k] in (2, 3) for k in pile - KING_LAWS)
    base = R.initial_state({"players": 4}, 1)
    assert not KING_LAWS & (set(base.law_pile) | set(base.new_laws) | set(base.laws))
    with pytest.raises(ConfigError, match="only with both"):
        R.validate_config({"players": 4, "expansions": {"laws_of_the_king": True}})


def test_the_most_squires_and_the_most_gold_dispose_of_2_squires_and_3_gold() -> None:
    g = law_game("dispose_most_squires_gold")
    g.edit_colour(RED, squires=5, gold=1)
    g.edit_colour(BLUE, squires=5, gold=4)
    g.edit_colour(YELLOW, squires=1, gold=4)
    g.reject_all_new_laws()
    assert (g.c(RED).squires, g.c(BLUE).squires, g.c(YELLOW).squires) == (3, 3, 1)
    assert (g.c(RED).gold, g.c(BLUE).gold, g.c(YELLOW).gold) == (1, 1, 1)  # ties: all


def test_players_without_bishops_return_a_dishonor_marker() -> None:
    g = law_game("no_bishops_return_dishonor")
    g.edit_colour(RED, dishonor=2)
    g.edit_colour(BLUE, dishonor=2, bishops=1)
    box = g.state.dishonor_box
    g.reject_all_new_laws()
    assert (g.c(RED).dishonor, g.c(BLUE).dishonor) == (1, 2)
    assert g.state.dishonor_box == box + 1


def test_the_fewest_dishonor_markers_gain_5_power_points() -> None:
    g = law_game("fewest_dishonor_power")
    g.edit_colour(RED, dishonor=1)
    g.reject_all_new_laws()
    assert (g.c(RED).power, g.c(BLUE).power, g.c(YELLOW).power) == (0, 5, 5)


def test_each_player_decides_how_many_seals_to_dispose_of_for_2_squires_and_1_gold() -> None:
    g = law_game("seals_for_squires_gold")
    g.edit_colour(RED, seals=3, squires=0, gold=0)
    g.edit(seal_supply=21)
    g.reject_all_new_laws()
    assert g.head == ("law_choice", "seals_for_squires_gold", RED)  # from the start player
    assert g.legal(RED) == [
        "dispose 0 seals",
        "dispose 1 seal",
        "dispose 2 seals",
        "dispose 3 seals",
    ]
    g.play(RED, "dispose 2 seals")
    assert (g.c(RED).seals, g.c(RED).squires, g.c(RED).gold) == (1, 4, 2)
    assert g.state.seal_supply == 23
    assert g.head == ("law_choice", "seals_for_squires_gold", BLUE)  # asked, seals hidden
    assert g.legal(BLUE) == ["dispose 0 seals"]
    g.play(BLUE, "none")


def test_the_most_voting_markers_after_the_third_voting_receive_a_seal_and_keep_law_markers() -> (
    None
):
    # decision 16: markers are counted before they go back, and go back only after the laws;
    # those gained from laws this round are kept.
    g = Game(3, cards=(1, 4), laws=("most_markers_seal", "conflicts_markers", QUIET[0]), config=ALL)
    g.setup(1, 1, 1)
    g.moves((RED, "knight 1 to conflict 1"), (RED, "favor gold"))
    place_all(g)
    g.stop_after("return_markers_late")
    g.edit_colour(BLUE, voting_markers=4)
    g.reject_all_new_laws()
    assert g.said('Law "A seal for the most voting markers": Blue has the most voting markers (4)')
    assert g.c(BLUE).seals == 1 and g.c(RED).seals == 0
    assert g.c(RED).voting_markers == 1  # the marker from "Voting markers for conflicts"
    assert g.c(BLUE).voting_markers == 0 and g.c(YELLOW).voting_markers == 0


def test_the_most_squires_and_the_most_gold_gain_3_power_points_each() -> None:
    g = law_game("most_squires_gold_power")
    g.edit_colour(RED, squires=5, gold=5)
    g.edit_colour(BLUE, squires=5, gold=1)
    g.reject_all_new_laws()
    assert (g.c(RED).power, g.c(BLUE).power, g.c(YELLOW).power) == (6, 3, 0)


def test_one_dishonor_marker_for_every_2_counties_with_your_knights() -> None:
    g = law_game(
        "dishonor_for_counties",
        (RED, "knight 1 to A"),
        (BLUE, "knight 1 to C"),
        (YELLOW, "knight 1 to I"),
        (RED, "knight 2 to B"),
    )
    g.reject_all_new_laws()
    assert [g.c(s).dishonor for s in (RED, BLUE, YELLOW)] == [1, 0, 0]


def test_3_power_points_for_each_of_your_knights_in_the_tower() -> None:
    g = law_game("tower_knights_power", (RED, "knight 1 to tower"), (BLUE, "knight 1 to A"))
    g.reject_all_new_laws()
    assert (g.c(RED).power, g.c(BLUE).power) == (3, 0)


def test_disposing_of_seals_is_read_and_never_guessed() -> None:
    g = law_game("seals_for_squires_gold")
    g.edit_colour(RED, seals=3)
    g.reject_all_new_laws()
    for text, n in [("dispose 2 seals", 2), ("dispose of two regal seals", 2), ("1", 1)]:
        assert R.parse_action(g.state, RED, text) == ("seals", n)
    assert R.parse_action(g.state, RED, "none") == ("seals", 0)
    for text in ("dispose seals", "some seals please", "2 and 1"):
        with pytest.raises(Exception, match="Could not read"):
            R.parse_action(g.state, RED, text)


def test_provisional_values_list_every_unsourced_expansion_value_only_with_its_module() -> None:
    every = dict(R.provisional_values({"players": 4, **ALL}))
    assert "resentment.penalties" in every
    assert {f"laws.{k}.group" for k in KING_LAWS} <= set(every)
    assert every["counties.I.reward"] == "nothing"  # decision 6: Surrey's reward is unknown
    base = dict(R.provisional_values({"players": 4}))
    assert not any(
        p.startswith("resentment") or p.split(".")[1] in KING_LAWS for p in base if "." in p
    )
    # At the King's Court's values are all from the seed text: none is provisional.
    assert not any(p.startswith("kings_court") for p in every)
