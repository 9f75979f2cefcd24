"""Lancaster (Matthias Cramer, 2011): the complete base game for 2 to 5 players."""

from engine.lancaster.rules import LANCASTER

__all__ = ["LANCASTER"]
