"""The 2-player game with allies (decision: rules/README.md, Lancaster 12): Yellow is Red's
ally, Green is Blue's."""

from __future__ import annotations

import pytest

from engine.core.protocol import IllegalActionError
from engine.lancaster.state import Conflict
from tests.engine.lancaster.helpers import BLUE, GREEN, RED, YELLOW, Game, R, space

NEUTRAL = ("strength_1_power", "noblemen_knights", "extensions_power")


def two(**kw: object) -> Game:
    g = Game(2, cards=(1, 4), laws=NEUTRAL, **kw)  # type: ignore[arg-type]
    g.setup(1, 1)
    return g


def test_each_player_controls_an_ally_with_one_strength_2_knight_at_court() -> None:
    g = two()
    for ally in (YELLOW, GREEN):
        c = g.c(ally)
        assert c.court == (2,) and c.reserve == (1, 1, 1, 2, 3, 4)
        assert (c.gold, c.squires, c.voting_markers, c.power) == (0, 0, 0, 0)
    # The 4-player setup, except 2 noblemen per county.
    assert g.state.nobles == (2,) * 9 and g.state.favors == (1, 2, 3, 4, 5, 6)
    assert g.state.ally_of(RED) == YELLOW and g.state.controller(GREEN) == BLUE


def test_gold_and_squires_are_public_with_two_players() -> None:
    g = two()
    blue = g.view(RED)["players"][BLUE]
    assert (blue["gold"], blue["squires"]) == (2, 2)
    assert [a["colour"] for a in g.view(None)["allies"]] == ["Yellow", "Green"]


def test_a_turn_places_an_own_knight_or_an_ally_knight() -> None:
    g = two()
    legal = g.legal(RED)
    assert "knight 1 to A" in legal and "ally knight 2 to A" in legal
    g.play(RED, "ally knight 2 to A")
    assert g.county("A") is not None and g.county("A").colour == YELLOW  # type: ignore[union-attr]
    assert g.to_act == {BLUE}


def test_ally_knights_take_no_squires() -> None:
    g = two()
    with pytest.raises(IllegalActionError, match="without squires"):
        g.play(RED, "ally knight 2 to A with 1 squire")
    assert "ally knight 2 to A with 1 squire" not in g.legal(RED)


def test_a_player_may_not_expel_its_own_allys_knight_but_may_expel_the_other_side() -> None:
    g = two()
    g.play(RED, "ally knight 2 to E")
    g.play(BLUE, "knight 1 to A")
    with pytest.raises(IllegalActionError, match="your ally's"):
        g.play(RED, "knight 2 to E with 1 squire")
    g.play(RED, "knight 2 to A")  # Red expels Blue's knight
    g.play(BLUE, "knight 2 to E with 1 squire")  # Blue expels Red's ally
    assert g.c(YELLOW).court == (2,)
    assert g.to_act == {RED}


def test_own_and_ally_knights_share_a_conflict_but_not_a_space() -> None:
    g = two()
    g.play(RED, "knight 1 to conflict 1")
    g.play(RED, "favor gold")
    g.play(BLUE, "knight 1 to castle 2")
    g.play(RED, "ally knight 2 to conflict 1")
    assert g.head == ("favor", YELLOW) and g.to_act == {RED}
    g.play(RED, "favor nobleman C")  # an ally's nobleman leaves the game
    assert g.state.nobles[2] == 1 and g.c(YELLOW).nobles == () and g.c(RED).nobles == ()
    assert g.spaces(1) == [(RED, (1,)), (YELLOW, (2,))]


def test_an_ally_favor_of_gold_is_lost() -> None:
    g = two()
    g.play(RED, "ally knight 2 to conflict 1")
    g.play(RED, "favor gold")
    assert g.said("Yellow (Red's ally) cannot use 2 gold; it is lost.")
    assert g.c(YELLOW).gold == 0 and g.c(RED).gold == 2


def test_allies_do_not_vote() -> None:
    g = two()
    g.place_rest_in_castles()
    assert g.head == ("vote", 0) and g.to_act == {RED, BLUE}


def test_the_allys_castle_cannot_be_extended_and_gives_nothing_but_space() -> None:
    g = two()
    g.play(RED, "ally knight 2 to castle 3")
    assert g.c(YELLOW).castle[2] == 2
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    g.next_round()
    assert g.c(YELLOW).castle == (None,) * 6 and g.c(YELLOW).court == (2,)
    assert g.c(YELLOW).voting_markers == 0 and g.c(YELLOW).extensions == ()


def test_an_ally_in_a_county_removes_a_nobleman_or_uses_knights_rewards_only() -> None:
    g = two()
    g.play(RED, "ally knight 2 to A")
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    assert g.head == ("county", 0) and g.to_act == {RED}
    assert g.legal(RED) == ["noble", "reward"]  # no gold, so never both
    g.play(RED, "noble")
    assert g.said("Yellow (Red's ally) removes a nobleman A from the game.")
    assert g.state.nobles[0] == 1


def test_an_ally_in_county_g_cannot_extend_its_castle_and_the_extension_is_lost() -> None:
    g = two()
    g.edit_colour(YELLOW, court=(4,), reserve=(1, 1, 1, 2, 2, 3))
    g.play(RED, "ally knight 4 to G")
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    g.auto_until("county")
    assert g.head == ("county", 6) and g.legal(RED) == ["noble", "reward"]
    g.play(RED, "reward")
    assert g.c(YELLOW).extensions == () and g.c(RED).extensions == (1,)
    assert g.said("the extension is lost")


def test_an_ally_in_dorset_or_surrey_neither_moves_nor_names_the_start_player() -> None:
    # decision (engine/lancaster/README.md, 7): for an ally that part of the reward is lost.
    g = two(start=BLUE)
    g.play(BLUE, "knight 2 to H")
    g.play(RED, "ally knight 2 to I")
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    g.auto_until("county")
    g.play(BLUE, "reward conflict 1")
    # decision 6: Surrey offers only its nobleman, which the ally removes from the game;
    # the start-player choice is lost for an ally (it is the only option: taken for Red).
    assert g.said("Red has one choice, taken automatically: noble.")
    assert g.said("removes a nobleman I from the game") and g.state.next_start_player is None
    g.auto_until("place")
    assert g.state.start_player == BLUE and g.state.round == 2
    g2 = two()
    g2.play(RED, "ally knight 2 to H")
    g2.place_rest_in_castles()
    g2.reject_all_new_laws()
    g2.auto_until("county")
    assert g2.head == ("county", 7) and g2.legal(RED) == ["noble", "reward"]
    g2.play(RED, "reward")
    assert g2.said("cannot move the knight to a conflict; the reward is lost.")
    assert g2.c(YELLOW).court == (2,)


def test_allies_score_no_power_points_in_conflicts_but_hold_their_rank() -> None:
    g = two()
    g.play(RED, "ally knight 2 to conflict 1")
    g.play(RED, "favor gold")
    g.play(BLUE, "knight 1 to conflict 1")
    g.play(BLUE, "favor squires")
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    g.next_round()
    # England 3 >= France 3. Yellow (2) is 1st: its 4 points are lost; Blue 2nd takes 2.
    assert g.said("1st: Yellow (Red's ally) (allies score nothing).")
    assert (g.c(RED).power, g.c(BLUE).power, g.c(YELLOW).power) == (0, 2, 0)


def test_ally_knights_captured_in_france_cannot_be_ransomed() -> None:
    g = two()
    g.edit(lower=(Conflict(7, (space(YELLOW, 2), space(RED, 1))), None))
    g.edit_colour(YELLOW, court=(), reserve=(1, 1, 1, 3, 4))
    g.edit_colour(RED, court=(2,), reserve=(1, 1, 2, 3, 4), gold=5)
    g.rerun()
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    g.auto_until("ransom")
    assert g.head == ("ransom", 0, RED)  # Red alone: the ally is not asked
    g.play(RED, "ransom 1")
    assert g.said("Yellow (Red's ally)'s knight 2 goes to the reserve.")
    assert g.c(YELLOW).reserve == (1, 1, 1, 2, 3, 4)


def test_allies_do_not_count_for_laws_or_score_at_the_end() -> None:
    g = Game(2, cards=(1, 4), laws=("counties_power", "noblemen_knights", "extensions_power"))
    g.setup(1, 1)
    g.moves((RED, "ally knight 2 to A"), (BLUE, "knight 1 to C"), (RED, "knight 1 to I"))
    g.place_rest_in_castles()
    g.stop_after("law", 2)
    g.reject_all_new_laws()
    assert g.c(RED).power == 0  # one own county: Yellow's doesn't count
    g2 = two()
    g2.edit(agenda=())
    outcome = R.outcome(g2.state)
    assert outcome is not None and len(outcome.scores) == 2


def test_with_public_gold_a_ransom_nobody_can_pay_is_taken_automatically() -> None:
    g = Game(2, cards=(1, 4), laws=NEUTRAL)
    g.setup(3, 3)  # castle space 1 (2 squires) stays free for Red's knight: no gold comes
    g.edit(lower=(Conflict(7, (space(RED, 1),)), None))
    g.edit_colour(RED, court=(2,), reserve=(1, 1, 2, 3, 4), gold=0)
    g.rerun()
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    g.auto_until("place", "ransom")
    assert g.c(RED).gold == 0
    assert g.said("Red has one choice, taken automatically: ransom none.")
