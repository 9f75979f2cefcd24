"""Hypothesis strategies of numbers people type wrongly (or hostile requests send): digits
other than 0 to 9, signs, spaces inside, other notations, and far too many digits. Every one
must be refused at every door (a 4xx, a refusal reply, a usage error), never crash it."""

from __future__ import annotations

import unicodedata

from hypothesis import strategies as st

#: One of each kind the campaign found or that ``int()`` reads and a person did not mean.
SAMPLES = (
    "²",  # str.isdigit() says yes, int() refuses it
    "³",
    "①",
    "᧚",
    "𐩀",
    "٣",  # int() reads these (decimal digits of other scripts)
    "１２",
    "٣٣",
    "𝟐",
    "12²",
    "-1",
    "+5",
    "-0",
    "1 2",
    "1_000",
    "0x10",
    "1e3",
    "5.0",
    "½",
    "9" * 400,
    "9" * 5000,
    "0" * 5000 + "1",  # leading zeros are digits too: int() refuses this many
)


def _digit(c: str) -> bool:
    return c.isdigit() or unicodedata.category(c) == "Nd"


#: Digits and number signs of every script but ASCII, alone or among ASCII digits.
_FOREIGN = st.characters(categories=("Nd", "No"), exclude_characters="0123456789").filter(_digit)
NOT_NUMBERS = st.one_of(
    st.sampled_from(SAMPLES),
    st.lists(_FOREIGN, min_size=1, max_size=4).map("".join),
    st.tuples(st.text("0123456789", max_size=3), _FOREIGN, st.text("0123456789", max_size=3)).map(
        "".join
    ),
    st.tuples(
        st.sampled_from(["-", "+", "−", "1 ", "0x", "٫"]),
        st.text("0123456789", min_size=1, max_size=4),
    ).map("".join),
    st.integers(min_value=10**21, max_value=10**450).map(str),
)
#: The same, as the number of a duration: alone, before a unit, or as one of its parts.
NOT_DURATIONS = NOT_NUMBERS.flatmap(lambda n: st.sampled_from([n, f"{n}h", f"1d {n}m", f"{n}d 2h"]))
#: JSON integers no version, seat or number here can be (negative, or beyond a database's).
NOT_COUNTS = st.one_of(
    st.integers(min_value=-(10**29), max_value=-1),
    st.integers(min_value=2**31, max_value=10**29),
)
