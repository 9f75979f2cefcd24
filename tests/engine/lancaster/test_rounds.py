"""The sequence of play (decision: rules/README.md, Lancaster 1) and phase 4, preparing the
next round."""

from __future__ import annotations

from tests.engine.lancaster.helpers import BLUE, RED, YELLOW, Game


def first(g: Game, fragment: str) -> int:
    return next(i for i, line in enumerate(g.log) if fragment in line)


def last(g: Game, fragment: str) -> int:
    return max(i for i, line in enumerate(g.log) if fragment in line)


def test_a_round_is_placement_parliament_laws_counties_castles_conflicts_then_the_next() -> None:
    g = Game(3, cards=(1, 4), laws=("buy_voting_markers", "strength_1_power", "noblemen_knights"))
    g.setup(1, 1, 1)
    g.moves((RED, "knight 1 to A"), (BLUE, "knight 1 to conflict 1"), (BLUE, "favor gold"))
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    g.next_round()
    assert last(g, "places knight") < first(g, "has voted")
    assert last(g, "has voted") < first(g, "Unused voting markers") < first(g, 'Law "')
    assert last(g, 'Law "') < first(g, "returns to court from A")
    assert last(g, "returns to court from A") < first(g, "company at table")
    assert last(g, "company at table") < first(g, "Conflict 1 (upper row)")
    assert last(g, "Conflict 4 (upper row)") < first(g, "Round 2 begins")


def test_the_next_round_reveals_two_conflicts_three_laws_and_turns_the_favors_up() -> None:
    g = Game(3, cards=(1, 4))
    g.setup(1, 1, 1)
    pile_cards, pile_laws = g.state.conflict_pile, g.state.law_pile
    g.play(RED, "knight 1 to conflict 1")
    g.play(RED, "favor gold")
    g.next_round()
    assert [c.card for c in g.state.upper if c] == list(pile_cards[:2])
    assert g.state.conflict_pile == pile_cards[2:]
    assert g.state.new_laws == pile_laws[:3] and g.state.law_pile == pile_laws[3:]
    assert g.state.favors == g.state.favors_in_game
    assert g.state.results == () and g.state.round == 2
    revealing = [t for t in g.transitions if any("Round 2 begins" in x for x in t.log)]
    assert revealing and revealing[0].irreversible


def test_knights_from_counties_and_castles_are_back_at_court_for_the_next_round() -> None:
    g = Game(3, cards=(1, 4))
    g.setup(1, 1, 1)
    g.moves((RED, "knight 1 to A"))
    g.next_round()  # everything else by deadline defaults: castles, votes no
    for seat in (RED, BLUE, YELLOW):
        assert g.c(seat).court == (1, 2) and g.c(seat).castle == (None,) * 6
    assert g.county("A") is None
