"""The move readers of both games and digits ``int()`` refuses: "²" passes ``str.isdigit()``
(Lancaster read it as a number and crashed), "᧚" and "𐩀" pass it after Lancelot's NFKC.
Such a move is unreadable (an ``EngineError``, answered as any typo), never a crash; what was
read before is read the same (ASCII digits, and those NFKC turns into them)."""

from __future__ import annotations

import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import engine
from engine.core import EngineError, Rules
from tests.typed_numbers import NOT_NUMBERS

TEMPLATES = (
    "{}",
    "knight {}",
    "knight {} to castle 2",
    "knight 1 to castle {}",
    "e {}",
    "{}e",
    "column e row {}",
    "row {} column e",
    "vote yes {}",
    "yes {}",
    "extension {}",
    "place {} knights",
)


def _positions(rules: Rules) -> list[tuple[object, int]]:
    """Positions of a few phases: the start, and after random legal moves."""
    out: list[tuple[object, int]] = []
    config = rules.contract_configs()[0]
    state = rules.initial_state(config, 7)
    chooser = random.Random(7)
    for step in range(40):
        acting = sorted(rules.to_act(state))
        if not acting:
            break
        if step % 8 == 0:
            out.append((state, acting[0]))
        state = rules.apply(
            state, acting[0], chooser.choice(rules.legal_actions(state, acting[0]))
        ).state
    return out


@pytest.mark.parametrize("game", ["lancaster", "lancelot"])
def test_other_digits_are_unreadable_not_a_crash(game: str) -> None:
    rules = engine.REGISTRY[game]
    positions = _positions(rules)

    @settings(max_examples=200, deadline=None, derandomize=True)
    @given(
        where=st.sampled_from(range(len(positions))),
        template=st.sampled_from(TEMPLATES),
        number=NOT_NUMBERS,
    )
    @example(where=0, template="knight {}", number="²")
    @example(where=0, template="e {}", number="᧚")
    @example(where=0, template="column e row {}", number="𐩀")
    def unreadable_or_read(where: int, template: str, number: str) -> None:
        state, seat = positions[where]
        try:
            action = rules.parse_action(state, seat, template.format(number))
        except EngineError as e:
            assert str(e)  # the player is told why
        else:  # read as the game reads it: a legal move of this position
            assert action in rules.legal_actions(state, seat)

    unreadable_or_read()


def test_what_was_read_is_read_the_same() -> None:
    lancelot = engine.REGISTRY["lancelot"]
    state = lancelot.initial_state(lancelot.contract_configs()[0], 7)
    seat = min(lancelot.to_act(state))
    # NFKC turns these into ASCII digits before any is read
    assert lancelot.parse_action(state, seat, "g ⁷") == lancelot.parse_action(state, seat, "g 7")
    assert lancelot.parse_action(state, seat, "g７") == lancelot.parse_action(state, seat, "g7")
