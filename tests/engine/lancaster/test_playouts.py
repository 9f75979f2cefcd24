"""Seeded random playouts: 500 full games over every player count, with the invariants of
the issue checked after every action."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.core import contract
from engine.lancaster.state import State
from tests.engine.lancaster.helpers import R

GAMES_PER_COUNT = 125  # x 4 player counts = 500 games


def check_invariants(s: State) -> None:
    data = s.data
    assert 1 <= s.round <= data.rounds
    for colour, c in enumerate(s.colours):
        # Each colour has exactly its 7 knights across court, board, castle and reserve.
        pieces = list(c.court) + list(c.reserve) + [k for k in c.castle if k is not None]
        pieces += [o.strength for o in s.counties if o is not None and o.colour == colour]
        for _, _, card in s.conflicts():
            pieces += [k for sp in card.spaces if sp.colour == colour for k in sp.knights]
        assert Counter(pieces) == Counter(data.knights), (colour, pieces)
        # No resource is ever negative.
        assert min(c.gold, c.squires, c.voting_markers, c.power) >= 0
        # No nobleman letter twice in one hand.
        assert len(set(c.nobles)) == len(c.nobles)
        assert not (set(c.extensions) & {n for n, k in enumerate(c.castle, 1) if k is not None})
        if s.is_ally(colour):
            assert (c.gold, c.squires, c.voting_markers, c.power, c.nobles) == (0, 0, 0, 0, ())
            assert c.extensions == ()
    assert all(n >= 0 for n in s.nobles)
    # Each county holds at most one knight, strong enough on its own.
    assert len(s.counties) == 9
    for i, occ in enumerate(s.counties):
        if occ is not None:
            assert occ.strength >= data.counties[i].minimum and occ.squires >= 0
    # A conflict space holds one colour; a colour holds at most one space per card.
    for _, _, card in s.conflicts():
        assert len(card.spaces) <= 3
        colours = [sp.colour for sp in card.spaces]
        assert len(colours) == len(set(colours))
        assert all(sp.knights for sp in card.spaces) or s.agenda[0][0] in ("ransom", "captured")
    assert set(s.favors) <= set(s.favors_in_game)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_games_keep_every_invariant_and_end_after_round_5(players: int) -> None:
    finished = 0
    for seed in range(GAMES_PER_COUNT):
        state = contract.random_game(
            R,
            {"players": players},
            1000 * players + seed,
            max_steps=5000,
            on_step=lambda _before, _seat, _action, after: check_invariants(after),
        )
        assert state.round == 5 and state.finished
        outcome = R.outcome(state)
        assert outcome is not None and len(outcome.scores) == players
        finished += 1
    assert finished == GAMES_PER_COUNT


def test_deadline_defaults_alone_play_a_whole_game_legally() -> None:
    for players in (2, 3, 4, 5):
        state = R.initial_state({"players": players}, players)
        while R.to_act(state):
            seat = min(R.to_act(state))
            action = R.auto_action(state, seat)
            assert action in R.legal_actions(state, seat)
            state = R.apply(state, seat, action).state
            check_invariants(state)
        assert R.outcome(state) is not None
