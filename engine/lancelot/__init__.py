"""Lancelot (Roland Siegers, 1990): the complete rules, see shared rules/lancelot.md."""

from engine.lancelot.rules import LANCELOT, Lancelot

__all__ = ["LANCELOT", "Lancelot"]
