"""Lancelot notation (rules/lancelot.md, Notation) and the errors a player reads."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.protocol import ActionSyntaxError, EngineError, IllegalActionError
from tests.engine.lancelot.helpers import R, new_game, play


@pytest.mark.parametrize(
    ("action", "text"),
    [
        (("place", 4, 5), "E5"),
        (("king", 5, 7, 4, 5), "king F7 E5"),
        (("excalibur", 6, 9), "excalibur G9"),
        (("pass",), "pass"),
        (("place", 13, 14), "N14"),
    ],
)
def test_actions_are_written_as_in_the_rules(action: tuple[object, ...], text: str) -> None:
    assert R.format_action(new_game(5), action) == text


@pytest.mark.parametrize(
    "text", ["E5", "e5", "  E5  ", "E 5", "place e5", "Play E5.", "e5!", "E5 please", "E five"]
)
def test_a_placement_is_read_forgivingly(text: str) -> None:
    assert R.parse_action(new_game(), 0, text) == ("place", 4, 5)


@pytest.mark.parametrize("text", ["king F7 E5", "KING f7 e5", "king f7, e5", " King  F 7  E5 "])
def test_the_force_of_the_king_is_read_forgivingly(text: str) -> None:
    state = play(new_game(excalibur=True), "excalibur K11")
    assert R.parse_action(state, 0, text) == ("king", 5, 7, 4, 5)


@pytest.mark.parametrize("text", ["excalibur G9", "Excalibur g9", "EXCALIBUR, G9"])
def test_the_opening_excalibur_placement_is_read_forgivingly(text: str) -> None:
    assert R.parse_action(new_game(excalibur=True), 1, text) == ("excalibur", 6, 9)


def _syntax_error(text: str, players: int = 2) -> ActionSyntaxError:
    with pytest.raises(ActionSyntaxError) as error:
        R.parse_action(new_game(players), 0, text)
    return error.value


def test_a_square_off_the_board_is_not_understood_and_examples_are_given() -> None:
    error = _syntax_error("Z99")
    message = str(error)
    assert "Z99 is not a square of this board" in message
    assert "D4-K11" in message
    assert "You can type, for example: G7, D4" in message  # the default move first
    assert error.can_type
    state = new_game()
    for example in error.can_type:  # every example given really can be typed now
        assert R.parse_action(state, 0, example) in R.legal_actions(state, 0)


def test_a_square_outside_the_area_of_this_player_count_is_not_understood() -> None:
    assert "with 2 players the area is D4-K11 (columns D to K, rows 4 to 11)" in str(
        _syntax_error("A1")
    )
    assert R.parse_action(new_game(5), 0, "A1") == ("place", 0, 1)


def test_words_that_are_not_understood_are_quoted_back_and_nothing_is_played() -> None:
    message = str(_syntax_error("place somewhere"))
    assert (
        "I could not understand 'somewhere' in 'place somewhere' as a knight's placement "
        "(a square, e.g. 'E5'), so nothing was played"
    ) in message
    assert "You can type, for example: G7" in message
    message = str(_syntax_error("hello e"))
    assert "'e'" in message and "like E5" in message  # a lone letter is not a square


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("", "I found no move"),
        ("please", "I found no move in 'please': no square is named"),
        ("E5 F6", "names two squares (E5, F6); a turn places one knight"),
        ("pass now", "I could not understand 'now'"),
        ("pass E5", "says 'pass' and names a move"),
        ("two knights on E5", "you place one knight per turn"),
        ("E5?", "is a question, not a move"),
        ("Blue: E5", "You play Red; Blue is another player's colour"),
    ],
)
def test_incomplete_extra_or_unclear_words_are_explained(text: str, said: str) -> None:
    assert said in str(_syntax_error(text))


@pytest.mark.parametrize("text", ["king F7 E5", "C3 with shield", "excalibur G9", "sword E5"])
def test_without_the_variant_excalibur_and_the_shield_are_refused(text: str) -> None:
    with pytest.raises(IllegalActionError, match="played without Excalibur"):
        R.parse_action(new_game(3), 0, text)


def test_the_force_of_the_king_is_never_half_read() -> None:
    state = play(new_game(excalibur=True), "excalibur K11")
    for text, said in [
        ("king F7", "'king' needs two squares"),
        ("E5 with my shield", "'shield' is the force of the King: it needs two squares"),
        ("excalibur", "'excalibur' needs the square"),
        ("F7 E5 excalibur", "I cannot tell which square is for Excalibur"),
        ("excalibur F7 excalibur E5", "gives both squares (F7, E5) to the excalibur"),
        ("move excalibur from G9 to F7, knight E5", "Excalibur is not on G9: it stands on K11"),
    ]:
        with pytest.raises(ActionSyntaxError) as error:
            R.parse_action(state, 0, text)
        assert said in str(error.value), text


def test_a_forbidden_square_names_the_line_and_the_advantage() -> None:
    state = play(new_game(), "D4", "H8", "E4", "H9")
    with pytest.raises(IllegalActionError) as error:
        R.parse_action(state, 0, "f4")
    assert str(error.value) == "F4 is forbidden to you: row 4: you would be +3 (the limit is +2)."


def test_every_line_over_the_limit_is_named() -> None:
    state = play(new_game(), "D4", "H8", "E4", "H9", "G6", "J10", "G7", "J11")
    with pytest.raises(IllegalActionError) as error:
        R.parse_action(state, 0, "G4")
    assert "row 4: you would be +3; column G: you would be +3" in str(error.value)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_any_text_is_either_an_action_or_an_error_for_the_player(text: str) -> None:
    state = play(new_game(3, excalibur=True), "excalibur G9")
    try:
        action = R.parse_action(state, 0, text)
    except EngineError as error:
        assert str(error)
    else:
        assert action in R.legal_actions(state, 0)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from("abcdefghijklmnopqrstuvwxyz"),
    st.integers(min_value=0, max_value=20),
    st.sampled_from(["", " ", "  ", ", "]),
)
def test_any_square_like_text_is_read_or_refused_as_off_the_board(
    letter: str, number: int, gap: str
) -> None:
    state = new_game(4)  # B2–M13
    text = f"{letter}{gap}{number}"
    inside = "b" <= letter <= "m" and 2 <= number <= 13
    if inside:
        action = R.parse_action(state, 0, text)
        assert R.format_action(state, action) == f"{letter.upper()}{number}"
    else:
        with pytest.raises(ActionSyntaxError, match="not a square of this board"):
            R.parse_action(state, 0, text)
