"""Pure, deterministic rules engines. ``REGISTRY`` maps a game's name to its Rules."""

from __future__ import annotations

from engine.core.protocol import Rules
from engine.lancaster import LANCASTER
from engine.lancelot import LANCELOT

REGISTRY: dict[str, Rules] = {
    LANCASTER.name: LANCASTER,
    LANCELOT.name: LANCELOT,
}
