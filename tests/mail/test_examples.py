"""The examples a mail offers ("You can type, for example: …"): a spread of what the seat may
type now, not only the first kind of move in the rules' sorted list."""

from __future__ import annotations

from typing import Any

import engine
from engine.core.contract import random_game
from pbem.mail.outbound.compose import MAX_EXAMPLES, can_type


def _lancaster_placement() -> tuple[Any, Any, int]:
    rules = engine.REGISTRY["lancaster"]
    config = rules.validate_config({"players": 3, "expansions": {"kings_court": True}})
    state = rules.initial_state(config, 5)
    while rules.view(state, None)["phase"] == "setup":
        seat = min(rules.to_act(state))
        state = rules.apply(state, seat, rules.auto_action(state, seat)).state
    return rules, state, min(rules.to_act(state))


def test_a_placement_turn_offers_knight_moves_as_well_as_the_lords() -> None:
    rules, state, seat = _lancaster_placement()
    legal = [rules.format_action(state, a) for a in rules.legal_actions(state, seat)]
    assert all(text.startswith("lord") for text in legal[:MAX_EXAMPLES])  # the list's head
    offered = can_type(rules, state, seat).split(" … ")[0].split(", ")
    assert any(text.startswith("lord") for text in offered)
    assert any(text.startswith("knight") for text in offered)
    assert len(offered) <= MAX_EXAMPLES and offered[0] == legal[0]
    assert set(offered) <= set(legal)


def test_few_moves_are_all_offered() -> None:
    rules = engine.REGISTRY["lancaster"]
    state = rules.initial_state(rules.validate_config({"players": 3}), 5)
    seat = min(rules.to_act(state))
    legal = [rules.format_action(state, a) for a in rules.legal_actions(state, seat)]
    assert len(legal) <= MAX_EXAMPLES
    assert can_type(rules, state, seat) == ", ".join(legal)


def test_a_finished_game_offers_nothing_to_type() -> None:
    rules = engine.REGISTRY["lancelot"]
    final = random_game(rules, rules.validate_config({"players": 2}), 3)
    assert not rules.to_act(final)
    assert can_type(rules, final, 0) == "nothing: the game is over"
    # A seat waiting for another is told what still works (undo, show, help).
    state = rules.initial_state(rules.validate_config({"players": 2}), 3)
    waiting = next(s for s in range(2) if s not in rules.to_act(state))
    assert can_type(rules, state, waiting).startswith("no move now (you are not to act)")
