"""auto_action: the documented deadline defaults (engine/lancaster/auto.py)."""

from __future__ import annotations

from engine.lancaster.state import Conflict, Occupant
from tests.engine.lancaster.helpers import BLUE, RED, YELLOW, Game, R, space

NEUTRAL = ("strength_1_power", "noblemen_knights", "extensions_power")


def auto_text(g: Game, seat: int) -> str:
    return R.format_action(g.state, R.auto_action(g.state, seat))


def test_setup_puts_the_extension_on_space_1() -> None:
    assert auto_text(Game(3), RED) == "extension 1"


def test_placement_sends_the_weakest_knight_to_the_lowest_free_castle_space() -> None:
    g = Game(3, cards=(1, 4))
    g.setup(1, 1, 1)
    assert auto_text(g, RED) == "knight 1 to castle 2"


def test_with_a_full_castle_the_weakest_knight_goes_to_the_first_empty_county_it_may_enter() -> (
    None
):
    g = Game(3, cards=(1, 4))
    g.setup(1, 1, 1)
    g.edit_colour(RED, castle=(None, 1, 1, 2, 3, 4), court=(1, 2), reserve=(2,))
    g.edit(counties=(Occupant(BLUE, 1, 0), *(None,) * 8))
    assert auto_text(g, RED) == "knight 1 to C"


def test_vote_no_with_no_markers() -> None:
    g = Game(3)
    g.setup(1, 1, 1)
    g.place_rest_in_castles()
    assert auto_text(g, BLUE) == "vote no"


def test_county_takes_the_nobleman_when_possible_and_never_pays_for_both() -> None:
    g = Game(3, cards=(1, 4), laws=NEUTRAL)
    g.setup(1, 1, 1)
    g.edit_colour(RED, gold=9)
    g.moves((RED, "knight 1 to A"))
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    assert auto_text(g, RED) == "noble"


def test_laws_buy_nothing_but_take_free_upgrades() -> None:
    g = Game(3, cards=(1, 4), laws=("buy_voting_markers", "most_gold_upgrades", NEUTRAL[0]))
    g.setup(1, 1, 1)
    g.edit_colour(YELLOW, gold=5)
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    assert auto_text(g, RED) == "buy 0 voting markers"
    for seat in (RED, BLUE, YELLOW):
        g.apply(seat, R.auto_action(g.state, seat))
    assert g.head == ("law_choice", "most_gold_upgrades", YELLOW)
    assert auto_text(g, YELLOW) == "upgrade knight 1 in castle 2"


def test_castle_never_pays_for_a_paid_space() -> None:
    g = Game(3, cards=(1, 4), laws=NEUTRAL)
    g.setup(6, 1, 1)
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    g.auto_until("castle_paid")
    assert auto_text(g, RED) == "done"


def test_ransom_never_pays() -> None:
    g = Game(3, cards=(1, 4), laws=NEUTRAL)
    g.setup(1, 1, 1)
    g.edit(lower=(Conflict(7, (space(RED, 1),)), None))
    g.edit_colour(RED, court=(2,), reserve=(1, 1, 2, 3, 4), gold=9)
    g.rerun()
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    g.auto_until("ransom")
    assert auto_text(g, RED) == "ransom none"
