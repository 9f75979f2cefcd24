"""Lancelot's variants (rules/lancelot.md, Variants): diagonals, and Excalibur with the force
of the King. Two players on D4–K11 unless a test says otherwise."""

from __future__ import annotations

import pytest

from engine.core.protocol import IllegalActionError, NotYourTurnError
from tests.engine.lancelot.helpers import R, advantage, at, new_game, play, row, step

MAIN_DIAGONAL = ["D4", "E5", "F6", "G7", "H8", "I9", "J10", "K11"]


# -- diagonals ----------------------------------------------------------------------------


def test_diagonals_count_only_in_the_variant() -> None:
    moves = ("D4", "E5", "F6", "K4", "H8")  # seat 0 on D4 F6 H8 against E5 on the diagonal
    plain = play(new_game(), *moves)
    assert at(plain, "E5") == 1
    assert plain.captures(0) == 0
    t = step(play(new_game(diagonals=True), *moves[:-1]), moves[-1])
    assert advantage(t.state, 0, MAIN_DIAGONAL) == 3  # +2 at placement, then E5 removed
    assert at(t.state, "E5") is None
    assert t.state.captures(0) == 1
    assert "diagonal D4-K11" in t.log[0]


def test_the_limit_applies_on_a_diagonal_of_four_squares() -> None:
    # H4 I5 J6 K7: four squares, a line in the variant.
    state = play(new_game(diagonals=True), "H4", "D11", "I5", "E11")
    with pytest.raises(IllegalActionError, match="diagonal H4-K7: you would be \\+3"):
        R.parse_action(state, 0, "J6")
    # Without the variant the same square is fine.
    plain = play(new_game(), "H4", "D11", "I5", "E11")
    assert R.parse_action(plain, 0, "J6") == ("place", 9, 6)


def test_diagonals_shorter_than_four_squares_do_not_count() -> None:
    # I4 J5 K6: a corner diagonal of three squares. A third knight there would be +3 if it
    # counted.
    state = play(new_game(diagonals=True), "I4", "D11", "J5", "E11")
    assert R.parse_action(state, 0, "K6") == ("place", 10, 6)
    state = play(state, "K6")
    assert [at(state, sq) for sq in ("I4", "J5", "K6")] == [0, 0, 0]
    names = state.geo.line_names
    assert "diagonal I4-K6" not in names
    assert "diagonal H4-K7" in names
    # In the 8×8 area: 8 rows, 8 columns and 9 diagonals of 4+ squares each way.
    assert len(names) == 8 + 8 + 2 * 9


# -- Excalibur: setting it, and how it counts -----------------------------------------------


def test_the_last_seat_sets_excalibur_on_any_square_before_the_first_turn() -> None:
    state = new_game(excalibur=True)
    assert R.to_act(state) == frozenset({1})
    legal = R.legal_actions(state, 1)
    assert len(legal) == 64 and all(a[0] == "excalibur" for a in legal)
    with pytest.raises(NotYourTurnError):
        R.parse_action(state, 0, "E5")
    with pytest.raises(IllegalActionError, match="First Excalibur must be set"):
        R.parse_action(state, 1, "E5")
    t = step(state, "excalibur G9")
    state = t.state
    assert at(state, "G9") == "X"
    assert t.log == ("Blue set Excalibur on G9.",)
    assert state.in_hand == (30, 30)
    assert R.to_act(state) == frozenset({0})  # then seat 0 starts as usual
    with pytest.raises(IllegalActionError, match="already on the board"):
        R.parse_action(state, 0, "excalibur H9")
    # With three players, seat 2 sets it.
    assert R.to_act(new_game(3, excalibur=True)) == frozenset({2})


def test_excalibur_counts_as_an_opponent_for_the_limit() -> None:
    state = play(new_game(excalibur=True), "excalibur G4", "D4", "G10", "E4", "G11")
    # D4 E4 F4 with Excalibur on row 4: 3 - 1 = +2, allowed (alone it would be +3).
    assert R.parse_action(state, 0, "F4") == ("place", 5, 4)
    state = play(state, "F4")
    # It is an opponent of every seat: seat 1's G8 G10 G11 with it on column G make +2.
    assert R.parse_action(state, 1, "G8") == ("place", 6, 8)


def test_excalibur_counts_as_an_opponent_for_captures_and_is_never_captured() -> None:
    state = play(
        new_game(excalibur=True),
        "excalibur G4",
        "D4",
        "H4",  # seat 1
        "E4",  # seat 0: 2 against H4 and Excalibur
        "J9",
        "F4",  # 3 against 2: +1, no capture (against H4 alone it would be +2)
        "J10",
    )
    assert at(state, "H4") == 1 and state.captures(0) == 0
    t = step(state, "I4")  # 4 against 2 = +2
    assert at(t.state, "H4") is None
    assert at(t.state, "G4") == "X"  # Excalibur remains
    assert t.state.captures(0) == 1  # and is not counted as a capture
    assert advantage(t.state, 0, row(t.state, 4)) == 3


# -- Excalibur: the force of the King -------------------------------------------------------


def test_the_force_of_the_king_captures_through_excaliburs_new_square() -> None:
    state = play(new_game(excalibur=True), "excalibur G9", "D5", "F5", "E5", "J10")
    assert advantage(state, 0, row(state, 5)) == 1
    t = step(state, "king H5 K8")  # Excalibur to row 5, on seat 0's side: 3 - 1 = +2
    state = t.state
    assert at(state, "F5") is None
    assert at(state, "H5") == "X" and at(state, "G9") is None
    assert at(state, "K8") == 0
    assert state.captures(0) == 1
    assert state.shields == (False, True)
    assert state.in_hand == (27, 28)
    assert t.log[0] == (
        "Red used the force of the King: Excalibur moved from G9 to H5, a knight placed "
        "on K8 and captured 1 knight on row 5 (F5): Blue lost 1."
    )
    # Afterwards Excalibur is neutral again: on row 5 it counts against seat 0.
    assert advantage(state, 0, row(state, 5)) == 1


def test_the_force_of_the_king_counts_excalibur_with_the_placed_knight() -> None:
    state = play(new_game(excalibur=True), "excalibur K11", "D7", "F7")
    assert advantage(state, 0, row(state, 7)) == 0
    # A plain knight on G7 would only make +1; with Excalibur on E7 for seat 0 it is +2.
    t = step(state, "king E7 G7")
    assert at(t.state, "F7") is None
    assert t.state.captures(0) == 1


def test_the_force_of_the_king_is_spent_once_even_without_a_capture() -> None:
    state = play(new_game(excalibur=True), "excalibur G9", "D5")
    t = step(state, "king D11 K11")  # seat 1: nothing to capture
    state = t.state
    assert "captured" not in t.log[0]
    assert state.shields == (True, False)
    assert not any(a[0] == "king" for a in R.legal_actions(play(state, "E6"), 1))
    state = play(state, "E6")
    with pytest.raises(IllegalActionError, match="already used the force of the King"):
        R.parse_action(state, 1, "king E8 F8")
    assert R.view(state, None)["shields"] == [True, False]


def test_lines_through_excaliburs_old_square_do_not_capture() -> None:
    state = play(
        new_game(excalibur=True),
        "excalibur G9",
        "D9",
        "H9",  # seat 1
        "E9",
        "J4",
        "F9",  # row 9: seat 0 D9 E9 F9 against H9 and Excalibur: +1
        "J5",
    )
    t = step(state, "king K5 K6")  # Excalibur leaves row 9: seat 0 is now +2 there ...
    assert advantage(t.state, 0, row(t.state, 9)) == 2
    assert at(t.state, "H9") == 1  # ... but H9 is not captured: the old line is not judged
    assert t.state.captures(0) == 0


def test_lines_through_excaliburs_old_square_are_not_held_to_the_limit() -> None:
    state = play(new_game(excalibur=True), "excalibur G9", "D9", "J4", "E9", "J5", "F9", "K4")
    assert advantage(state, 0, row(state, 9)) == 2  # three knights against Excalibur
    state = play(state, "king D6 E7")  # Excalibur leaves: +3 on row 9, allowed
    assert advantage(state, 0, row(state, 9)) == 3


def test_the_knight_may_go_on_the_square_excalibur_just_left() -> None:
    # decision: "move Excalibur ... and then place a knight": the old square is free by then.
    state = play(new_game(excalibur=True), "excalibur G9", "king D5 G9")
    assert at(state, "G9") == 0 and at(state, "D5") == "X"


def test_the_limit_holds_with_excalibur_on_the_players_side() -> None:
    state = play(new_game(excalibur=True), "excalibur K11", "D6", "J4", "E6", "J5")
    assert advantage(state, 0, row(state, 6)) == 2
    with pytest.raises(
        IllegalActionError, match="with Excalibur on your side, row 6: you would be \\+3"
    ):
        R.parse_action(state, 0, "king F6 H9")
    assert ("king", 5, 6, 7, 9) not in R.legal_actions(state, 0)
    assert ("king", 5, 7, 7, 9) in R.legal_actions(state, 0)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("king G9 E5", "must move to another square"),
        ("king D5 E5", "D5 is taken by Red's knight"),
        ("king E5 E5", "cannot go on the same square"),
        ("king E5 D5", "D5 is taken by Red's knight"),
    ],
)
def test_excalibur_moves_to_another_free_square(text: str, reason: str) -> None:
    state = play(new_game(excalibur=True), "excalibur G9", "D5", "J5")
    with pytest.raises(IllegalActionError, match=reason):
        R.parse_action(state, 0, text)


def test_the_force_of_the_king_needs_the_excalibur_variant() -> None:
    state = new_game()
    with pytest.raises(IllegalActionError, match="without Excalibur"):
        R.parse_action(state, 0, "king F7 E5")
    assert not any(a[0] == "king" for a in R.legal_actions(state, 0))
