"""Where the expansions hook in: the one place that fills the base game's named extension
points with the pieces of Henry V's modules and of The New Laws.

The base game (frames, pieces, targets, flow, the phases) names no expansion module here:
each extension point is a registry or slot beside the code that reads it, and this module,
imported by ``engine.lancaster`` before anything runs, fills them. A module's pieces still act
only in games whose config switches it on (each piece checks its module). The registries
and what fills each are listed in engine/lancaster/README.md.
"""

from __future__ import annotations

from typing import Any

from engine.lancaster import flow, frames, notation, pieces, targets
from engine.lancaster.frames import Ctx
from engine.lancaster.henry_v import court, resentment
from engine.lancaster.phases import new_laws
from engine.lancaster.state import State


def _tower_resolve(
    state: State, seat: int, colour: int, strength: int, value: Any, squires: int, ctx: Ctx
) -> targets.Placed:
    return targets.Placed(
        resentment.tower_resolve(state, seat, colour, strength, value, squires, ctx)
    )


def wire() -> None:
    # the notation writes the actions the frames and the log mention
    frames.set_formatter(notation.format_action)
    # The King's Resentment: the tower is a place for knights, cleared by its own frame
    targets.register_target(
        targets.TargetKind(
            "tower",
            resentment.tower_options,
            resentment.tower_check,
            _tower_resolve,
            lambda _: "tower",
        )
    )
    flow.register_handler(resentment.ClearTower())
    # At the King's Court: the offices are filled by their own frame; a bishop may be taken
    # wherever a knight may be upgraded
    flow.register_handler(court.FillOffices())
    pieces.UPGRADE_EXTRAS.append(
        lambda state, colour: ["bishop"] if court.can_take_bishop(state, colour) else []
    )
    pieces.UPGRADE_TAKERS["bishop"] = court.take_bishop
    # The New Laws: turned-over extensions flip back after all castles
    flow.register_handler(new_laws.ExtensionsBack())


wire()
