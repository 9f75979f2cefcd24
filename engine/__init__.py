"""Pure, deterministic rules engines. ``REGISTRY`` maps a game's name to its Rules."""

from __future__ import annotations

from engine.core.protocol import Rules

REGISTRY: dict[str, Rules] = {}
# Each game registers itself here, one line each:
REGISTRY["lancelot"] = __import__("engine.lancelot", fromlist=["LANCELOT"]).LANCELOT
REGISTRY["lancaster"] = __import__("engine.lancaster", fromlist=["LANCASTER"]).LANCASTER
