"""What Henry V's modules add to a Lancaster view (``view.SECTIONS``): the tower and the
dishonor track of The King's Resentment, the regal board of At the King's Court and the pieces
it puts with players, counties and conflict cards. All of it is on the table: public."""

from __future__ import annotations

from typing import Any

from engine.lancaster.henry_v import court, resentment
from engine.lancaster.state import State


def add_resentment(state: State, result: dict[str, Any]) -> None:
    """The tower and the dishonor track, in a game with The King's Resentment."""
    if not resentment.active(state):
        return
    result["resentment"] = {
        "tower": [
            {
                "colour": None if c == resentment.NEUTRAL else state.colour_name(c),
                "seat": None if c == resentment.NEUTRAL else state.controller(c),
                "strength": k,
            }
            for c, k in state.tower
        ],
        "tower_strength": resentment.tower_strength(state),
        "tower_capacity": state.data.tower_capacity,
        "track": [
            {"markers": n, "penalties": list(state.data.dishonor_penalties[i])}
            for i, n in enumerate(state.dishonor_track)
        ],
        "supply_box": state.dishonor_box,
    }


def add_court(state: State, result: dict[str, Any]) -> None:
    """The regal board, each lord and privilege, and the shields, Tudor knights and archers on
    the board, in a game with At the King's Court."""
    if not court.active(state):
        return
    result["court"] = _regal_board(state)
    for s, entry in enumerate(result["players"]):
        col = state.colours[s]
        entry.update(
            lord=col.lord,
            bishops=col.bishops,
            privileges=list(col.privileges),
            granted=list(col.granted),
        )
    allies = range(state.players, len(state.colours))
    for ally_entry, c in zip(result["allies"], allies, strict=True):
        col = state.colours[c]
        ally_entry.update(lord=col.lord, privileges=list(col.privileges), granted=list(col.granted))
    for i, entry in enumerate(result["counties"]):
        occ = state.counties[i]
        if entry["occupant"] is not None and occ is not None:
            entry["occupant"].update(shield=occ.shield, tudor=occ.tudor)
    for row in ("upper", "lower"):
        for card, entry in zip(getattr(state, row), result["conflicts"][row], strict=True):
            if card is not None and entry is not None:
                for sp, sp_entry in zip(card.spaces, entry["spaces"], strict=True):
                    sp_entry.update(tudor=sp.tudor, archer=sp.archer)


def _regal_board(state: State) -> dict[str, Any]:
    """Offices, applicants, the treasury and the supplies."""

    def who(colour: int | None) -> dict[str, Any] | None:
        if colour is None:
            return None
        return {"colour": state.colour_name(colour), "seat": state.controller(colour)}

    offices = []
    for i, o in enumerate(state.data.offices):
        a = state.applicants[i]
        offices.append(
            {
                "office": o.key,
                "title": o.title,
                "tribute": o.tribute,
                "seals": o.seals,
                "privilege": o.privilege,
                "holder": who(state.office_holders[i]),
                "applicant": None
                if a is None
                else {
                    **(who(a.colour) or {}),
                    "knights": list(a.knights),
                    "bishops": a.bishops,
                    "stack": a.stack,
                },
            }
        )
    return {
        "offices": offices,
        "treasury": dict(zip(court.TREASURY_KINDS, state.treasury, strict=True)),
        "in_treasury": [
            state.colour_name(c) for c, col in enumerate(state.colours) if col.lord == "treasury"
        ],
        "bishop_supply": state.bishop_supply,
        "seal_supply": state.seal_supply,
    }
