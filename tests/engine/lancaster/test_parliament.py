"""Phase 2, parliament (decision: rules/README.md, Lancaster 5) and hidden votes
(decision 11)."""

from __future__ import annotations

import pytest

from engine.core.protocol import IllegalActionError, NotYourTurnError
from tests.engine.lancaster.helpers import BLUE, RED, YELLOW, Game, R

NEUTRAL = ("strength_1_power", "noblemen_knights", "extensions_power")


def at_parliament(**kw: object) -> Game:
    g = Game(3, laws=NEUTRAL, **kw)  # type: ignore[arg-type]
    g.setup(1, 1, 1)
    g.place_rest_in_castles()
    assert g.head == ("vote", 0)
    return g


def test_every_player_votes_at_once_and_nothing_is_shown_until_all_have_voted() -> None:
    g = at_parliament()
    assert g.to_act == {RED, BLUE, YELLOW}
    action = R.parse_action(g.state, RED, "vote yes 1")
    assert R.is_secret(g.state, RED, action)
    t = g.apply(RED, action)
    assert t.log == ("Red has voted.",) and not t.irreversible
    assert g.to_act == {BLUE, YELLOW}
    for viewer in (BLUE, YELLOW, None):
        red = g.view(viewer)["players"][RED]
        assert red["voted"] is True and red["vote"] is None
    assert g.view(RED)["players"][RED]["vote"] == {"yes": True, "markers": 1}
    assert g.view(RED)["players"][BLUE]["voted"] is False
    with pytest.raises(NotYourTurnError):
        g.play(RED, "vote no")  # a vote once cast stands
    g.play(BLUE, "vote no")
    t = g.play(YELLOW, "vote no")
    assert t.irreversible  # the reveal can never be undone
    assert any("Red yes +1, Blue no, Yellow no" in line for line in t.log)
    assert g.view(BLUE)["votes"][0]["votes"][RED] == {"yes": True, "markers": 1}


def test_a_vote_counts_its_tile_plus_the_voting_markers_and_a_tie_approves() -> None:
    g = at_parliament()
    for seat in (RED, BLUE, YELLOW):
        g.edit_colour(seat, voting_markers=2)
    first = g.state.new_laws[0]
    g.vote_all("vote yes", "vote yes", "vote no 1")  # 2 for, 2 against
    assert g.state.results[0].approved and (g.state.results[0].yes, g.state.results[0].no) == (
        2,
        2,
    )
    assert g.state.laws == (*NEUTRAL[1:], first)  # enters from the right, pushes out the left
    assert g.said("2 for, 2 against: approved")


def test_the_approved_law_enters_from_the_right_and_pushes_out_the_leftmost() -> None:
    g = at_parliament()
    first, second, third = g.state.new_laws
    g.vote_all("vote yes")
    g.vote_all("vote no")
    g.vote_all("vote yes")
    assert g.state.laws == (NEUTRAL[2], first, third)
    assert [r.approved for r in g.state.results] == [True, False, True]
    assert second not in g.state.laws  # a rejected law leaves the game
    assert g.said("rejected; it leaves the game")


def test_used_voting_markers_go_to_the_supply_and_a_player_cannot_add_more_than_held() -> None:
    g = at_parliament()
    g.edit_colour(YELLOW, voting_markers=3)
    with pytest.raises(IllegalActionError, match="only 3 voting markers"):
        g.play(YELLOW, "vote no 4")
    g.vote_all("vote yes", "vote yes", "vote no 2")
    assert g.c(YELLOW).voting_markers == 1
    assert not g.state.results[0].approved  # 2 for, 3 against


def test_unused_voting_markers_go_to_the_supply_after_the_third_vote() -> None:
    g = at_parliament()
    g.edit_colour(RED, voting_markers=4)
    g.stop_after("return_markers")
    g.reject_all_new_laws()
    assert g.c(RED).voting_markers == 0
    assert g.said("Unused voting markers go back to the supply.")


def test_current_laws_apply_left_to_right_with_choices_in_player_order() -> None:
    g = Game(3, start=BLUE, laws=("buy_power_points", "strength_1_power", "buy_voting_markers"))
    g.setup(1, 1, 1)
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    order = []
    while g.head[0] == "law_choice":
        order.append((g.head[1], g.head[2]))
        g.play(g.head[2], "none")
    assert order == [
        ("buy_power_points", BLUE),
        ("buy_power_points", YELLOW),
        ("buy_power_points", RED),
        ("buy_voting_markers", BLUE),
        ("buy_voting_markers", YELLOW),
        ("buy_voting_markers", RED),
    ]


def test_votes_are_simultaneous_so_any_seat_may_vote_first() -> None:
    g = at_parliament()
    g.play(YELLOW, "no")
    g.play(RED, "aye 1")
    g.play(BLUE, "against")
    assert len(g.state.results) == 1


def test_the_last_vote_reveals_every_vote_and_the_result_in_the_same_step() -> None:
    # A reveal is seen at once: the transition of the last vote is irreversible, its log
    # holds every vote and the result, and every seat's view after it shows them.
    g = at_parliament()
    g.play(YELLOW, "vote yes")
    g.play(RED, "vote no 1")
    t = g.play(BLUE, "vote yes")
    assert t.irreversible
    assert t.log[0] == "Blue has voted."
    assert t.log[1].startswith('Votes on "') and "Red no +1, Blue yes, Yellow yes" in t.log[1]
    assert "2 for, 2 against: approved" in t.log[1]
    for viewer in (RED, BLUE, YELLOW, None):
        shown = g.view(viewer)["votes"][0]
        assert shown["votes"] == [
            {"yes": False, "markers": 1},
            {"yes": True, "markers": 0},
            {"yes": True, "markers": 0},
        ]
        assert shown["approved"] is True
