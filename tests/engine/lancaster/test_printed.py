"""Rules 2.0.0, Lancaster as printed: the rulebook's counties, rewards, laws and conflict
cards (shared ``rules/lancaster-data.md``), played through the engine contract. Games created
under 1.0.0 keep their data (the other test files pin it, and the golden transcripts)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.protocol import ConfigError
from engine.lancaster import LANCASTER, LANCASTER_1_0, LANCASTER_2_0
from engine.lancaster.data import COUNTY_LETTERS
from engine.lancaster.provenance import provenance
from tests.engine.lancaster.helpers import BLUE, RED, YELLOW, Game

NEUTRAL = ("strength_1_power", "noblemen_knights", "extensions_power")


def printed(players: int = 3, **kw: object) -> Game:
    return Game(players, rules=LANCASTER_2_0, **kw)  # type: ignore[arg-type]


def to_counties(*moves: tuple[int, str], before: object = None) -> Game:
    """3 players under 2.0.0: the given placements, the rest in castles, new laws rejected;
    the game stops after the county rewards."""
    g = printed(cards=(5, 6), laws=NEUTRAL)
    g.setup(1, 1, 1)
    if callable(before):
        before(g)
        g.rerun()
    g.stop_after("county", 8)
    g.moves(*moves)
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    return g


def test_new_games_get_the_printed_rules() -> None:
    # 2.1.0 is the printed game with The New Laws besides: its other values are 2.0.0's
    assert LANCASTER.version == "2.1.0" and LANCASTER_2_0.version == "2.0.0"
    assert LANCASTER_1_0.version == "1.0.0"
    assert replace(LANCASTER.base, laws=(), release="") == replace(
        LANCASTER_2_0.base, laws=(), release=""
    )
    assert LANCASTER.base.laws[: len(LANCASTER_2_0.base.laws)] == LANCASTER_2_0.base.laws


def test_the_counties_have_their_printed_names_minimums_and_rewards() -> None:
    view = printed().view(None)
    assert [(c["letter"], c["name"], c["minimum"], c["reward"]) for c in view["counties"]] == [
        ("A", "Northumberland", 1, "a castle extension"),
        ("B", "Stafford", 1, "upgrade a knight"),
        ("C", "York", 1, "1 new knight (strength 1) + 2 voting markers"),
        ("D", "Gloucester", 3, "upgrade a knight + 2 voting markers"),
        ("E", "Bedford", 2, "a castle extension"),
        ("F", "Suffolk", 3, "1 new knight (strength 1)"),
        ("G", "Somerset", 4, "4 power points"),
        ("H", "Dorset", 2, "move this knight to a conflict (no king's favor)"),
        ("I", "Surrey", 1, "2 gold + 2 squires"),
    ]
    assert [c["names_start_player"] for c in view["counties"]] == [False] * 8 + [True]


def test_the_board_text_names_the_printed_counties() -> None:
    g = printed()
    text = g.rules.render_text(g.view(RED))
    for name in ("Northumberland", "Stafford", "York", "Bedford", "Suffolk", "Somerset"):
        assert name in text
    assert "County A" not in text


def test_a_1_0_0_game_keeps_its_counties() -> None:
    view = Game(3).view(None)
    assert [c["name"] for c in view["counties"]][:3] == ["County A", "County B", "County C"]


def test_york_gives_two_voting_markers_even_without_a_knight_left() -> None:
    def no_strength_1_left(g: Game) -> None:
        g.edit_colour(BLUE, reserve=(2, 3, 4))

    g = to_counties((RED, "knight 1 to A"), (BLUE, "knight 1 to C"), before=no_strength_1_left)
    markers = g.c(BLUE).voting_markers
    g.play(RED, "reward extension 3")
    g.play(BLUE, "reward")
    assert g.c(BLUE).voting_markers == markers + 2
    assert g.said("Blue has no strength-1 knight in the reserve; the new knight is lost.")
    assert g.c(BLUE).reserve == (2, 3, 4)


def test_york_gives_a_new_knight_and_two_voting_markers() -> None:
    g = to_counties((RED, "knight 1 to C"))
    markers, court = g.c(RED).voting_markers, g.c(RED).court
    g.play(RED, "reward")
    assert g.c(RED).voting_markers == markers + 2
    assert sorted(g.c(RED).court) == sorted((*court, 1, 1))  # the new one and York's own


def test_gloucester_gives_two_voting_markers_even_without_a_knight_to_upgrade() -> None:
    def nothing_to_upgrade(g: Game) -> None:
        g.edit_colour(RED, court=(3, 1, 2), reserve=(1, 1))  # no 2, 3 or 4 left to swap in

    g = to_counties((RED, "knight 3 to D"), before=nothing_to_upgrade)
    markers = g.c(RED).voting_markers
    g.play(RED, "reward")
    assert g.c(RED).voting_markers == markers + 2
    assert g.said("Red has no knight to upgrade (Gloucester); the upgrade is lost.")


def test_northumberland_and_bedford_place_an_extension_tile() -> None:
    g = to_counties((RED, "knight 1 to A"), (BLUE, "knight 2 to E"))
    g.play(RED, "reward extension 3")
    g.play(BLUE, "reward extension 4")
    assert 3 in g.c(RED).extensions and 4 in g.c(BLUE).extensions


def test_suffolk_gives_a_new_knight_and_no_squire() -> None:
    def strong(g: Game) -> None:
        g.edit_colour(RED, court=(3, 1, 2), reserve=(1, 1, 4))

    g = to_counties((RED, "knight 3 to F"), before=strong)
    squires = g.c(RED).squires
    g.play(RED, "reward")
    assert g.c(RED).squires == squires and g.c(RED).reserve.count(1) == 1


def test_somerset_gives_power_points() -> None:
    def strongest(g: Game) -> None:
        g.edit_colour(RED, court=(4, 1, 2), reserve=(1, 1, 3))

    g = to_counties((RED, "knight 4 to G"), before=strongest)
    power = g.c(RED).power
    g.play(RED, "reward")
    assert g.c(RED).power == power + 4


def test_stafford_takes_a_strength_1_knight() -> None:
    # the rulebook's example: "Blue places a knight with strength 2 at Stafford", then a
    # strength-1 knight with 2 squires expels it (1.0.0 asked for 2)
    g = to_counties((RED, "knight 1 to B"))
    occupant = g.county("B")
    assert occupant is not None and occupant.strength == 1
    assert LANCASTER_1_0.base.county("B").minimum == 2


def test_surrey_gives_two_gold_and_two_squires() -> None:
    g = to_counties((RED, "knight 1 to I"))
    gold, squires = g.c(RED).gold, g.c(RED).squires
    g.play(RED, "reward start player Red")
    assert (g.c(RED).gold, g.c(RED).squires) == (gold + 2, squires + 2)


# -- laws ---------------------------------------------------------------------------------------

GROUPS = {
    0: {"most_gold_upgrades", "most_squires_new_knight", "counties_power"},
    1: {
        "buy_voting_markers",
        "squire_and_gold_for_power",
        "conflicts_extensions",
        "squires_for_strength_2",
    },
    2: {"conflicts_resources", "no_strength_2_upgrades", "swap_3_for_4", "extensions_power"},
    3: {"conflicts_power", "counties_power_8", "strength_1_power", "noblemen_knights"},
    4: {"buy_power_points", "squires_for_power", "all_strengths_power"},
}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_laws_start_and_come_up_in_their_rulebook_groups(seed: int) -> None:
    state = LANCASTER.initial_state({"players": 3}, seed)
    assert set(state.laws) == GROUPS[0]
    pile = (*state.new_laws, *state.law_pile)
    expected = [g for g in (1, 2, 3, 4) for _ in GROUPS[g]]
    assert [next(g for g, keys in GROUPS.items() if k in keys) for k in pile] == expected
    assert set(pile) == set().union(*(GROUPS[g] for g in (1, 2, 3, 4)))


def test_the_stand_in_laws_are_gone() -> None:
    keys = {law.key for law in LANCASTER_2_0.base.laws if law.module is None}
    assert "conflicts_markers" not in keys and "most_gold_squire_marker" not in keys
    assert len(keys) == 18


def _law_game(law: str, **colour: object) -> Game:
    """3 players, ``law`` in force, placements done: the game stops at the law's choice."""
    g = printed(cards=(5, 6), laws=(law, "strength_1_power", "noblemen_knights"))
    g.setup(1, 1, 1)
    if colour:
        g.edit_colour(RED, **colour)
        g.rerun()
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    return g


def test_squires_buy_power_points_one_for_one_under_the_group_4_law() -> None:
    g = _law_game("squires_for_power", squires=3, gold=0)
    assert g.head == ("law_choice", "squires_for_power", RED)
    assert g.legal(RED) == [f"buy {n} power point{'s' if n != 1 else ''}" for n in range(4)]
    power = g.c(RED).power
    g.play(RED, "buy 2 power points")
    assert (g.c(RED).squires, g.c(RED).gold, g.c(RED).power) == (1, 0, power + 2)
    assert g.said('Law "Power for squires": Red buys 2 power points for 2 squires.')


def test_knights_of_all_four_strengths_deployed_gain_six_power_points() -> None:
    g = printed(cards=(5, 6), laws=("all_strengths_power", "strength_1_power", "noblemen_knights"))
    g.setup(1, 1, 1)
    g.edit_colour(RED, court=(1, 2, 3, 4), reserve=(1, 1, 2))
    g.rerun()
    g.moves((RED, "knight 4 to G"), (BLUE, "knight 1 to A"), (YELLOW, "knight 1 to C"))
    g.moves((RED, "knight 3 to D"), (BLUE, "knight 2 to E"), (YELLOW, "knight 2 to H"))
    g.moves((RED, "knight 2 to castle 2"), (RED, "knight 1 to castle 3"))
    power = {s: g.c(s).power for s in (RED, BLUE, YELLOW)}
    g.reject_all_new_laws()
    assert g.c(RED).power == power[RED] + 6
    assert (g.c(BLUE).power, g.c(YELLOW).power) == (power[BLUE], power[YELLOW])


# -- conflict cards -----------------------------------------------------------------------------

REMOVED = {2: (2, 10), 3: (9, 10), 4: (2, 10), 5: (2, 3)}
PRINTED_DECK = Counter({2: 1, 3: 2, 4: 1, 5: 2, 6: 2, 7: 1, 8: 1, 9: 1, 10: 1})


@settings(max_examples=60, deadline=None)
@given(players=st.sampled_from((2, 3, 4, 5)), seed=st.integers(0, 2**63))
def test_the_deck_after_removal_matches_the_removal_table(players: int, seed: int) -> None:
    state = LANCASTER.initial_state({"players": players}, seed)
    data = state.data
    deck = [c.card for c in state.upper if c] + list(state.conflict_pile)
    strengths = Counter(data.card(n).france for n in deck)
    assert strengths == PRINTED_DECK - Counter(REMOVED[players])
    assert sorted(data.card(n).france for n in state.removed_cards) == sorted(REMOVED[players])
    assert set(deck).isdisjoint(state.removed_cards) and len(deck) == 10


def test_with_five_players_either_strength_3_card_may_be_removed_and_all_see_which() -> None:
    removed = {LANCASTER.initial_state({"players": 5}, seed).removed_cards for seed in range(20)}
    assert removed == {(1, 2), (1, 3)}  # card 1 is France 2; cards 2 and 3 are the two 3s
    state = LANCASTER.initial_state({"players": 5}, 1)
    for seat in (None, 0, 1, 2, 3, 4):
        shown = LANCASTER.view(state, seat)["conflicts"]["removed"]
        assert [c["card"] for c in shown] == list(state.removed_cards)
    text = LANCASTER.render_text(LANCASTER.view(state, None))
    assert "Removed at setup: card 1 (France 2), card " in text


def test_the_france_5_card_of_the_rulebooks_example_pays_4_2_and_1() -> None:
    assert [(c.france, c.points) for c in LANCASTER_2_0.base.conflicts if c.france == 5] == [
        (5, (4, 2, 1)),
        (5, (5, 3, 1)),
    ]


def test_a_removal_override_names_strengths_that_are_printed() -> None:
    config = {"players": 5, "data": {"removed_conflicts": {"5": [3, 3]}}}
    state = LANCASTER.initial_state(config, 1)
    assert state.removed_cards == (2, 3)
    with pytest.raises(ConfigError, match="strength 2 is removed twice"):
        LANCASTER.validate_config({"players": 5, "data": {"removed_conflicts": {"5": [2, 2]}}})
    with pytest.raises(ConfigError, match="no conflict card of strength 11"):
        LANCASTER.validate_config({"players": 5, "data": {"removed_conflicts": {"5": [11]}}})


# -- provenance ---------------------------------------------------------------------------------


def _counts(data: object) -> dict[str, int]:
    return dict(Counter(provenance(data).values()))  # type: ignore[arg-type]


def test_the_provenance_counts_of_each_release() -> None:
    # 1.0.0 as it was released (the game page said "62 numbers are not from a published
    # source"), and the printed data of 2.0.0.
    assert _counts(LANCASTER_1_0.base) == {"seed": 21, "public": 23, "provisional": 53}
    assert _counts(LANCASTER_2_0.base) == {
        "rulebook": 79,
        "seed": 4,
        "example": 5,
        "public": 2,
        "provisional": 30,
    }
    every = frozenset({"kings_court", "resentment", "laws_of_the_king"})
    assert Counter(provenance(LANCASTER_1_0.base, every).values())["provisional"] == 62
    assert Counter(provenance(LANCASTER_2_0.base, every).values())["provisional"] == 32


def test_every_value_of_the_printed_data_has_a_provenance() -> None:
    paths = set(provenance(LANCASTER_2_0.base))
    for letter in COUNTY_LETTERS:
        assert {f"counties.{letter}.{k}" for k in ("name", "minimum", "reward")} <= paths
    for card in LANCASTER_2_0.base.conflicts:
        assert {f"conflicts.{card.number}.france", f"conflicts.{card.number}.points"} <= paths
    for law in LANCASTER_2_0.base.laws:
        if law.module is None:
            assert f"laws.{law.key}.group" in paths


def test_an_overridden_card_is_no_longer_provisional() -> None:
    listed = dict(LANCASTER.provisional_values({"players": 3}))
    assert "conflicts.12.points" in listed and "conflicts.12.france" not in listed
    config = {"players": 3, "data": {"conflicts": {"12": {"points": [10, 6, 3]}}}}
    listed = dict(LANCASTER.provisional_values(config))
    assert not any(path.startswith("conflicts.12.") for path in listed)


def test_with_henry_v_only_the_dishonor_tracks_spaces_and_penalties_are_added_as_provisional() -> (
    None
):
    every = {"kings_court": True, "resentment": True, "laws_of_the_king": True}
    base = dict(LANCASTER.provisional_values({"players": 3}))
    listed = dict(LANCASTER.provisional_values({"players": 3, "expansions": every}))
    assert set(listed) - set(base) == {"resentment.spaces", "resentment.penalties"}
    assert not any(path.startswith(("kings_court.", "laws.")) for path in listed)
