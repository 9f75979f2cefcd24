"""Henry V – The Power of the King (rules text 001; decisions 13–16): its modules.

Each module is switched on in the config, ``{"expansions": {"resentment": true}}``, and
declares its pieces in the engine's registries (placement targets, frames, hidden resources,
scoring terms, battle hooks) rather than in the base game's code.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core.protocol import ConfigError

KINGS_COURT = "kings_court"
RESENTMENT = "resentment"
LAWS_OF_THE_KING = "laws_of_the_king"
MODULES = (KINGS_COURT, RESENTMENT, LAWS_OF_THE_KING)
#: the config key that switches the modules on
CONFIG_KEY = "expansions"
#: the modules this version plays (the others are refused by ``normalise``)
AVAILABLE_MODULES: tuple[str, ...] = MODULES


def normalise(value: Any) -> dict[str, bool]:
    """The config's ``"expansions"``: each of At the King's Court and The King's Resentment
    alone or together; Laws of the King only with both (001). Normalised to the modules
    switched on."""
    if not isinstance(value, Mapping):
        raise ConfigError(
            '"expansions" must be a mapping such as {"resentment": true}; use {} for the base game.'
        )
    unknown = sorted(str(k) for k in value if k not in MODULES)
    if unknown:
        raise ConfigError(
            f"Unknown expansion(s) {', '.join(unknown)}; Lancaster knows {', '.join(MODULES)} "
            "(Henry V – The Power of the King)."
        )
    for key, on in value.items():
        if not isinstance(on, bool):
            raise ConfigError(f'Expansion "{key}" must be true or false, not {on!r}.')
    chosen = {k: True for k in MODULES if value.get(k)}
    if LAWS_OF_THE_KING in chosen and not (KINGS_COURT in chosen and RESENTMENT in chosen):
        raise ConfigError(
            "Laws of the King can be played only with both At the King's Court and The King's "
            'Resentment: add "kings_court": true and "resentment": true.'
        )
    missing = sorted(k for k in chosen if k not in AVAILABLE_MODULES)
    if missing:
        raise ConfigError(
            f"The Henry V module(s) {', '.join(missing)} are not available in this version; "
            f"available: {', '.join(AVAILABLE_MODULES)}."
        )
    return chosen
