"""Our own deterministic random generator (SplitMix64).

The standard ``random`` module is never used by engines: its streams may change between
Python versions, and a game must replay identically forever. The generator is functional:
its whole state is one 64-bit integer kept inside the game state.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

MASK64 = (1 << 64) - 1


def seed_state(seed: int) -> int:
    """Derive the generator's 64-bit starting state from a game seed of any size."""
    digest = hashlib.sha256(b"pbem-rng-v1:" + str(seed).encode("ascii")).digest()
    return int.from_bytes(digest[:8], "big")


def next_u64(state: int) -> tuple[int, int]:
    """One SplitMix64 step: returns (output, new state)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31), state


def below(state: int, n: int) -> tuple[int, int]:
    """An unbiased integer in [0, n): rejection sampling, never a bare modulo."""
    if n <= 0:
        raise ValueError("n must be positive")
    # Accept only outputs below the largest multiple of n that fits in 64 bits.
    limit = (1 << 64) - ((1 << 64) % n)
    while True:
        value, state = next_u64(state)
        if value < limit:
            return value % n, state


def shuffled(state: int, items: Sequence[T]) -> tuple[tuple[T, ...], int]:
    """A Fisher–Yates shuffle of ``items``: returns (shuffled tuple, new state)."""
    result = list(items)
    for i in range(len(result) - 1, 0, -1):
        j, state = below(state, i + 1)
        result[i], result[j] = result[j], result[i]
    return tuple(result), state
