"""The engine's fast legal-action listing agrees with trying every candidate action against
the simple reference reading of the rules (tests/engine/lancelot/reference.py)."""

from __future__ import annotations

import pytest

from engine.core.protocol import EngineError
from tests.engine.lancelot import reference
from tests.engine.lancelot.helpers import R, random_game


@pytest.mark.parametrize("excalibur", [False, True])
@pytest.mark.parametrize("diagonals", [False, True])
@pytest.mark.parametrize("players", [2, 3])
def test_legal_actions_are_exactly_the_actions_the_rules_allow(
    players: int, diagonals: bool, excalibur: bool
) -> None:
    config = {"players": players, "variants": {"diagonals": diagonals, "excalibur": excalibur}}
    steps = random_game(config, seed=players * 10 + 2 * diagonals + excalibur, king_one_in=6)
    # The opening turns (shields still held) and a handful of positions spread over the game.
    picks = steps[:4] + steps[4 :: max(1, len(steps) // 5)]
    kings_seen = 0
    for state, seat, _action, _t in picks:
        expected = reference.legal_actions(state, seat)
        legal = R.legal_actions(state, seat)
        assert len(set(legal)) == len(legal)
        assert set(legal) == expected, (
            f"engine-only: {sorted(set(legal) - expected)[:5]}, "
            f"reference-only: {sorted(expected - set(legal))[:5]}"
        )
        kings_seen += sum(1 for a in legal if a[0] == "king")
    if excalibur:
        assert kings_seen > 0


@pytest.mark.parametrize("players", [2, 4])
def test_every_refused_placement_is_refused_with_a_reason(players: int) -> None:
    """parse_action accepts exactly the legal squares; the others raise a player's error."""
    config = {"players": players, "variants": {"diagonals": True}}
    steps = random_game(config, seed=5)
    state, seat, _action, _t = steps[len(steps) // 2]
    legal = set(R.legal_actions(state, seat))
    for name in state.geo.names:
        try:
            action = R.parse_action(state, seat, name)
        except EngineError as error:
            assert ("place", *state.geo.coords[state.geo.index_of[name]]) not in legal
            assert str(error)
        else:
            assert action in legal
