"""Passing and the end of the game (rules/lancelot.md, End).

Positions where a seat cannot place arise late in full games, so these tests take them from
seeded random games (the first seed in a fixed range that reaches one) and then check the
rule there against the reference reading of the rules.
"""

from __future__ import annotations

import pytest

from engine.core.protocol import IllegalActionError
from engine.lancelot.state import COLOURS
from tests.engine.lancelot import reference
from tests.engine.lancelot.helpers import LONG_GAME, R, at, final_state, first_step, new_game


def test_pass_is_refused_while_a_square_is_open() -> None:
    state = new_game()
    with pytest.raises(IllegalActionError, match="cannot pass while you can place a knight"):
        R.parse_action(state, 0, "pass")
    assert ("pass",) not in R.legal_actions(state, 0)


def test_a_seat_with_knights_but_no_open_square_must_pass() -> None:
    state, seat, _action, _t = first_step(
        LONG_GAME, lambda s: s[2] == ("pass",) and s[0].in_hand[s[1]] > 0
    )
    assert not reference.can_place(state, seat)  # every free square breaks the limit
    assert R.legal_actions(state, seat) == (("pass",),)
    free = [name for name in state.geo.names if at(state, name) is None]
    assert free
    for name in free:
        with pytest.raises(IllegalActionError, match="you would be \\+"):
            R.parse_action(state, seat, name)
    assert R.parse_action(state, seat, "Pass") == ("pass",)
    after = R.apply(state, seat, ("pass",))
    assert after.log == (f"{COLOURS[seat]} could not place a knight and passed.",)
    assert after.state.board == state.board
    assert after.state.in_hand == state.in_hand
    # Someone else can still place, so the game goes on with the next seat.
    assert not after.state.finished
    assert R.to_act(after.state) == frozenset({(seat + 1) % state.players})


def test_a_seat_with_no_knights_left_must_pass() -> None:
    state, seat, _action, _t = first_step(
        LONG_GAME, lambda s: s[0].in_hand[s[1]] == 0 and not s[0].finished
    )
    assert R.legal_actions(state, seat) == (("pass",),)
    free = next(name for name in state.geo.names if at(state, name) is None)
    with pytest.raises(IllegalActionError, match="no knights left"):
        R.parse_action(state, seat, free)
    other = (seat + 1) % state.players
    assert reference.can_place(state, other)  # the game is not over while others can place


def test_when_no_one_can_place_the_game_ends_and_the_most_captures_win() -> None:
    final = final_state(
        LONG_GAME,
        lambda s: s.end == "blocked" and len(s.winners) == 1,
    )
    assert final.finished and R.to_act(final) == frozenset()
    assert not any(reference.can_place(final, s) for s in range(final.players))
    captures = [final.captures(s) for s in range(final.players)]
    outcome = R.outcome(final)
    assert outcome is not None
    assert list(outcome.scores) == captures
    assert outcome.winners == (captures.index(max(captures)),)
    assert "no one can place a knight any more" in R.view(final, None)["prompt"]


def test_equal_capture_counts_share_the_win() -> None:
    final = final_state(
        {"players": 3, "target": 60},
        lambda s: s.end == "blocked" and len(s.winners) > 1,
    )
    captures = [final.captures(s) for s in range(final.players)]
    outcome = R.outcome(final)
    assert outcome is not None
    assert outcome.winners == tuple(s for s, c in enumerate(captures) if c == max(captures))
    assert len(outcome.winners) >= 2
    names = " and ".join(COLOURS[s] for s in outcome.winners)
    assert f"{names} share the win" in R.view(final, 0)["prompt"]


def test_the_game_ends_at_once_when_no_one_can_place_without_a_round_of_passes() -> None:
    # decision (rules/lancelot.md, End): the last placement that leaves every seat without
    # an open square ends the game; nobody is asked to pass first.
    _state, _seat, action, t = first_step(
        LONG_GAME,
        lambda s: s[3].state.end == "blocked",
    )
    assert action != ("pass",)
    final = t.state
    assert not any(reference.can_place(final, s) for s in range(final.players))
