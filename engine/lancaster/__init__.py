"""Lancaster (Matthias Cramer, 2011): the base game for 2 to 5 players, with the modules of
the Henry V expansion (At the King's Court, The King's Resentment, Laws of the King)."""

from engine.lancaster.rules import LANCASTER

__all__ = ["LANCASTER"]
