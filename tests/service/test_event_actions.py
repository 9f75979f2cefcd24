"""Every action an engine can produce survives the stored event and replays to the same state.

The engine contract allows actions made of text, integers, booleans, ``None`` and nested
tuples (``engine/core/protocol.py``); an ``ActionApplied`` event must carry every one of
them. The property is checked over every game in the registry (and the Hoard test game) and
every config of its ``contract_configs()``, at random positions of seeded random games, on
the path the service takes: ``pbem.play.actions.action_event`` builds the payload, the event
schema validates it and canonical JSON stores it, the schema reads it back and
``pbem.core.fold.Fold`` applies it.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.core import Action, Rules, action_from_json, action_to_json, contract
from engine.core.registry import Registry
from pbem.core import events as ev
from pbem.core.events import StoredEvent
from pbem.core.fold import Fold
from pbem.play.actions import action_event
from tests.service.hidden_game import HOARD

REGISTRY: Registry = engine.REGISTRY.with_rules(cast(Rules, HOARD))
CASES = [
    (name, rules.validate_config(config))
    for name, rules in sorted(REGISTRY.items())
    for config in rules.contract_configs()
]
CASE_IDS = [f"{name}-{json.dumps(config, sort_keys=True)[:60]}" for name, config in CASES]


@cache
def _game(index: int, seed: int) -> tuple[tuple[Any, int, Action], ...]:
    """The positions of one seeded random game of ``CASES[index]`` (state, seat, action)."""
    name, config = CASES[index]
    return tuple(contract.playout(REGISTRY[name], config, seed))


def _stored(data: dict[str, Any], version: int) -> StoredEvent:
    """The event as the store writes it and reads it back: schema, canonical JSON, schema."""
    schema_version, text = ev.encode(ev.NewEvent(ev.ACTION_APPLIED, data))
    assert ev.canonical_json(json.loads(text)) == text
    payload = ev.decode(ev.ACTION_APPLIED, schema_version, text)
    return StoredEvent("g", version, ev.ACTION_APPLIED, schema_version, payload, "t", "", "")


def _check_round_trip(rules: Rules, state: Any, seat: int, action: Action) -> None:
    event, expected = action_event(rules, state, seat, action, "typed", "email", None, "t")
    stored = _stored(event.data, 8)
    assert stored.data["action"] == action_to_json(action)
    assert action_from_json(stored.data["action"]) == action, (
        f"{action!r} came back from the stored event as {stored.data['action']!r}"
    )
    fold = Fold(rules, state, 7)
    fold.apply(stored)
    assert json.dumps(rules.dump_state(fold.state), sort_keys=True) == json.dumps(
        rules.dump_state(expected), sort_keys=True
    ), f"replaying the stored {action!r} gave a different state"


@settings(
    derandomize=True,
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=st.data())
@pytest.mark.parametrize("index", range(len(CASES)), ids=CASE_IDS)
def test_random_legal_actions_survive_the_stored_event_and_replay_identically(
    index: int, data: st.DataObject
) -> None:
    name, _ = CASES[index]
    rules = REGISTRY[name]
    seed = data.draw(st.integers(0, 7), label="seed")
    positions = _game(index, seed)
    state, _, _ = positions[data.draw(st.integers(0, len(positions) - 1), label="step")]
    seat = data.draw(st.sampled_from(sorted(rules.to_act(state))), label="seat")
    legal = rules.legal_actions(state, seat)
    action = legal[data.draw(st.integers(0, len(legal) - 1), label="action")]
    _check_round_trip(rules, state, seat, action)


@pytest.mark.parametrize("index", range(len(CASES)), ids=CASE_IDS)
def test_every_legal_action_of_a_whole_game_fits_the_event_schema(index: int) -> None:
    """Not a sample: every legal action of every seat at every position of one game (a
    spread sample where a position has very many) is stored and read back unchanged."""
    name, _ = CASES[index]
    rules = REGISTRY[name]
    checked = 0
    for state, _, _ in _game(index, 0):
        for seat in sorted(rules.to_act(state)):
            for action in contract._round_trip_sample(rules.legal_actions(state, seat)):
                data = {
                    "seat": seat,
                    "text": "",
                    "canonical": "",
                    "action": action_to_json(action),
                    "channel": "api",
                    "channel_ref": None,
                    "received_at": "t",
                    "irreversible": False,
                    "secret": False,
                    "log": [],
                    "nonce": None,
                }
                assert action_from_json(_stored(data, 2).data["action"]) == action
                checked += 1
    assert checked > 0


def test_lancaster_actions_with_none_are_stored_as_null() -> None:
    """The actions that failed with a 500 everywhere (``favor gold`` and others carry a
    None) are among those checked above, and are stored as JSON null."""
    rules = engine.REGISTRY["lancaster"]
    index = CASES.index(("lancaster", rules.validate_config({"players": 3})))
    with_none = [(state, seat, action) for state, seat, action in _game(index, 0) if None in action]
    assert with_none, "a random Lancaster game plays no action with a None in it"
    texts = {rules.format_action(state, action) for state, _, action in with_none}
    assert any(t.startswith("favor") for t in texts), sorted(texts)
    state, seat, action = with_none[0]
    event, _ = action_event(rules, state, seat, action, "x", "api", None, "t")
    _, text = ev.encode(event)
    assert json.loads(text)["action"] == action_to_json(action)
    assert "null" in json.dumps(json.loads(text)["action"])


@pytest.mark.parametrize(
    "action",
    [
        ["favor", "gold", 1.5],
        ["nested", {"an": "object"}],
        "not a list",
        [["deep", [float("nan")]]],
    ],
)
def test_an_action_outside_the_contract_is_refused_with_the_reason(action: Any) -> None:
    data = {
        "seat": 0,
        "text": "",
        "canonical": "",
        "action": action,
        "channel": "api",
        "channel_ref": None,
        "received_at": "t",
        "irreversible": False,
        "secret": False,
        "log": [],
        "nonce": None,
    }
    with pytest.raises(ev.EventDataError, match="action"):
        ev.encode(ev.NewEvent(ev.ACTION_APPLIED, data))
