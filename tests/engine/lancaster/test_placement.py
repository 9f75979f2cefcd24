"""Phase 1, placing knights (decisions: rules/README.md, Lancaster 2, 3 and 4)."""

from __future__ import annotations

import pytest

from engine.core.protocol import IllegalActionError
from engine.lancaster.state import Conflict, Occupant
from tests.engine.lancaster.helpers import (
    BLUE,
    GREEN,
    PURPLE,
    RED,
    YELLOW,
    Game,
    R,
    space,
)


def started(players: int = 3, **kw: object) -> Game:
    g = Game(players, **kw)  # type: ignore[arg-type]
    g.setup(*([1] * players))
    return g


def test_placement_goes_clockwise_from_the_start_player_one_knight_per_turn() -> None:
    g = started(3, start=BLUE)
    order = []
    for text in ["1 to A", "1 to C", "1 to I", "2 to B", "2 to E", "2 to H"]:
        seat = next(iter(g.to_act))
        order.append(seat)
        g.play(seat, text)
    assert order == [BLUE, YELLOW, RED, BLUE, YELLOW, RED]
    assert g.head == ("vote", 0)
    assert all(not g.c(s).court for s in range(3))


def test_a_player_whose_court_is_empty_is_skipped() -> None:
    g = started(3, start=RED)
    g.edit_colour(RED, court=(1,), reserve=(1, 1, 2, 2, 3, 4))
    g.moves((RED, "knight 1 to castle 2"), (BLUE, "knight 1 to castle 2"))
    g.moves((YELLOW, "knight 1 to castle 2"))
    assert g.to_act == {BLUE}  # Red's court is empty: Blue again
    g.moves((BLUE, "knight 2 to castle 3"), (YELLOW, "knight 2 to castle 3"))
    assert g.head == ("vote", 0)
    assert not g.said("Red cannot place")  # skipped, not passing: it has nothing to place


def test_a_county_needs_the_minimum_strength_from_the_knight_alone() -> None:
    g = started(3)
    # Gloucester (D) needs strength 3; squires never count toward the minimum.
    with pytest.raises(IllegalActionError, match="strength 3 or more"):
        g.play(RED, "knight 2 to D with 2 squires")
    assert "knight 2 to D" not in g.legal(RED)
    g.play(RED, "knight 2 to B")  # B needs 2
    assert g.county("B") == Occupant(RED, 2, 0)


def test_squires_add_one_each_and_are_paid_from_behind_the_screen() -> None:
    g = started(3)
    g.play(RED, "knight 1 to A with 2 squires")
    assert g.county("A") == Occupant(RED, 1, 2)
    assert g.c(RED).squires == 0
    with pytest.raises(IllegalActionError, match="only 2 squires"):
        g.play(BLUE, "knight 1 to C with 3 squires")


def test_expelling_needs_a_total_that_exceeds_the_occupant() -> None:
    g = started(3)
    g.play(RED, "knight 1 to A with 1 squire")  # total 2
    with pytest.raises(IllegalActionError, match="must exceed"):
        g.play(BLUE, "knight 2 to A")  # 2 does not exceed 2
    assert "knight 2 to A" not in g.legal(BLUE)
    assert "knight 2 to A with 1 squire" in g.legal(BLUE)


def test_an_expelled_knight_returns_to_court_its_squires_to_the_supply_and_is_placed_again() -> (
    None
):
    g = started(3)
    g.play(RED, "knight 1 to A with 1 squire")
    g.play(BLUE, "knight 2 to A with 1 squire")
    assert g.county("A") == Occupant(BLUE, 2, 1)
    assert g.c(RED).court == (1, 2)
    assert g.c(RED).squires == 1  # the squire placed with the expelled knight is gone
    assert g.said("Red's knight 1 with 1 squire is expelled back to court.")
    g.moves((YELLOW, "knight 1 to C"), (RED, "knight 1 to I"), (BLUE, "knight 1 to castle 2"))
    g.moves((YELLOW, "knight 2 to E"), (RED, "knight 2 to B"))
    assert g.head == ("vote", 0)  # Red placed both knights, the expelled one a second time


def test_you_can_never_expel_your_own_knight() -> None:
    g = started(3)
    g.moves((RED, "knight 1 to A"), (BLUE, "knight 1 to C"), (YELLOW, "knight 1 to I"))
    with pytest.raises(IllegalActionError, match="your own knight"):
        g.play(RED, "knight 2 to A with 2 squires")


def test_a_castle_space_holds_one_knight_and_a_covered_space_none() -> None:
    g = started(3)  # everyone's extension covers space 1
    with pytest.raises(IllegalActionError, match="covered by an extension"):
        g.play(RED, "knight 1 to castle 1")
    g.play(RED, "knight 1 to castle 2")
    g.moves((BLUE, "knight 1 to A"), (YELLOW, "knight 1 to C"))
    with pytest.raises(IllegalActionError, match="already holds a knight"):
        g.play(RED, "knight 2 to castle 2")
    assert g.c(RED).castle == (None, 1, None, None, None, None)


def test_conflict_knights_take_the_topmost_empty_space_or_stack_on_their_own() -> None:
    g = started(4, cards=(1, 4))
    g.play(RED, "knight 1 to conflict 1")
    g.play(RED, "favor gold")
    g.play(BLUE, "knight 2 to conflict 1")
    g.play(BLUE, "favor squires")
    g.play(YELLOW, "knight 1 to conflict 1")
    g.play(YELLOW, "favor voting markers")
    assert g.spaces(1) == [(RED, (1,)), (BLUE, (2,)), (YELLOW, (1,))]
    # One space per player per conflict: the card is full for Green...
    with pytest.raises(IllegalActionError, match="no empty space"):
        g.play(GREEN, "knight 1 to conflict 1")
    g.play(GREEN, "knight 1 to conflict 4")
    g.play(GREEN, "favor new knight")
    # ...but Red stacks on its own knight there.
    g.play(RED, "knight 2 to conflict 1")
    assert g.spaces(1) == [(RED, (1, 2)), (BLUE, (2,)), (YELLOW, (1,))]
    assert g.said("Red stacks knight 2 at conflict 1.")


def test_no_squires_go_to_a_conflict() -> None:
    g = started(3)
    card = g.state.upper[0]
    assert card is not None
    with pytest.raises(IllegalActionError, match="only with a knight placed in a county"):
        g.play(RED, f"knight 1 to conflict {card.card} with 1 squire")


def test_the_first_six_knights_at_conflicts_take_a_favor_tile_of_their_choice() -> None:
    g = started(5, cards=(1, 4))
    for seat, card in [(RED, 1), (BLUE, 1), (YELLOW, 1), (GREEN, 4), (PURPLE, 4)]:
        g.play(seat, f"knight 1 to conflict {card}")
        assert g.to_act == {seat} and g.head == ("favor", seat)
        g.play(seat, g.legal(seat)[-1])
    assert len(g.state.favors) == 1
    g.play(RED, "knight 2 to conflict 1")  # the sixth, stacked: it counts
    if g.to_act == {RED}:
        g.play(RED, g.legal(RED)[0])
    else:
        assert g.said("Red has one choice, taken automatically: favor")
    assert g.state.favors == ()
    g.play(BLUE, "knight 2 to conflict 1")  # the seventh takes nothing
    assert g.head[:2] == ("place", YELLOW)


def test_a_chosen_favor_tile_is_flipped_for_the_rest_of_the_round() -> None:
    g = started(3, cards=(1, 4))
    g.play(RED, "knight 1 to conflict 1")
    assert g.legal(RED) == [
        "favor new knight",
        "favor gold",
        "favor squires",
        "favor nobleman A",
        "favor nobleman B",
        "favor nobleman C",
        "favor nobleman D",
        "favor nobleman E",
        "favor nobleman F",
        "favor nobleman G",
        "favor nobleman H",
        "favor nobleman I",
        "favor voting markers",
    ]  # 3 players: no upgrade tile
    g.play(RED, "favor gold")
    assert g.c(RED).gold == 4
    g.play(BLUE, "knight 1 to conflict 1")
    assert "favor gold" not in g.legal(BLUE)


def test_a_favor_that_cannot_be_used_is_lost() -> None:
    g = started(3, cards=(1, 4))
    g.edit_colour(RED, court=(1, 1, 1, 2), reserve=(2, 3, 4))  # no strength 1 in the reserve
    g.play(RED, "knight 1 to conflict 1")
    g.play(RED, "favor new knight")
    assert g.said("Red has no strength-1 knight in the reserve; the new knight is lost.")
    assert g.c(RED).court == (1, 1, 2) and g.c(RED).reserve == (2, 3, 4)
    assert 1 not in g.state.favors


def test_the_favor_nobleman_is_a_letter_you_lack_from_any_stack() -> None:
    g = started(3, cards=(1, 4))
    g.edit_colour(RED, nobles=("B",))
    g.play(RED, "knight 1 to conflict 1")
    assert "favor nobleman B" not in g.legal(RED)
    g.play(RED, "favor nobleman D")
    assert g.c(RED).nobles == ("B", "D") and g.state.nobles[3] == 1


def test_a_player_who_can_place_nothing_passes_and_the_knights_stay_at_court() -> None:
    g = started(4, cards=(1, 4))
    full = (space(BLUE, 1), space(YELLOW, 1), space(GREEN, 1))
    g.edit(
        upper=(Conflict(1, full), Conflict(4, full)),
        counties=tuple(Occupant(BLUE, 4, 0) for _ in range(9)),
    )
    g.edit_colour(RED, court=(3,), castle=(None, 1, 1, 1, 2, 2), reserve=(4,), squires=0)
    g.rerun()
    # Red's only knight fits nowhere: no free castle space, no conflict, no county to win.
    assert g.to_act == {BLUE}
    assert g.said(
        "Red cannot place any knight from court and passes for the rest of this placement phase."
    )
    assert g.c(RED).court == (3,)
    assert all(a[0] != "pass" for a in R.legal_actions(g.state, BLUE))


def _red_passes(players: int = 3) -> Game:
    """Red's only knight at court fits nowhere: its own knight holds A (never expelled by
    itself), the other counties hold Yellow's 4s, both conflicts and its castle are full."""
    g = started(players, cards=(1, 4))
    full = (space(BLUE, 1), space(YELLOW, 1), space(GREEN, 1))
    g.edit(
        upper=(Conflict(1, full), Conflict(4, full)),
        counties=(Occupant(RED, 1, 0), *(Occupant(YELLOW, 4, 0) for _ in range(8))),
    )
    g.edit_colour(RED, court=(1,), castle=(None, 1, 1, 1, 2, 2), reserve=(3, 4), squires=2)
    g.edit_colour(BLUE, court=(1, 2), castle=(None, None, None, 1, 2, 2), reserve=(3, 4))
    g.edit_colour(YELLOW, court=(), reserve=(1, 1, 1, 2, 2, 3))
    g.rerun()
    return g


PASSES = "Red cannot place any knight from court and passes for the rest of this placement phase."


def test_a_pass_is_final_for_the_rest_of_the_placement_phase() -> None:
    # decision: rules/README.md, Lancaster 2 — the player is skipped on its later turns.
    g = _red_passes()
    assert g.said(PASSES) and g.to_act == {BLUE}
    g.play(BLUE, "knight 1 to castle 2")
    assert g.to_act == {BLUE}  # Red is skipped, Yellow has nothing at court
    g.play(BLUE, "knight 2 to castle 3")
    assert g.head[0] != "place" and g.c(RED).court == (1,)
    assert sum(PASSES in line for line in g.log) == 1  # said once, not on every turn


def test_a_passed_player_whose_knight_is_expelled_places_again() -> None:
    # decision: rules/README.md, Lancaster 2 — unless an expelled knight of theirs comes back.
    g = _red_passes()
    g.play(BLUE, "knight 2 to A")  # expels Red's knight 1 from A
    assert g.c(RED).court == (1, 1)
    # Yellow has nothing at court; Red's turn again: A holds Blue's 2, which 1 + 2 squires beat.
    assert g.to_act == {RED}
    assert g.legal(RED) == ["knight 1 to A with 2 squires"]
    g.play(RED, "knight 1 to A with 2 squires")
    assert g.c(RED).court == (1,) and g.to_act == {BLUE}  # Blue's 2 is back at court


def test_a_placement_with_a_single_option_is_taken_automatically_and_logged() -> None:
    g = started(4, cards=(1, 4))
    full = (space(BLUE, 1), space(YELLOW, 1), space(GREEN, 1))
    g.edit(upper=(Conflict(1, full), Conflict(4, (space(BLUE, 1),))))
    # Counties Red can never enter, whatever squires it might hold: its own knights there.
    g.edit(counties=tuple(Occupant(RED, 1, 0) for _ in range(9)))
    g.edit_colour(RED, court=(3,), castle=(None, 1, 1, 1, 2, 2), reserve=(4,), squires=0)
    g.run_from(("place", RED), ("vote", 0))
    # Red's knight can only join conflict 4: placed without asking, and the log says so.
    assert g.said("Red has one choice, taken automatically: knight 3 to conflict 4.")
    assert g.spaces(4) == [(BLUE, (1,)), (RED, (3,))]
    assert g.head == ("favor", RED)


def test_a_county_choice_is_never_automatic_while_squires_could_be_added() -> None:
    # Squires are hidden: asking only when you hold squires would reveal that you have some.
    g = started(3)
    g.edit(counties=(None, *tuple(Occupant(BLUE, 4, 0) for _ in range(8))))
    g.edit_colour(RED, court=(1,), castle=(None, 1, 1, 1, 2, 2), reserve=(3, 4), squires=0)
    g.edit(upper=(None, None))
    g.run_from(("place", RED), ("vote", 0))
    assert g.to_act == {RED}
    assert g.legal(RED) == ["knight 1 to A"]
