"""The New Laws (rules 2.1.0; shared rules/lancaster-data.md, "The New Laws"; decision 18):
each law and each choice, played through the engine contract."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core.protocol import ActionSyntaxError, IllegalActionError
from tests.engine.lancaster.helpers import BLUE, LATEST, RED, YELLOW, Game

NEUTRAL = ("strength_1_power", "noblemen_knights")
NEW = {"new_laws": "replace"}


def laws_game(
    *laws: str, moves: tuple[tuple[int, str], ...] = (), before: Any = None, **red: Any
) -> Game:
    """3 players under 2.1.0 with The New Laws; ``laws`` current (NEUTRAL fills up to three);
    Red's ``red`` resources arranged, ``moves`` played, the rest placed in castles, the new
    laws rejected: the current laws apply next."""
    current = (*laws, *NEUTRAL)[:3]
    g = Game(3, cards=(5, 6), laws=current, config=NEW, rules=LATEST)  # type: ignore[arg-type]
    g.setup(1, 1, 1)
    if red:
        g.edit_colour(RED, **red)
    if before is not None:
        before(g)
    if red or before is not None:
        g.rerun()
    g.moves(*moves)
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    return g


TO_CONFLICT_5 = ((RED, "knight 1 to conflict 5"), (RED, "favor gold"))
OTHERS_TO_CASTLES = ((BLUE, "knight 1 to castle 2"), (YELLOW, "knight 1 to castle 2"))


# -- gains ------------------------------------------------------------------------------------


def test_a_voting_marker_for_each_conflict_with_an_own_knight() -> None:
    g = laws_game("conflicts_voting_markers", moves=TO_CONFLICT_5)
    # the unused markers went back after the third vote; then the law gives 1 for conflict 5
    # + company at table (1); Blue's knight on castle space 3 gives it 2 more
    assert (g.c(RED).voting_markers, g.c(BLUE).voting_markers) == (1 + 1, 1 + 2)


def test_the_most_squires_gain_a_gold_and_a_voting_marker() -> None:
    g = laws_game("most_squires_gold_marker", squires=5)
    assert g.said('Law "The best-served are paid": most squires: Red.')
    assert g.said('Law "The best-served are paid": Red gains 1 gold and 1 voting marker.')
    assert not g.said("Blue gains")


def test_the_richest_gain_a_squire_and_a_voting_marker_and_ties_all_gain() -> None:
    g = laws_game("most_gold_squire_marker_new")
    assert g.said("most gold: Red, Blue, Yellow.")
    assert all(g.said(f"{c} gains 1 squire and 1 voting marker.") for c in ("Red", "Blue"))


def test_a_player_without_noblemen_receives_gold_squire_and_marker() -> None:
    g = laws_game("no_nobles_supplies", nobles=("A",))
    assert not g.said("Red gains")
    assert g.said("Blue gains 1 gold and 1 squire and 1 voting marker.")


def test_a_squire_for_each_deployed_strength_1_knight() -> None:
    g = laws_game("squires_for_strength_1", court=(1, 1, 2), reserve=(1, 2, 3, 4))
    assert g.said("Red gains 2 squires.") and g.said("Blue gains 1 squire.")


def test_power_for_each_knight_in_the_own_castle() -> None:
    g = laws_game("castle_knights_power", moves=((RED, "knight 1 to A"),))
    assert g.said("Red gains 3 power points.") and g.said("Blue gains 6 power points.")


def test_power_when_both_strength_2_knights_are_deployed() -> None:
    g = laws_game("both_strength_2_power", court=(1, 2, 2), reserve=(1, 1, 3, 4))
    assert g.said("Red gains 3 power points.") and not g.said("Blue gains")


def test_5_power_for_every_2_counties() -> None:
    g = laws_game("counties_power_5", moves=((RED, "knight 1 to A"), (BLUE, "knight 1 to C")))
    g2 = laws_game(
        "counties_power_5",
        moves=(
            (RED, "knight 1 to A"),
            (BLUE, "knight 1 to C"),
            (YELLOW, "knight 1 to I"),
            (RED, "knight 2 to B"),
        ),
    )
    assert g.said('Law "Power for counties, doubled": nobody gains anything.')
    assert g2.said("Red gains 5 power points.") and not g2.said("Blue gains")


def test_3_power_for_every_2_squires_supporting_own_knights_in_counties() -> None:
    g = laws_game("county_squires_power", moves=((RED, "knight 2 to B with 2 squires"),))
    assert g.said("Red gains 3 power points.") and not g.said("Blue gains")


def test_power_for_each_county_without_noblemen_left_where_one_has_a_knight() -> None:
    def no_nobles_in_a(g: Game) -> None:
        g.edit(nobles=(0, *g.state.nobles[1:]))

    g = laws_game(
        "empty_counties_power",
        moves=((RED, "knight 1 to A"), (BLUE, "knight 1 to B")),
        before=no_nobles_in_a,
    )
    assert g.said("Red gains 3 power points.") and not g.said("Blue gains")


def test_the_most_knights_in_conflicts_gain_5_and_nobody_without_any() -> None:
    g = laws_game("most_conflict_knights_power", moves=TO_CONFLICT_5)
    assert g.said("most knights in conflicts: Red.") and g.said("Red gains 5 power points.")
    nobody = laws_game("most_conflict_knights_power")
    assert nobody.said("nobody gains anything.")


# -- send squires to conflicts ----------------------------------------------------------------


def _two_conflicts() -> Game:
    return laws_game(
        "squires_to_conflicts",
        moves=(
            *TO_CONFLICT_5,
            *OTHERS_TO_CASTLES,
            (RED, "knight 2 to conflict 6"),
            (RED, "favor squires"),
        ),
    )


def test_squires_sent_to_conflicts_add_strength_there_until_the_conflict_is_scored() -> None:
    g = _two_conflicts()
    assert g.to_act == {RED}  # the others have no knight in France: not asked
    assert g.legal(RED)[:2] == ["send no squires", "send a squire to conflict 5"]
    squires = g.c(RED).squires
    g.stop_after("law", 2)
    g.play(RED, "send squires to conflicts 5 and 6")
    assert g.c(RED).squires == squires - 2
    card = g.view(None)["conflicts"]["upper"][0]
    assert (card["card"], card["england"], card["spaces"][0]["squires"]) == (5, 2, 1)
    assert "Red 1 +1 squire" in LATEST.render_text(g.view(None))


def test_sent_squires_go_to_the_supply_after_the_battle_even_when_france_wins() -> None:
    g = _two_conflicts()
    squires = g.c(RED).squires
    g.play(RED, "send a squire to conflict 5")
    # France (5) beats Red's knight 1 and a squire: the card slides down, the squire is gone
    assert g.said("Red's 1 squire sent here go to the supply.")
    lower = [c for c in g.state.lower if c is not None]
    assert [(c.card, c.spaces[0].squires) for c in lower] == [(5, 0), (6, 0)]
    assert g.c(RED).squires >= squires - 1  # never given back (castle squires aside)


def test_a_squire_only_goes_to_a_conflict_with_an_own_knight_one_each() -> None:
    g = _two_conflicts()
    with pytest.raises(IllegalActionError, match="a knight of your own"):
        g.play(RED, "send a squire to conflict 4")
    with pytest.raises(IllegalActionError, match="one squire"):
        g.play(RED, "send squires to conflicts 5 and 5")


# -- buy extensions ---------------------------------------------------------------------------


def test_extensions_are_bought_for_4_gold_and_the_buyer_is_asked_again() -> None:
    g = laws_game("buy_extensions", gold=9)
    g.play(RED, "buy extension 2")
    assert g.c(RED).gold == 5 and g.c(RED).extensions == (1, 2)
    assert g.to_act == {RED}  # asked again
    g.play(RED, "buy an extension on space 3 for 4 gold")
    assert g.to_act == {RED}
    with pytest.raises(IllegalActionError, match="costs 4 gold; you have 1"):
        g.play(RED, "buy extension 4")
    g.play(RED, "no more extensions")
    assert g.c(RED).extensions == (1, 2, 3) and g.to_act == {BLUE}
    assert g.rules.auto_action(g.state, BLUE) == ("buy_extension", None)


# -- the most retained voting markers upgrade --------------------------------------------------


def test_the_most_markers_held_after_the_third_vote_may_upgrade_and_go_back_after() -> None:
    g = laws_game(
        "conflicts_voting_markers",
        "most_retained_markers_upgrade",
        moves=TO_CONFLICT_5,
        voting_markers=3,
    )
    assert g.said("most voting markers held since the third vote: Red.")
    assert g.to_act == {RED}
    g.play(RED, "upgrade knight 2 in castle 2")
    assert g.said("Red upgrades the knight 2 in castle 2 to strength 3.")
    # the 3 retained markers went back after the laws; the one from the law is kept
    assert g.said("The voting markers held after the third voting go back to the supply")
    assert g.c(RED).voting_markers == 1 + 1  # + company at table


# -- county upkeep -----------------------------------------------------------------------------


def _upkeep(gold: int) -> Game:
    return laws_game(
        "county_upkeep",
        moves=((RED, "knight 1 to A"), *OTHERS_TO_CASTLES, (RED, "knight 2 to B")),
        gold=gold,
    )


def test_a_knight_in_a_county_not_paid_for_goes_back_to_court() -> None:
    g = _upkeep(1)
    with pytest.raises(IllegalActionError, match="costs 2 gold and you have 1: recall more"):
        g.play(RED, "pay for all")
    g.play(RED, "recall the knight in B")
    assert g.said("Red pays 1 gold for the knights in Northumberland (A).")
    assert g.said("Red does not pay for the knight 2 in Stafford (B): it goes back to court")
    assert g.county("B") is None and g.c(RED).gold == 0 and 2 in g.c(RED).court


def test_the_deadline_default_spends_nothing_so_it_tells_nothing_of_hidden_gold() -> None:
    # behind screens (3 players) the default is the same whatever the gold: it recalls every
    # knight, as paying where affordable would show the table whether Red could
    assert LATEST.auto_action(_upkeep(2).state, RED) == ("recall", ("A", "B"))
    assert LATEST.auto_action(_upkeep(1).state, RED) == ("recall", ("A", "B"))
    for squires in (1, 5):
        g = laws_game("extension_upkeep", extensions=(1, 3), squires=squires)
        assert LATEST.auto_action(g.state, RED) == ("turn_over", (1, 3))


def test_with_open_gold_the_deadline_pays_for_every_knight_it_can_and_recalls_the_fewest() -> None:
    def upkeep(gold: int) -> Game:
        g = Game(2, cards=(5, 6), laws=("county_upkeep", *NEUTRAL), config=NEW, rules=LATEST)
        g.setup(1, 1)
        g.edit_colour(RED, gold=gold)
        g.rerun()
        g.moves((RED, "knight 1 to A"), (BLUE, "knight 1 to castle 2"), (RED, "knight 2 to B"))
        g.place_rest_in_castles()
        g.reject_all_new_laws()
        assert g.head == ("law_choice", "county_upkeep", RED)
        return g

    assert LATEST.auto_action(upkeep(2).state, RED) == ("recall", ())
    assert LATEST.auto_action(upkeep(1).state, RED) == ("recall", ("A",))


# -- extension upkeep -------------------------------------------------------------------------


def test_unpaid_extension_is_turned_over_until_castles_are_scored() -> None:
    g = laws_game("extension_upkeep", extensions=(1, 3), squires=1)
    g.stop_after("law", 2)
    with pytest.raises(IllegalActionError, match="turn more of them over"):
        g.play(RED, "pay for all extensions")
    g.play(RED, "turn over extension 3")
    assert g.c(RED).turned == (3,) and g.c(RED).squires == 0
    castle = g.view(BLUE)["players"][RED]["castle"]
    assert [sp["turned_over"] for sp in castle] == [False, False, True, False, False, False]
    assert "3:ext(turned over)" in LATEST.render_text(g.view(BLUE))

    g = laws_game("extension_upkeep", extensions=(1, 3), squires=1)
    g.play(RED, "turn over extension 3")
    g.auto_until("place")  # Blue and Yellow pay for theirs; castles, conflicts
    assert g.said("Red's extension on castle space 3 is turned over: no reward.")
    assert g.said("Red's turned-over extensions are face up again.")
    assert g.c(RED).turned == () and g.c(RED).voting_markers == 1  # company only


# -- exchange ----------------------------------------------------------------------------------


def test_gold_and_squires_are_exchanged_two_for_one_either_way() -> None:
    g = laws_game("exchange_gold_squires", gold=4, squires=2)
    g.play(RED, "trade 4 gold for 2 squires")
    assert (g.c(RED).gold, g.c(RED).squires) == (0, 4)
    g = laws_game("exchange_gold_squires", gold=4, squires=2)
    g.play(RED, "exchange 2 squires for a gold")
    assert (g.c(RED).gold, g.c(RED).squires) == (5, 0)
    assert g.said("Red exchanges 2 squires for 1 gold.")


def test_an_exchange_beyond_ones_means_or_off_the_rate_is_refused() -> None:
    g = laws_game("exchange_gold_squires", gold=4, squires=2)
    with pytest.raises(IllegalActionError, match="costs 2 gold; you have 4 gold"):
        g.play(RED, "exchange 6 gold for 3 squires")
    with pytest.raises(ActionSyntaxError, match="2 for 1"):
        g.play(RED, "exchange 4 gold for 1 squire")


# -- batches ----------------------------------------------------------------------------------


def test_batches_of_gold_squire_and_retained_marker_buy_3_power_each() -> None:
    g = laws_game("batches_for_power", voting_markers=3, gold=2, squires=5)
    with pytest.raises(IllegalActionError, match="2 gold, 5 squires and 3 such markers"):
        g.play(RED, "buy 3 batches")
    g.play(RED, "buy 2 batches")
    assert g.c(RED).power == 6 and (g.c(RED).gold, g.c(RED).squires) == (0, 3)
    assert g.c(RED).voting_markers == 1 and g.to_act == {BLUE}
    g.auto_until("place")
    # the unspent retained marker went back after the laws; then castle space 3 (2) and
    # company at table (1)
    assert g.said("Red spends 2 gold, 2 squires and 2 voting markers for 6 power points.")
    assert g.c(RED).voting_markers == 2 + 1


def test_markers_gained_from_this_rounds_laws_buy_no_batch() -> None:
    def no_markers(g: Game) -> None:
        for seat in range(3):
            g.edit_colour(seat, voting_markers=0)

    g = laws_game(
        "conflicts_voting_markers", "batches_for_power", moves=TO_CONFLICT_5, before=no_markers
    )
    assert g.said('Law "Batches for power": nobody has a choice to make.')
    assert g.c(RED).voting_markers == 1 + 1  # kept for the next round; + company


def test_a_knight_to_recall_is_named_by_county_name_as_the_board_names_it() -> None:
    g = _upkeep(1)
    with pytest.raises(IllegalActionError, match="your knights are in A and B"):
        g.play(RED, "recall my knight in York")
    g.play(RED, "recall my knight in Stafford")
    assert g.county("B") is None and g.county("A") is not None


def test_no_alone_or_pay_nothing_is_not_read_as_paying_the_upkeep() -> None:
    g = _upkeep(5)
    for text in ("no thanks", "none", "pass", "pay nothing", "keep none"):
        with pytest.raises(ActionSyntaxError, match="'no' alone could mean either"):
            g.play(RED, text)
    g.play(RED, "recall none")
    assert g.said("Red pays 2 gold for the knights in Northumberland (A) and Stafford (B).")
    g = laws_game("extension_upkeep", extensions=(1, 3), squires=5)
    for text in ("no thanks", "none", "pay nothing"):
        with pytest.raises(ActionSyntaxError, match="'no' alone could mean either"):
            g.play(RED, text)
    g.play(RED, "turn over none")
    assert g.c(RED).turned == ()


def test_a_number_of_extension_tiles_is_not_read_as_a_castle_space() -> None:
    g = laws_game("buy_extensions", gold=9)
    for text in ("buy two extensions", "buy 3 extensions"):
        with pytest.raises(ActionSyntaxError, match="bought one at a time"):
            g.play(RED, text)
    assert g.c(RED).extensions == (1,)
    g.play(RED, "buy one extension on space 2")
    assert g.c(RED).extensions == (1, 2)
