"""``engine.core.records.replace`` builds what ``dataclasses.replace`` builds: on the states of
a played Lancaster game, field by field, and on the records where it must hand over to
``dataclasses.replace`` (``__post_init__``, keyword-only fields, ``InitVar``, one field)."""

from __future__ import annotations

import dataclasses
from dataclasses import InitVar, dataclass, field
from typing import Any

import pytest

from engine import REGISTRY
from engine.core import contract
from engine.core.records import replace


def _played_states() -> list[Any]:
    rules = REGISTRY.release("lancaster", "2.1.0")
    config = {"players": 4}
    steps = contract.playout(rules, config, contract.CONTRACT_SEEDS[0])
    return [state for i, (state, _, _) in enumerate(steps) if i % 25 == 0]


def test_every_field_of_a_played_state_is_replaced_as_dataclasses_replaces_it() -> None:
    states = _played_states()
    assert len(states) > 3
    for state in states:
        for f in dataclasses.fields(state):
            marker = ("changed", f.name)
            ours, theirs = (
                replace(state, **{f.name: marker}),
                dataclasses.replace(state, **{f.name: marker}),
            )
            assert ours == theirs and type(ours) is type(theirs)
            assert getattr(ours, f.name) == marker
        colour = state.colours[0]
        assert replace(colour, gold=99, power=1) == dataclasses.replace(colour, gold=99, power=1)
        assert replace(state) == state and replace(state) is not state


def test_an_unknown_field_is_refused_as_dataclasses_refuses_it() -> None:
    state = _played_states()[0]
    with pytest.raises(TypeError, match="unexpected keyword argument 'golds'"):
        replace(state.colours[0], golds=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'golds'"):
        dataclasses.replace(state.colours[0], golds=1)


@dataclass(frozen=True)
class _Checked:
    low: int
    high: int

    def __post_init__(self) -> None:
        if self.low > self.high:
            raise ValueError("low above high")


@dataclass(frozen=True)
class _KeywordOnly:
    a: int
    b: int = field(kw_only=True, default=0)


@dataclass
class _WithInitVar:
    a: int
    b: int = 0
    scale: InitVar[int] = 1

    def __post_init__(self, scale: int) -> None:
        self.b *= scale


@dataclass(frozen=True)
class _One:
    only: int


def test_records_it_cannot_build_plainly_go_to_dataclasses_replace() -> None:
    with pytest.raises(ValueError, match="low above high"):
        replace(_Checked(1, 2), low=3)  # its __post_init__ ran
    assert replace(_KeywordOnly(1, b=2), a=5) == _KeywordOnly(5, b=2)
    assert replace(_WithInitVar(1, 2), scale=3) == _WithInitVar(1, 6)
    assert replace(_One(1), only=2) == _One(2)
