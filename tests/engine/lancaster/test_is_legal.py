"""``is_legal`` (the offline verifier's legality test) answers exactly what membership of
``legal_actions`` answers, at every step of seeded games of every player count (allies in the
2-player game) and of the Henry V modules, for every legal action and for actions next to
them: another knight, the ally flag as a number, one squire more or less, another seat's."""

from __future__ import annotations

from typing import Any

import pytest

from engine import REGISTRY
from engine.core import contract
from engine.core.protocol import Action

RULES = REGISTRY.release("lancaster", "2.1.0")
CONFIGS = [
    {"players": 2},
    {"players": 3},
    {"players": 5},
    {"players": 4, "expansions": dict.fromkeys(("kings_court", "resentment"), True)},
    {"players": 3, "new_laws": "combine"},
]


def _near(action: Action) -> list[Action]:
    """Actions next to ``action``: each item changed in a way a bundle could change it."""
    out: list[Action] = [(*action, 0), action[:-1]]
    for i, item in enumerate(action):
        changes: list[Any] = [None, "x"]
        if isinstance(item, bool):
            changes += [not item, int(item), int(not item)]
        elif isinstance(item, int):
            changes += [item - 1, item + 1, bool(item)]
        for changed in changes:
            out.append((*action[:i], changed, *action[i + 1 :]))
    return out


@pytest.mark.parametrize("config", CONFIGS, ids=str)
def test_is_legal_is_membership_of_legal_actions(config: dict[str, Any]) -> None:
    checked = 0
    for state, _, _ in contract.playout(RULES, config, contract.CONTRACT_SEEDS[1]):
        for seat in range(config["players"]):
            legal = set(RULES.legal_actions(state, seat))
            asked = {near for a in legal for near in _near(a)} | legal
            for action in asked:
                assert RULES.is_legal(state, seat, action) == (action in legal), (seat, action)
                checked += 1
    assert checked > 1000
