"""The contract suite: checks every game in ``engine.REGISTRY`` must pass.

Plain functions that raise ``AssertionError`` with a readable message, so that any test
runner (``tests/engine/test_contract.py``) or a new game's author can call them. They use our
own generator for their random choices, so a failure is reproducible from its seed.
"""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

from engine.core import rng
from engine.core.protocol import (
    Action,
    ChoiceGroup,
    Choices,
    Rules,
    Seat,
    action_from_json,
    action_sort_key,
    action_to_json,
    choices_of,
)

# Large seeds, so that their decimal digits cannot appear in a view by coincidence.
CONTRACT_SEEDS = (2**100 + 12345, 2**101 + 67890)


def _pick(state: int, options: tuple[Action, ...]) -> tuple[Action, int]:
    index, state = rng.below(state, len(options))
    return options[index], state


def _next_seat(rules: Rules, state: Any, r: int) -> tuple[Seat, int]:
    seats = tuple(sorted(rules.to_act(state)))
    index, r = rng.below(r, len(seats))
    return seats[index], r


def playout(
    rules: Rules,
    config: Mapping[str, Any],
    seed: int,
    max_steps: int = 20_000,
    on_step: Callable[[Any, Seat, Action, Any], None] | None = None,
) -> Iterator[tuple[Any, Seat, Action]]:
    """A seeded random game: yields (state before, seat, action) for every step.

    Fails on a dead end (a seat to act with no legal action) or when ``max_steps`` pass
    without the game finishing.
    """
    state = rules.initial_state(config, seed)
    r = rng.seed_state(seed)
    for _ in range(max_steps):
        to_act = rules.to_act(state)
        if not to_act:
            assert rules.outcome(state) is not None, "to_act is empty but outcome() is None"
            return
        seat, r = _next_seat(rules, state, r)
        legal = rules.legal_actions(state, seat)
        assert legal, f"dead end: seat {seat} is to act but has no legal action"
        action, r = _pick(r, legal)
        yield state, seat, action
        new_state = rules.apply(state, seat, action).state
        if on_step is not None:
            on_step(state, seat, action, new_state)
        state = new_state
    raise AssertionError(f"game did not finish within {max_steps} steps (seed {seed})")


def random_game(
    rules: Rules,
    config: Mapping[str, Any],
    seed: int,
    max_steps: int = 20_000,
    on_step: Callable[[Any, Seat, Action, Any], None] | None = None,
) -> Any:
    """Play a whole seeded random game (as ``playout``) and return its final state."""
    final = rules.initial_state(config, seed)

    def step(before: Any, seat: Seat, action: Action, after: Any) -> None:
        nonlocal final
        final = after
        if on_step is not None:
            on_step(before, seat, action, after)

    for _ in playout(rules, config, seed, max_steps, step):
        pass
    return final


def _secrets_of(
    rules: Rules, state: Any, seed: int, dumped: Mapping[str, Any] | None = None
) -> list[str]:
    if dumped is None:
        dumped = rules.dump_state(state)
    found = [str(seed)]
    rng_state = dumped.get("rng")
    if isinstance(rng_state, int) and rng_state > 10**6:
        found.append(str(rng_state))
    return found


def _independent_copy(state: Any) -> Any:
    """A deep copy of ``state``, to tell later whether anything changed it in place.

    A pickle round trip copies what ``copy.deepcopy`` copies (every object the state reaches,
    classes and functions by reference) at a fraction of its cost: ``deepcopy`` walks a
    Lancaster state in Python and was a fifth of the whole contract's time. A state pickle
    cannot take (a lambda, a lock) is deep-copied as before."""
    try:
        return pickle.loads(pickle.dumps(state, pickle.HIGHEST_PROTOCOL))
    except (pickle.PicklingError, TypeError, AttributeError):
        return copy.deepcopy(state)


#: Above this many legal actions, the notation round trip is checked on an evenly spread
#: sample (first and last included) instead of every action: a game with combined actions
#: (Lancelot's force of the King: ~38,000 at once) would otherwise spend minutes here.
ROUND_TRIP_SAMPLE = 300


_T = TypeVar("_T")


def _round_trip_sample(legal: tuple[_T, ...]) -> tuple[_T, ...]:
    if len(legal) <= ROUND_TRIP_SAMPLE:
        return legal
    stride = -(-len(legal) // ROUND_TRIP_SAMPLE)  # ceiling division
    return (*legal[::stride], legal[-1])


def check_step(rules: Rules, state: Any, seat: Seat, action: Action, seed: int) -> None:
    """Every per-position property of the contract, at one position and one chosen action."""
    # One dump serves the comparison after apply, the seat count and the secrets: each of
    # them used to dump the state again (a dozen times a position).
    dumped = rules.dump_state(state)
    before = json.dumps(dumped, sort_keys=True)
    pristine = _independent_copy(state)
    seats = _seat_count_of(dumped)
    secrets = _secrets_of(rules, state, seed, dumped)

    # to_act: every seat owes a non-empty, sorted tuple of legal actions.
    to_act = rules.to_act(state)
    for s in to_act:
        legal = rules.legal_actions(state, s)
        assert legal, f"seat {s} is to act but legal_actions is empty"
        assert list(legal) == sorted(legal, key=action_sort_key), "legal_actions not sorted"
        auto = rules.auto_action(state, s)
        assert auto in legal, f"auto_action {auto!r} of seat {s} is not legal"
        for a in _round_trip_sample(legal):
            text = rules.format_action(state, a)
            back = rules.parse_action(state, s, text)
            assert back == a, f"parse_action(format_action({a!r})) gave {back!r} via {text!r}"
            assert action_from_json(json.loads(json.dumps(action_to_json(a)))) == a
        _check_choices(rules, state, s, legal, secrets)
        _check_is_legal(rules, state, s, legal)
    # Seats not to act have nothing to do.
    for s in range(seats):
        if s not in to_act:
            assert rules.legal_actions(state, s) == (), f"seat {s} not to act has actions"
            if hasattr(rules, "is_legal"):
                assert not rules.is_legal(state, s, action), f"seat {s} not to act may act"
            assert choices_of(rules, state, s).size() == 0, f"seat {s} not to act has choices"

    # dump/load round trip.
    assert rules.load_state(json.loads(json.dumps(dumped))) == state, "load(dump(s)) != s"

    # Views: JSON-serialisable and free of the seed and generator state.
    for viewer in [None, *range(seats)]:
        text = json.dumps(rules.view(state, viewer), sort_keys=True)
        for secret in secrets:
            assert secret not in text, f"view for {viewer} contains a secret value {secret}"

    # apply is pure.
    rules.apply(state, seat, action)
    after = json.dumps(rules.dump_state(state), sort_keys=True)
    assert before == after, "apply mutated its input state"
    assert state == pristine, "apply mutated its input state"


def _check_is_legal(rules: Rules, state: Any, seat: Seat, legal: tuple[Action, ...]) -> None:
    """A game's optional ``is_legal(state, seat, action)`` (the offline verifier's cheaper
    test) says exactly what membership of ``legal_actions`` says: true of every legal action,
    false of actions next to them that are not legal."""
    is_legal = getattr(rules, "is_legal", None)
    if is_legal is None:
        return
    allowed = set(legal)
    for a in _round_trip_sample(legal):
        assert is_legal(state, seat, a), f"is_legal refuses the legal {a!r} of seat {seat}"
        # Near misses: the action with one more item, with one item less, with its last item
        # changed (a number plus one, a flag flipped, any other item replaced by None).
        last = a[-1] if a else None
        changed = (
            not last if isinstance(last, bool) else last + 1 if isinstance(last, int) else None
        )
        for near in ((*a, 0), a[:-1], (*a[:-1], changed)):
            if near not in allowed:
                assert not is_legal(state, seat, near), f"is_legal accepts {near!r} of {seat}"


def _check_group(group: ChoiceGroup, where: str) -> None:
    assert group.label.strip(), f"a group without a label in {where}"
    inside = f"{where} > {group.label!r}"
    labels = [o.label for o in group.options]
    assert all(label.strip() for label in labels), f"an option without a label in {inside}"
    assert len(set(labels)) == len(labels), f"two options share a label in {inside}: {labels}"
    steps = [g.label for g in group.groups]
    assert len(set(steps)) == len(steps), f"two steps share a label in {inside}: {steps}"
    assert group.size(), f"an empty group {inside}"
    for inner in group.groups:
        _check_group(inner, inside)


def check_choices(
    rules: Rules, state: Any, seat: Seat, legal: tuple[Action, ...], seed: int
) -> Choices:
    """``choices``: every legal action exactly once, each with its canonical text; labels
    non-empty and unique within their group; JSON-serialisable and free of secrets."""
    return _check_choices(rules, state, seat, legal, _secrets_of(rules, state, seed))


def _check_choices(
    rules: Rules, state: Any, seat: Seat, legal: tuple[Action, ...], secrets: list[str]
) -> Choices:
    choices = choices_of(rules, state, seat)
    options = list(choices.all_options())
    actions = [o.action for o in options]
    assert len(actions) == len(set(actions)), f"seat {seat}: an action is offered twice"
    assert set(actions) == set(legal), (
        f"seat {seat}: choices offer {sorted(set(actions) - set(legal), key=action_sort_key)[:5]}"
        f" not legal, miss {sorted(set(legal) - set(actions), key=action_sort_key)[:5]}"
    )
    assert len(actions) == len(legal)
    labels = [g.label for g in choices.groups]
    assert len(set(labels)) == len(labels), f"seat {seat}: two groups share a label: {labels}"
    for group in choices.groups:
        _check_group(group, f"seat {seat}")
    for option in _round_trip_sample(tuple(options)):
        text = rules.format_action(state, option.action)
        assert option.text == text, f"option {option.label!r} submits {option.text!r}, not {text!r}"
    # Unsorted keys: a secret is a run of digits, and no key holds a digit, so it appears in
    # the text whatever order the keys come in (sorting them was a tenth of Lancelot's time).
    dumped = json.dumps(choices.to_json())
    for secret in secrets:
        assert secret not in dumped, f"choices of seat {seat} contain a secret value {secret}"
    return choices


def _seat_count(rules: Rules, state: Any) -> int:
    return _seat_count_of(rules.dump_state(state))


def _seat_count_of(dumped: Mapping[str, Any]) -> int:
    players = dumped.get("players")
    if isinstance(players, int):
        return players
    if isinstance(players, list):
        return len(players)
    raise AssertionError("dump_state must hold 'players' (a count or a list per seat)")


def check_determinism(rules: Rules, config: Mapping[str, Any], seed: int) -> None:
    """Same seed and actions -> identical dump_state at every step."""
    first = [(seat, action) for _, seat, action in playout(rules, config, seed)]
    state = rules.initial_state(config, seed)
    again = rules.initial_state(config, seed)
    for seat, action in first:
        state = rules.apply(state, seat, action).state
        again = rules.apply(again, seat, action).state
        assert rules.dump_state(state) == rules.dump_state(again)
    replay = rules.initial_state(config, seed)
    for seat, action in first:
        replay = rules.apply(replay, seat, action).state
    assert json.dumps(rules.dump_state(replay), sort_keys=True) == json.dumps(
        rules.dump_state(state), sort_keys=True
    ), "the same seed and actions gave a different state"


def check_config(rules: Rules, config: Mapping[str, Any], seed: int, games: int = 3) -> int:
    """Run the whole contract over one config: returns the number of steps checked."""
    normalised = rules.validate_config(config)
    assert rules.validate_config(normalised) == normalised, "validate_config not idempotent"
    check_determinism(rules, normalised, seed)
    steps = 0
    for g in range(games):
        for state, seat, action in playout(rules, normalised, seed + g):
            check_step(rules, state, seat, action, seed + g)
            steps += 1
    return steps
