"""Pure, deterministic rules engines.

``REGISTRY`` (an ``engine.core.registry.Registry``) holds every released version of every
game's rules. As a mapping it gives each game's **latest** release by name, which new games
get: ``REGISTRY["lancaster"]``. A game created earlier is replayed, verified and played on
under the release it recorded in ``GameCreated`` (``rules_version``):
``REGISTRY.release("lancaster", "1.0.0")``; a version not installed raises
``engine.core.registry.UnknownRules`` with a message saying which versions are.
"""

from __future__ import annotations

from engine.core.registry import Registry, UnknownRules
from engine.lancaster import RELEASES as LANCASTER_RELEASES
from engine.lancelot import LANCELOT

REGISTRY = Registry((*LANCASTER_RELEASES, LANCELOT))

__all__ = ["REGISTRY", "Registry", "UnknownRules"]
