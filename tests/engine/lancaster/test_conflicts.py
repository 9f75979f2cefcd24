"""The conflicts with France (decisions: rules/README.md, Lancaster 1 and 8)."""

from __future__ import annotations

from tests.engine.lancaster.helpers import BLUE, RED, YELLOW, Game

NEUTRAL = ("strength_1_power", "noblemen_knights", "extensions_power")


def battle(*moves: tuple[int, str], start: int = RED) -> Game:
    """3 players with conflicts 1 (France 3; 4/2/1) and 4 (France 5; 6/3/1); the given
    placements, the rest in castles; new laws rejected; the game runs to round 2."""
    g = Game(3, start=start, cards=(1, 4), laws=NEUTRAL)
    g.setup(1, 1, 1)
    g.moves(*moves)
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    g.auto_until("place")
    assert g.state.round == 2
    return g


def test_england_wins_when_its_strength_reaches_france() -> None:
    g = battle(
        (RED, "knight 1 to conflict 1"),
        (RED, "favor gold"),
        (BLUE, "knight 2 to conflict 1"),
        (BLUE, "favor squires"),
    )
    assert g.said("Conflict 1 (upper row): England 3 against France 3: England wins.")
    # Ranks by strength: Blue 1st (4 power points), Red 2nd (2).
    assert (g.c(BLUE).power, g.c(RED).power) == (4, 2)
    assert g.said("The knights return to court; the card is discarded.")
    assert g.state.find_card(1) is None
    assert 1 in g.c(RED).court and 2 in g.c(BLUE).court


def test_a_tie_in_strength_goes_to_the_player_who_entered_later() -> None:
    g = battle(
        (RED, "knight 2 to conflict 1"),
        (RED, "favor gold"),
        (BLUE, "knight 2 to conflict 1"),
        (BLUE, "favor squires"),
    )
    assert (g.c(BLUE).power, g.c(RED).power) == (4, 2)


def test_france_winning_the_upper_conflict_moves_card_and_knights_down() -> None:
    g = battle(
        (RED, "knight 1 to conflict 4"),
        (RED, "favor gold"),
        (BLUE, "knight 1 to conflict 4"),
        (BLUE, "favor squires"),
        (YELLOW, "knight 1 to conflict 4"),
        (YELLOW, "favor voting markers"),
    )
    assert g.said("Conflict 4 (upper row): England 3 against France 5: France wins.")
    # France wins: rank 1 takes the 2nd value, rank 2 the 3rd, rank 3 nothing. All tied at
    # 1: the lower space ranks higher.
    assert (g.c(YELLOW).power, g.c(BLUE).power, g.c(RED).power) == (3, 1, 0)
    assert g.state.lower[1] is not None and g.state.lower[1].card == 4
    assert g.spaces(4) == [(RED, (1,)), (BLUE, (1,)), (YELLOW, (1,))]  # order kept


def test_france_winning_the_lower_conflict_captures_unransomed_knights() -> None:
    g = battle(
        (RED, "knight 1 to conflict 4"),
        (RED, "favor gold"),
        (BLUE, "knight 1 to conflict 4"),
        (BLUE, "favor squires"),
    )
    g.auto_until("ransom")
    assert g.said("Conflict 4 (lower row): England 2 against France 5: France wins.")
    assert g.head == ("ransom", 1, RED)  # player order from the start player
    assert g.legal(RED) == ["ransom none", "ransom 1"]
    gold = g.c(RED).gold
    g.play(RED, "ransom 1")
    assert g.c(RED).gold == gold - 1  # 1 gold per strength point
    assert g.head == ("ransom", 1, BLUE)
    g.play(BLUE, "ransom none")
    assert g.said("Red ransoms knight 1 for 1 gold; back to court.")
    assert g.said("Blue's knight 1 goes to the reserve.")
    assert g.state.find_card(4) is None
    assert g.c(BLUE).reserve.count(1) == 3 and g.c(RED).reserve.count(1) == 2


def test_ransoms_are_decided_in_player_order_from_the_start_player() -> None:
    g = battle(
        (YELLOW, "knight 1 to conflict 4"),
        (YELLOW, "favor gold"),
        (RED, "knight 1 to conflict 4"),
        (RED, "favor squires"),
        (BLUE, "knight 1 to conflict 4"),
        (BLUE, "favor voting markers"),
        start=YELLOW,
    )
    g.auto_until("ransom")
    assert g.head == ("ransom", 1, YELLOW)
    g.play(YELLOW, "ransom none")
    assert g.head == ("ransom", 1, RED)
    g.play(RED, "ransom none")
    assert g.head == ("ransom", 1, BLUE)


def test_england_winning_the_second_battle_scores_all_three_values_and_frees_the_knights() -> None:
    # 000: "If England wins 2nd battle, score same as 1st battle."
    g = battle(
        (RED, "knight 1 to conflict 4"),
        (RED, "favor gold"),
        (BLUE, "knight 1 to conflict 4"),
        (BLUE, "favor squires"),
    )
    assert g.state.lower[1] is not None and g.state.lower[1].card == 4
    power = (g.c(RED).power, g.c(BLUE).power)  # France won the first battle: Blue 3, Red 1
    assert power == (1, 3)
    # Round 2: both reinforce their spaces; England 6 >= France 5 in the lower row.
    g.play(RED, "knight 2 to conflict 4")
    g.play(RED, "favor gold")
    g.play(BLUE, "knight 2 to conflict 4")
    g.play(BLUE, "favor squires")
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    g.auto_until("place")
    assert g.said("Conflict 4 (lower row): England 6 against France 5: England wins.")
    # Tied at 3: Blue, on the lower space, is 1st with 6 points, Red 2nd with 3 (the card's
    # full values, as in a first battle).
    assert (g.c(RED).power - power[0], g.c(BLUE).power - power[1]) == (3, 6)
    assert g.state.find_card(4) is None
    assert (g.c(RED).court, g.c(BLUE).court) == ((1, 2), (1, 2))  # back at court


def test_a_ransom_costs_the_strength_of_every_knight_bought_back() -> None:
    g = battle(
        (RED, "knight 1 to conflict 4"),
        (RED, "favor gold"),
        (BLUE, "knight 1 to A"),
        (YELLOW, "knight 1 to C"),
        (RED, "knight 2 to conflict 4"),
        (RED, "favor squires"),
    )
    g.auto_until("ransom")
    g.edit_colour(RED, gold=2)
    assert g.legal(RED) == ["ransom none", "ransom 1", "ransom 2"]  # both would cost 3
    g.play(RED, "ransom 2")
    assert g.c(RED).gold == 0 and g.c(RED).reserve.count(1) == 3


def test_a_conflict_with_no_knights_is_lost_the_same_way_and_no_one_scores() -> None:
    g = battle()
    assert g.said("Conflict 1 (upper row): England 0 against France 3: France wins.")
    assert [c.card for c in g.state.lower if c] == [1, 4]
    g.next_round()  # round 3: the empty lower cards are discarded
    assert g.said("Conflict 1 is discarded.") and g.said("Conflict 4 is discarded.")
    assert all(g.c(s).power == 0 for s in range(3))


def test_the_lower_row_is_resolved_before_the_upper_row() -> None:
    g = battle()
    start = len(g.log)
    g.next_round()
    lines = [line for line in g.log[start:] if line.startswith("Conflict") and "row" in line]
    rows = [line.split("(")[1].split()[0] for line in lines]
    assert rows == ["lower", "lower", "upper", "upper"]


def test_new_conflict_cards_and_favor_tiles_face_up_each_round() -> None:
    g = battle((RED, "knight 1 to conflict 1"), (RED, "favor gold"))
    assert g.state.favors == g.state.favors_in_game
    assert all(c is not None and not c.spaces for c in g.state.upper)
    assert len(g.state.conflict_pile) == 6
    assert g.transitions[-1].irreversible  # the new cards and laws were revealed
