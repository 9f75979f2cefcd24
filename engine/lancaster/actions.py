"""The base game's actions, typed: one ``NamedTuple`` per kind, its verb the first item.

A NamedTuple is a tuple: it equals the plain tuple of its items (the form the notation reads
back and the service rebuilds from a stored event's list) and is stored as that list, so
typing an action changes nothing a game records. Handlers build these where they list their
options, so mypy checks each item, and read an action given to them by name once its form
is checked (``Place.of(action)``). Henry V's and The New Laws' actions are plain tuples of
their packages (``henry_v/``, ``new_laws/``).
"""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

from engine.core.protocol import Action

#: where a knight is placed: ``("county", "D")``, ``("castle", 3)``, ``("conflict", 7)``, or
#: a kind an expansion adds (``targets.TARGETS``)
Target = tuple[str, Any]


class Place(NamedTuple):
    """Phase 1: a knight of ``strength`` from the court of the seat's colour (``ally``: its
    ally's) to ``target``, with ``squires`` (only in a county)."""

    verb: Literal["place"]
    ally: bool
    strength: int
    target: Target
    squires: int

    @classmethod
    def of(cls, action: Action) -> Place:
        return cls._make(action)


class Favor(NamedTuple):
    """Phase 1: the king's favor ``tile`` taken, with its choice (a knight to upgrade, a
    nobleman letter) or None."""

    verb: Literal["favor"]
    tile: int
    detail: Any

    @classmethod
    def of(cls, action: Action) -> Favor:
        return cls._make(action)


class Vote(NamedTuple):
    """Phase 2: a secret vote on the law at hand, with ``markers`` voting markers added."""

    verb: Literal["vote"]
    yes: bool
    markers: int

    @classmethod
    def of(cls, action: Action) -> Vote:
        return cls._make(action)


class PayCastle(NamedTuple):
    """Phase 3: pay for castle ``space``'s reward, with its choice (``detail``) or None."""

    verb: Literal["castle"]
    space: int
    detail: Any

    @classmethod
    def of(cls, action: Action) -> PayCastle:
        return cls._make(action)


class Ransom(NamedTuple):
    """Phase 3: the strengths of the knights ransomed from a lost conflict (``()``: none)."""

    verb: Literal["ransom"]
    knights: tuple[int, ...]

    @classmethod
    def of(cls, action: Action) -> Ransom:
        return cls._make(action)
