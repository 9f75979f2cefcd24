"""Pure, deterministic rules engines.

``REGISTRY`` (an ``engine.core.registry.Registry``) holds every released version of every
game's rules. As a mapping it gives each game's **latest** release by name, which new games
get: ``REGISTRY["lancaster"]``. A game created earlier is replayed, verified and played on
under the release it recorded in ``GameCreated`` (``rules_version``):
``REGISTRY.release("lancaster", "1.0.0")``; a version not installed raises
``engine.core.registry.UnknownRules`` with a message saying which versions are.

Each game's rules are imported the first time the registry is asked for that game (listing
the names imports none): a process that plays one game loads only its rules.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.core.protocol import Rules
from engine.core.registry import Registry, UnknownRules


def _lancaster() -> Iterable[Rules]:
    from engine.lancaster import RELEASES

    return RELEASES


def _lancelot() -> Iterable[Rules]:
    from engine.lancelot import LANCELOT

    return (LANCELOT,)


REGISTRY = Registry(installed={"lancaster": _lancaster, "lancelot": _lancelot})

__all__ = ["REGISTRY", "Registry", "UnknownRules"]
