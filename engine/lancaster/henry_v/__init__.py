"""Henry V – The Power of the King (rules text 001; decisions 13–16): its modules.

Each module is switched on in the config, ``{"expansions": {"resentment": true}}``, and
declares its pieces in the engine's registries (placement targets, frames, hidden resources,
scoring terms, battle hooks) rather than in the base game's code.
"""

from __future__ import annotations

KINGS_COURT = "kings_court"
RESENTMENT = "resentment"
LAWS_OF_THE_KING = "laws_of_the_king"
MODULES = (KINGS_COURT, RESENTMENT, LAWS_OF_THE_KING)
