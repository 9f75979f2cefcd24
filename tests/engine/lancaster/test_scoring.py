"""Final scoring after round 5 (decision: rules/README.md, Lancaster 10)."""

from __future__ import annotations

import pytest

from engine.core.protocol import Outcome
from tests.engine.lancaster.helpers import BLUE, GREEN, RED, YELLOW, Game, R

# Reserves giving knighthood strengths (all 7 knights total 14).
RESERVE_FOR = {14: (), 13: (1,), 12: (2,), 11: (3,), 10: (4,), 9: (1, 4), 8: (2, 4), 6: (4, 3, 1)}


def finished(players: int, **per_seat: dict[str, object]) -> Outcome:
    g = Game(players)
    for seat in range(players):
        spec = dict(per_seat.get(f"s{seat}", {}))
        strength = int(spec.pop("strength", 6))  # type: ignore[call-overload]
        g.edit_colour(
            seat,
            reserve=tuple(sorted(RESERVE_FOR[strength])),
            court=(),
            castle=(None,) * 6,
            extensions=tuple(range(1, 1 + int(spec.pop("ext", 1)))),  # type: ignore[call-overload]
            **spec,
        )
    g.edit(agenda=())
    outcome = R.outcome(g.state)
    assert outcome is not None
    return outcome


def points(outcome: Outcome, key: str) -> list[int]:
    return [b[key] for b in outcome.breakdown]


def test_knighthood_most_strength_8_second_4() -> None:
    o = finished(3, s0={"strength": 10}, s1={"strength": 8}, s2={"strength": 6})
    assert points(o, "knighthood") == [8, 4, 0]
    assert points(o, "knighthood_strength") == [10, 8, 6]


def test_knighthood_tie_broken_by_most_squires() -> None:
    o = finished(3, s0={"strength": 10, "squires": 1}, s1={"strength": 10, "squires": 3})
    assert points(o, "knighthood") == [4, 8, 0]


def test_knighthood_still_tied_for_first_shares_12_rounded_down() -> None:
    o = finished(3, s0={"strength": 10, "squires": 2}, s1={"strength": 10, "squires": 2})
    assert points(o, "knighthood") == [6, 6, 0]
    o = finished(4, **{f"s{s}": {"strength": 12} for s in range(3)})
    assert points(o, "knighthood") == [4, 4, 4, 0]
    o = finished(5, **{f"s{s}": {"strength": 12} for s in range(5)})
    assert points(o, "knighthood") == [2, 2, 2, 2, 2]  # 12 / 5 rounded down


def test_knighthood_tied_for_second_shares_4_rounded_down() -> None:
    o = finished(3, s0={"strength": 12})
    assert points(o, "knighthood") == [8, 2, 2]
    o = finished(4, s0={"strength": 12})
    assert points(o, "knighthood") == [8, 1, 1, 1]


def test_castle_most_extensions_8_second_4_tie_broken_by_gold() -> None:
    o = finished(3, s0={"ext": 3, "gold": 1}, s1={"ext": 3, "gold": 4}, s2={"ext": 2, "gold": 9})
    assert points(o, "castle") == [4, 8, 0]
    o = finished(3, s0={"ext": 3, "gold": 2}, s1={"ext": 3, "gold": 2})
    assert points(o, "castle") == [6, 6, 0]


@pytest.mark.parametrize(
    ("count", "score"), [(0, 0), (1, 0), (2, 1), (3, 3), (4, 6), (5, 10), (6, 15), (9, 36)]
)
def test_noblemen_score_n_times_n_minus_1_over_2(count: int, score: int) -> None:
    o = finished(3, s0={"nobles": tuple("ABCDEFGHI"[:count])})
    assert points(o, "noblemen")[RED] == score


def test_most_power_points_wins_and_a_tie_is_a_shared_win() -> None:
    o = finished(3, s0={"power": 30}, s1={"power": 30}, s2={"power": 10})
    assert o.scores[RED] == o.scores[BLUE] and o.winners == (RED, BLUE)
    o = finished(3, s0={"power": 30, "strength": 12}, s1={"power": 30})
    assert o.winners == (RED,)
    b = o.breakdown[RED]
    assert b["total"] == b["during_game"] + b["knighthood"] + b["castle"] + b["noblemen"]
    assert o.scores[RED] == b["total"]


def test_outcome_is_none_until_the_game_is_over() -> None:
    assert R.outcome(Game(4).state) is None


def test_the_game_ends_after_round_5_with_the_final_scoring() -> None:
    g = Game(4)
    g.setup(1, 2, 3, 4)
    rounds_seen = set()
    while g.state.agenda:
        rounds_seen.add(g.state.round)
        seat = min(g.to_act)
        g.apply(seat, R.auto_action(g.state, seat))
    assert rounds_seen == {1, 2, 3, 4, 5}
    assert g.said("Round 5 is over: the game ends with the final scoring.")
    outcome = R.outcome(g.state)
    assert outcome is not None and len(outcome.scores) == 4
    assert g.view(GREEN)["players"][YELLOW]["gold"] == g.c(YELLOW).gold  # screens lifted
