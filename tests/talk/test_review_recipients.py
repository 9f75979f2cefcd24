"""Review of the names a 'to …:' line reads (issue 27): a player called like the whole table
must not turn a private message into one to everyone."""

from __future__ import annotations

import pytest

from pbem.core.errors import BadRequest
from pbem.core.naming import Names
from pbem.talk.recipients import seats_named


@pytest.mark.parametrize("name", ["All", "everyone", "The Table"])
def test_a_player_named_like_the_table_makes_the_word_ambiguous(name: str) -> None:
    names = Names(("Ann", name, "Cy"))
    with pytest.raises(BadRequest, match="both"):
        seats_named(names, 0, name.lower())


def test_everyone_still_means_the_table_when_no_player_is_called_so() -> None:
    names = Names(("Ann", "Bob", "Cy"))
    assert seats_named(names, 0, "everyone") == ()
    assert seats_named(names, 0, "Bob and Cy") == (1, 2)
