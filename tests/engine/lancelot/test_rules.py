"""Lancelot's base rules (rules/lancelot.md), one scenario each, built by playing moves.

Two players play on D4–K11 unless a test says otherwise; seat 0 moves first.
"""

from __future__ import annotations

import pytest

from engine.core.protocol import IllegalActionError, NotYourTurnError
from engine.lancelot.state import KNIGHTS
from tests.engine.lancelot.helpers import R, advantage, at, column, new_game, play, row, step


@pytest.mark.parametrize(
    ("players", "first", "last", "squares", "target"),
    [
        (2, "D4", "K11", 64, 7),
        (3, "C3", "L12", 100, 8),
        (4, "B2", "M13", 144, 9),
        (5, "A1", "N14", 196, 10),
    ],
)
def test_the_area_and_capture_target_depend_on_the_player_count(
    players: int, first: str, last: str, squares: int, target: int
) -> None:
    state = new_game(players)
    legal = R.legal_actions(state, 0)
    # Every square of the area is open on the first turn, and no other square exists.
    assert len(legal) == squares
    assert R.format_action(state, legal[0]) == first
    assert R.format_action(state, legal[-1]) == last
    assert state.target == target
    assert R.view(state, None)["area"]["from"] == first


def test_each_player_has_thirty_knights_and_seat_0_starts() -> None:
    state = new_game(3)
    assert state.in_hand == (KNIGHTS, KNIGHTS, KNIGHTS) == (30, 30, 30)
    assert R.to_act(state) == frozenset({0})
    assert R.legal_actions(state, 1) == ()
    with pytest.raises(NotYourTurnError):
        R.parse_action(state, 1, "E5")
    state = play(state, "E5")
    assert state.in_hand == (29, 30, 30)
    assert R.to_act(state) == frozenset({1})
    state = play(state, "F6", "G7")
    assert R.to_act(state) == frozenset({0})  # turns go round in seat order


def test_a_knight_goes_on_a_free_square_and_never_moves() -> None:
    state = play(new_game(), "E5")
    with pytest.raises(IllegalActionError, match="E5 is taken by Red's knight"):
        R.parse_action(state, 1, "E5")
    assert ("place", 4, 5) not in R.legal_actions(state, 1)
    state = play(state, "F6", "G7", "H8")
    assert at(state, "E5") == 0


def test_the_limit_forbids_a_square_that_would_give_more_than_plus_two() -> None:
    # Seat 0 holds D4 and E4 alone on row 4: +2. A third knight there would be +3.
    state = play(new_game(), "D4", "H8", "E4", "H9")
    assert advantage(state, 0, row(state, 4)) == 2
    with pytest.raises(IllegalActionError) as error:
        R.parse_action(state, 0, "F4")
    assert "row 4: you would be +3" in str(error.value)
    assert all(R.format_action(state, a)[1:] != "4" for a in R.legal_actions(state, 0))
    # The limit is per seat: the other player may still place on row 4.
    state = play(state, "J9")
    assert ("place", 5, 4) in R.legal_actions(state, 1)


def test_placing_at_exactly_plus_two_captures_every_opposing_knight_on_the_line() -> None:
    state = play(new_game(), "D5", "J5", "E5")
    assert advantage(state, 0, row(state, 5)) == 1
    t = step(state, "F9")  # seat 1 elsewhere
    t = step(t.state, "G5")  # seat 0: three against one on row 5: +2
    state = t.state
    assert at(state, "J5") is None  # captured: removed from the board ...
    assert state.captures(0) == 1  # ... and counted for the capturer
    assert state.lost(1) == 1
    assert [at(state, sq) for sq in ("D5", "E5", "G5")] == [0, 0, 0]  # the victor's stay
    assert state.in_hand == (27, 28)  # captured knights do not come back
    assert "captured 1 knight on row 5 (J5): Blue lost 1" in t.log[0]


def test_order_along_the_line_and_empty_squares_do_not_matter() -> None:
    # Seat 1's knight at the end of the row, not enclosed, with gaps everywhere: still taken.
    state = play(new_game(), "D7", "K7", "F7", "E10", "I7")
    assert at(state, "K7") is None
    assert state.captures(0) == 1


def test_a_lone_majority_below_plus_two_captures_nothing() -> None:
    state = play(new_game(), "D6", "J6", "E6", "F10")
    assert advantage(state, 0, row(state, 6)) == 1
    assert at(state, "J6") == 1
    assert state.captures(0) == 0


def test_one_placement_captures_on_its_row_and_its_column_at_once() -> None:
    # The rules' example 2: K4 wins on row 4 and column K together.
    state = play(
        new_game(),
        "D4",  # seat 0
        "F4",  # seat 1, on row 4
        "E4",  # row 4: seat 0 +1
        "K8",  # seat 1, on column K
        "K6",
        "G9",
        "K7",  # column K: seat 0 +1
        "H10",
    )
    assert advantage(state, 0, row(state, 4)) == 1
    assert advantage(state, 0, column(state, "K")) == 1
    t = step(state, "K4")
    assert at(t.state, "F4") is None
    assert at(t.state, "K8") is None
    assert t.state.captures(0) == 2
    assert "row 4 and column K" in t.log[0]


def test_all_opponents_count_together_against_the_placer() -> None:
    # Three players on C3–L12. On row 3 seat 0 faces one knight of seat 1 and one of seat 2.
    state = play(
        new_game(3),
        "C3",  # seat 0
        "F3",  # seat 1
        "G3",  # seat 2
        "D3",  # seat 0: 2 against 2
        "F8",
        "G10",
        "E3",  # seat 0: 3 against 2 = +1 (against either opponent alone it would be +2)
        "I9",
        "H11",
    )
    assert at(state, "F3") == 1 and at(state, "G3") == 2
    assert state.captures(0) == 0
    t = step(state, "H3")  # 4 against 2 = +2: both opponents' knights are captured
    assert at(t.state, "F3") is None and at(t.state, "G3") is None
    assert t.state.captured[0] == (0, 1, 1)
    assert "Blue lost 1, Yellow lost 1" in t.log[0]


def test_broken_order_after_a_capture_others_may_place_the_majority_may_not() -> None:
    state = play(
        new_game(),
        "D4",
        "F4",
        "E4",
        "G4",  # row 4: two against two
        "H4",  # seat 0 +1
        "F9",
        "I4",  # seat 0: 4 against 2 = +2, captures F4 and G4
    )
    assert state.captures(0) == 2
    assert advantage(state, 0, row(state, 4)) == 4  # more than +2: allowed after a capture
    # Seat 1 may place on the line without being captured by the existing majority.
    t = step(state, "J4")
    state = t.state
    assert at(state, "J4") == 1
    assert state.captures(0) == 2
    assert "captured" not in t.log[0]
    # The majority holder cannot place on it: it would be over +2.
    with pytest.raises(IllegalActionError, match="row 4: you would be \\+4"):
        R.parse_action(state, 0, "K4")
    assert not any(a[2] == 4 for a in R.legal_actions(state, 0))


def test_removing_knights_never_triggers_further_captures() -> None:
    state = play(
        new_game(),
        "D4",
        "F4",  # seat 1: the knight to be captured, also on column F
        "F6",
        "F8",
        "F7",
        "J10",
        "F9",  # column F: seat 0 F6 F7 F9 against F4 F8: +1
        "J11",
        "E4",  # row 4: seat 0 +1
        "K10",
        "G4",  # row 4: +2, captures F4 ...
    )
    assert at(state, "F4") is None
    # ... which leaves seat 0 at +2 on column F against F8; that is not a placement there,
    # so F8 stays (decision: captures come only from the lines through the placed square).
    assert advantage(state, 0, column(state, "F")) == 2
    assert at(state, "F8") == 1
    assert state.captures(0) == 1


def test_a_lower_target_agreed_at_creation_ends_the_game_at_once() -> None:
    moves = ("D4", "F4", "E4", "K8", "K6", "G9", "K7", "H10", "K4")  # K4 captures two
    usual = play(new_game(), *moves)
    assert not usual.finished and usual.captures(0) == 2
    short = new_game(target=2)
    t = step(play(short, *moves[:-1]), moves[-1])
    state = t.state
    assert state.finished
    assert R.to_act(state) == frozenset()
    assert R.legal_actions(state, 1) == ()
    outcome = R.outcome(state)
    assert outcome is not None
    assert outcome.winners == (0,)
    assert outcome.scores == (2, 0)
    assert "Red reached 2 captures and wins" in t.log[-1]
    with pytest.raises(NotYourTurnError, match="over"):
        R.apply(state, 1, ("place", 8, 8))
