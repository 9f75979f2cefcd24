"""What The New Laws add to a Lancaster view (``view.SECTIONS``), only in games that play
them (a view of any other game stays as it was): which set each law group plays, the squires
a law sent to a conflict, and the extensions turned over; and how the text rendering marks
the latter."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.lancaster.state import State


def add_new_laws(state: State, result: dict[str, Any]) -> None:
    if not state.law_sets:
        return
    # which set each group plays, and which were drawn at setup (public: the draw is made on
    # the table; decision: rules/README.md, Lancaster 18)
    result["laws"]["sets"] = [
        {"group": g, "set": s, "drawn": d}
        for g, (s, d) in enumerate(zip(state.law_sets, state.law_sets_drawn, strict=True))
    ]
    # squires a law sent to a conflict (+1 strength each)
    for row in ("upper", "lower"):
        for card, entry in zip(getattr(state, row), result["conflicts"][row], strict=True):
            if card is not None and entry is not None:
                for sp, sp_entry in zip(card.spaces, entry["spaces"], strict=True):
                    sp_entry["squires"] = sp.squires
    # an extension turned over for want of upkeep yields nothing until the castles have been
    # scored
    owners = [*result["players"], *result["allies"]]
    for colour, owner in enumerate(owners):
        turned = state.colours[colour].turned
        for space in owner["castle"]:
            space["turned_over"] = space["space"] in turned


def turned_over_mark(space: Mapping[str, Any]) -> str:
    """The text rendering's mark of an extension turned over (``text.EXTENSION_MARKS``): it
    yields nothing."""
    return "(turned over)" if space.get("turned_over") else ""
