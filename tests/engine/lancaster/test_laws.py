"""The laws (lancaster-data.md, "Laws"): each applies after parliament, to players' own
colours only; "deployed" means on the board (county, castle space, conflict)."""

from __future__ import annotations

from collections.abc import Callable

from tests.engine.lancaster.helpers import BLUE, RED, YELLOW, Game

NEUTRAL = ("strength_1_power", "noblemen_knights", "extensions_power")


def law_game(
    law: str,
    *moves: tuple[int, str],
    before: Callable[[Game], None] | None = None,
    start: int = RED,
) -> Game:
    """3 players, ``law`` first among the current laws (the other two give nothing here),
    the new laws all rejected; the game stops right after the laws applied."""
    others = [k for k in NEUTRAL if k != law][:2]
    g = Game(3, start=start, cards=(1, 4), laws=(law, others[0], others[1]))
    g.setup(1, 1, 1)
    if before is not None:
        before(g)
        g.rerun()
    g.moves(*moves)
    g.place_rest_in_castles()
    g.stop_after("law", 2)
    g.reject_all_new_laws()
    return g


def finish_choices(g: Game, text: str = "none") -> None:
    while g.state.agenda and g.head[0] == "law_choice":
        g.play(g.head[2], text)


def test_buy_voting_markers_1_gold_each_in_player_order() -> None:
    g = law_game("buy_voting_markers", start=BLUE)
    assert g.head == ("law_choice", "buy_voting_markers", BLUE)
    assert g.legal(BLUE) == ["buy 0 voting markers", "buy 1 voting marker", "buy 2 voting markers"]
    g.play(BLUE, "buy 2 markers")
    g.play(YELLOW, "none")
    g.play(RED, "1")
    assert (g.c(BLUE).gold, g.c(BLUE).voting_markers) == (0, 2)
    assert (g.c(RED).gold, g.c(RED).voting_markers) == (1, 1)
    assert (g.c(YELLOW).gold, g.c(YELLOW).voting_markers) == (2, 0)


def test_recruit_1_squire_per_deployed_strength_2_knight() -> None:
    def two_twos(g: Game) -> None:
        g.edit_colour(RED, court=(1, 2, 2), reserve=(1, 1, 3, 4))

    g = law_game("squires_for_strength_2", before=two_twos)
    assert g.c(RED).squires == 2 + 2 and g.c(BLUE).squires == 2 + 1
    assert g.said('Law "Squires for strength-2 knights": Red gains 2 squires.')


def test_buy_power_points_1_gold_each() -> None:
    g = law_game("buy_power_points")
    g.play(RED, "buy 2 power points")
    finish_choices(g)
    assert (g.c(RED).gold, g.c(RED).power) == (0, 2)


def test_the_player_with_the_most_gold_may_upgrade_a_deployed_knight() -> None:
    g = law_game(
        "most_gold_upgrades",
        (RED, "knight 1 to A"),
        before=lambda g: g.edit_colour(BLUE, gold=5),
    )
    assert g.said("most gold: Blue")
    assert g.head == ("law_choice", "most_gold_upgrades", BLUE)  # Blue only
    assert g.legal(BLUE) == [
        "no upgrade",
        "upgrade knight 1 in castle 2",
        "upgrade knight 2 in castle 3",
    ]  # deployed knights only
    g.play(BLUE, "upgrade knight 2 in castle 3")
    assert g.c(BLUE).castle[2] == 3 and 2 in g.c(BLUE).reserve


def test_the_richest_may_not_upgrade_a_knight_at_court_only_a_deployed_one() -> None:
    g = Game(3, start=RED, cards=(1, 4), laws=("most_gold_upgrades", *NEUTRAL[:2]))
    g.setup(1, 1, 1)
    g.place_rest_in_castles()
    g.stop_after("law", 2)
    g.vote_all("vote no")
    g.vote_all("vote no")
    # Before the last vote: Blue is the richest and has a knight 1 at court (as if it had
    # found no place), a 2 in the reserve to upgrade it with.
    g.edit_colour(BLUE, gold=5, court=(1,), reserve=(1, 2, 3, 4))
    g.vote_all("vote no")
    assert g.head == ("law_choice", "most_gold_upgrades", BLUE)
    assert "upgrade knight 1 at court" not in g.legal(BLUE)
    assert "upgrade knight 1 in castle 2" in g.legal(BLUE)


def test_most_gold_ties_let_every_tied_player_upgrade() -> None:
    g = law_game("most_gold_upgrades")
    seats = []
    while g.state.agenda and g.head[0] == "law_choice":
        seats.append(g.head[2])
        g.play(g.head[2], "no upgrade")
    assert seats == [RED, BLUE, YELLOW]


def test_the_player_with_the_most_squires_recruits_a_new_knight() -> None:
    g = law_game("most_squires_new_knight", before=lambda g: g.edit_colour(YELLOW, squires=5))
    assert g.c(YELLOW).court == (1,) and g.c(YELLOW).reserve == (1, 2, 3, 4)
    assert g.c(RED).court == ()


def test_most_squires_ties_let_every_tied_player_recruit() -> None:
    g = law_game("most_squires_new_knight", before=lambda g: g.edit_colour(RED, squires=2))
    assert [g.c(s).court for s in (RED, BLUE, YELLOW)] == [(1,), (1,), (1,)]


def test_players_with_no_deployed_strength_2_knight_may_upgrade_one_of_their_knights() -> None:
    def no_two(g: Game) -> None:
        g.edit_colour(RED, court=(1, 1), reserve=(1, 2, 2, 3, 4))

    g = law_game("no_strength_2_upgrades", before=no_two)
    assert g.head == ("law_choice", "no_strength_2_upgrades", RED)  # only Red
    g.play(RED, "upgrade knight 1 in castle 2")
    assert g.c(RED).castle[1] == 2 and not g.state.agenda


def test_3_power_points_for_every_2_counties_held() -> None:
    g = law_game(
        "counties_power",
        (RED, "knight 1 to A"),
        (BLUE, "knight 1 to C"),
        (YELLOW, "knight 1 to I"),
        (RED, "knight 2 to B"),
    )
    assert (g.c(RED).power, g.c(BLUE).power, g.c(YELLOW).power) == (3, 0, 0)


def test_spend_a_squire_and_a_gold_for_3_power_points_any_number_of_times() -> None:
    g = law_game("squire_and_gold_for_power")
    assert g.legal(RED) == ["trade 0", "trade 1", "trade 2"]
    g.play(RED, "trade 2")
    finish_choices(g)
    assert (g.c(RED).gold, g.c(RED).squires, g.c(RED).power) == (0, 0, 6)


def test_1_extension_tile_for_every_2_conflicts_involved() -> None:
    g = law_game(
        "conflicts_extensions",
        (RED, "knight 1 to conflict 1"),
        (RED, "favor gold"),
        (BLUE, "knight 1 to conflict 1"),
        (BLUE, "favor squires"),
        (YELLOW, "knight 1 to A"),
        (RED, "knight 2 to conflict 4"),
        (RED, "favor voting markers"),
    )
    assert g.head == ("law_choice", "conflicts_extensions", RED)  # Blue has only one conflict
    assert g.legal(RED) == [
        "no extension",
        "extension 2",
        "extension 3",
        "extension 4",
        "extension 5",
        "extension 6",
    ]
    g.play(RED, "extension 4")
    assert g.c(RED).extensions == (1, 4) and not g.state.agenda


def test_a_deployed_strength_3_knight_may_be_swapped_for_the_strength_4() -> None:
    def with_three(g: Game) -> None:
        g.edit_colour(RED, court=(1, 3), reserve=(1, 1, 2, 2, 4))

    g = law_game("swap_3_for_4", (RED, "knight 3 to D"), before=with_three)
    assert g.legal(RED) == ["no swap", "swap"]
    g.play(RED, "swap")
    occupant = g.county("D")
    assert occupant is not None and occupant.strength == 4
    assert 3 in g.c(RED).reserve and 4 not in g.c(RED).reserve


def test_no_swap_is_offered_when_the_strength_4_knight_is_not_in_the_reserve() -> None:
    def three_and_four(g: Game) -> None:
        g.edit_colour(RED, court=(3, 4), reserve=(1, 1, 1, 2, 2))

    g = law_game("swap_3_for_4", (RED, "knight 3 to D"), before=three_and_four)
    assert not g.state.agenda  # nobody had a choice to make
    assert g.said('Law "Swap strength 3 for 4": nobody has a choice to make.')
    assert not g.said("does not swap")


def _two_conflicts_for_red() -> tuple[tuple[int, str], ...]:
    return (
        (RED, "knight 1 to conflict 1"),
        (RED, "favor new knight"),
        (BLUE, "knight 1 to conflict 1"),
        (BLUE, "favor squires"),
        (YELLOW, "knight 1 to A"),
        (RED, "knight 2 to conflict 4"),
        (RED, "favor voting markers"),
    )


def test_a_squire_a_voting_marker_and_a_gold_for_every_2_conflicts() -> None:
    g = law_game("conflicts_resources", *_two_conflicts_for_red())
    # Red: 2 gold; 2 squires; 2 voting markers from the favor (markers went to the supply
    # after the votes, so only the law's marker is left).
    assert (g.c(RED).gold, g.c(RED).squires, g.c(RED).voting_markers) == (3, 3, 1)
    assert (g.c(BLUE).gold, g.c(BLUE).voting_markers) == (2, 0)


def test_3_power_points_for_each_conflict_with_your_knights() -> None:
    g = law_game("conflicts_power", *_two_conflicts_for_red())
    assert (g.c(RED).power, g.c(BLUE).power, g.c(YELLOW).power) == (6, 3, 0)


def test_5_power_points_with_all_three_strength_1_knights_deployed() -> None:
    def three_ones(g: Game) -> None:
        g.edit_colour(RED, court=(1, 1, 1), reserve=(2, 2, 3, 4))

    g = law_game("strength_1_power", before=three_ones)
    assert (g.c(RED).power, g.c(BLUE).power) == (5, 0)


def test_1_voting_marker_for_each_conflict_involved() -> None:
    g = law_game("conflicts_markers", *_two_conflicts_for_red())
    assert (g.c(RED).voting_markers, g.c(BLUE).voting_markers) == (2, 1)


def test_5_power_points_for_every_3_extension_tiles() -> None:
    g = law_game("extensions_power", before=lambda g: g.edit_colour(RED, extensions=(1, 5, 6)))
    assert (g.c(RED).power, g.c(BLUE).power) == (5, 0)


def test_8_power_points_for_every_3_counties() -> None:
    def three(g: Game) -> None:
        g.edit_colour(RED, court=(1, 1, 2), reserve=(1, 2, 3, 4))

    g = law_game(
        "counties_power_8",
        (RED, "knight 1 to A"),
        (BLUE, "knight 1 to castle 2"),
        (YELLOW, "knight 1 to castle 2"),
        (RED, "knight 1 to C"),
        (BLUE, "knight 2 to castle 3"),
        (YELLOW, "knight 2 to castle 3"),
        (RED, "knight 2 to E"),
        before=three,
    )
    assert g.c(RED).power == 8


def test_a_new_knight_for_every_3_noblemen() -> None:
    g = law_game("noblemen_knights", before=lambda g: g.edit_colour(RED, nobles=("A", "B", "C")))
    assert g.c(RED).court == (1,) and g.c(BLUE).court == ()


def test_the_player_with_the_most_gold_gains_a_squire_and_a_voting_marker() -> None:
    g = law_game("most_gold_squire_marker", before=lambda g: g.edit_colour(BLUE, gold=3))
    assert (g.c(BLUE).squires, g.c(BLUE).voting_markers) == (3, 1)
    assert (g.c(RED).squires, g.c(RED).voting_markers) == (2, 0)
