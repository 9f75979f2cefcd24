"""The spots of Lancaster's drawn board (``web.games.lancaster_board.targets``): along random
games of each family of configurations, every option of the seat to act is in exactly one
spot's panel, and the spot is the place a player reaches for (a vote at the law being voted,
a favor at its tile, a ransom at France, an ally's castle space apart from the seat's own)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import REGISTRY
from web.games.lancaster_board import board

ALL_HENRY_V = {"kings_court": True, "resentment": True, "laws_of_the_king": True}


@pytest.mark.parametrize(
    "config",
    [{"players": 3}, {"players": 2}, {"players": 3, "expansions": ALL_HENRY_V}],
    ids=["base", "2p", "henry"],
)
def test_every_option_has_one_spot_and_the_right_one(config: dict[str, Any]) -> None:
    rules = REGISTRY["lancaster"]
    state = rules.initial_state(rules.validate_config(config), 11)
    rnd = random.Random(4)
    kinds: set[str] = set()
    for _ in range(400):
        if rules.outcome(state) is not None:
            break
        seat = rnd.choice(sorted(rules.to_act(state)))
        choices = rules.choices(state, seat)
        spots = board(rules.view(state, seat), list(choices.groups))["lb"]["spots"]
        placed = [(key, o) for key, t in spots.items() for s in t.steps for o in s.options]
        assert sorted(o.text for _, o in placed) == sorted(o.text for o in choices.all_options())
        for key, option in placed:
            verb = option.action[0]
            kinds.add(key.split(" ")[0])
            if verb == "vote":
                assert key == "vote"
            elif verb == "favor":
                assert key == f"favor {option.action[1]}"
            elif verb == "ransom":
                assert key == "france"
            elif verb == "place" and option.action[3][0] == "castle":
                mine = f"castle {option.action[3][1]}"
                assert key == (f"ally {mine}" if option.action[1] else mine)
            elif verb == "place" and option.action[3][0] == "county":
                assert key == f"county {option.action[3][1]}"
        state = rules.apply(state, seat, rnd.choice(rules.legal_actions(state, seat))).state
    assert {"county", "castle", "vote"} <= kinds, kinds
    if "expansions" in config:
        assert {"office", "treasury", "tower"} <= kinds, kinds
    if config["players"] == 2:
        assert "ally" in kinds, kinds
