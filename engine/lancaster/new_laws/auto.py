"""The deadline defaults of The New Laws' choices (``auto.LAW_CHOICE_DEFAULTS``): never spend;
send no squires, buy no extension, no exchange, no batch; upkeep (which spends gold or
squires): recall every knight in a county and turn over every extension, as its range depends
on hidden gold and squires and a default that paid where affordable would tell the table
whether they were (N8); with 2 players, where gold and squires are open, pay where
affordable, else recall (turn over) the fewest, the first in order."""

from __future__ import annotations

from engine.core.protocol import Action
from engine.lancaster.state import State


def upkeep(state: State, ordered: list[Action]) -> Action:
    """``recall`` and ``turn_over``."""
    if not state.two_player:
        # never spend, and so never show whether the hidden gold (squires) would have paid
        return max(ordered, key=lambda a: len(a[1]))
    return fewest(state, ordered)


def fewest(state: State, ordered: list[Action]) -> Action:
    """``send``, and upkeep with 2 players: send no squires; pay for all where affordable,
    else recall (turn over) the fewest."""
    return min(ordered, key=lambda a: (len(a[1]), a[1]))


def decline(state: State, ordered: list[Action]) -> Action:
    """``buy_extension``, ``exchange``: nothing bought, nothing exchanged."""
    return (ordered[0][0], None)


def no_batch(state: State, ordered: list[Action]) -> Action:
    return ("batches", 0)


#: the default of each verb
DEFAULTS = {
    "recall": upkeep,
    "turn_over": upkeep,
    "send": fewest,
    "buy_extension": decline,
    "exchange": decline,
    "batches": no_batch,
}
