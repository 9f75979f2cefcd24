"""Lancaster (Matthias Cramer, 2011): the base game for 2 to 5 players, with the modules of
the Henry V expansion (At the King's Court, The King's Resentment, Laws of the King), and The
New Laws (rules 2.1.0).

``RELEASES`` holds every released version of its rules (``rules.py``); ``LANCASTER`` is the
latest, which new games get."""

# the expansions fill the base game's extension points first (wiring.py)
from engine.lancaster import wiring  # noqa: F401  (imported for its registrations)
from engine.lancaster.rules import (
    LANCASTER,
    LANCASTER_1_0,
    LANCASTER_2_0,
    LANCASTER_2_1,
    LancasterRules,
)

#: every release of Lancaster's rules, oldest first (games keep the one they were created with)
RELEASES: tuple[LancasterRules, ...] = (LANCASTER_1_0, LANCASTER_2_0, LANCASTER_2_1)

__all__ = [
    "LANCASTER",
    "LANCASTER_1_0",
    "LANCASTER_2_0",
    "LANCASTER_2_1",
    "RELEASES",
    "LancasterRules",
]
