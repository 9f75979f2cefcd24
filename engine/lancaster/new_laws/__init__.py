"""*The New Laws* (Lancaster's Big Box, 2015): the 18 laws of rules 2.1.0 (``NEW_LAWS``), the
dataset ``NEW_LAWS_DATA`` (2.0.0's, with these laws added), their provenance, and the config
key ``"new_laws"`` that says which set of laws each group plays.

Source: the shared ``rules/lancaster-data.md`` ("The New Laws") and the publisher's rulebook
(``borisyankov/rulespal``, ``data/rulebooks/lancaster-rulebook.md``, "Lancaster: The New
Laws"). The texts are in our own words; what each law does is ``new_laws/rules.py``, their
notation ``new_laws/notation.py``; ``wiring.py`` hooks both into the base game.

Config ``"new_laws"`` (decision: rules/README.md, Lancaster 18):

- absent or ``"none"``: the base laws only (normalised: the key is absent);
- ``"replace"``: every group plays the new laws (rulebook, "1st option");
- ``"combine"``: each group is drawn at setup, base or new, with the game's generator
  (rulebook, "2nd option", the random combination: one old and one new card in the bag);
- a list of five, one per group 0..4, each ``"base"``, ``"new"`` or ``"random"``.

The normalised form is the list of five; a list of only ``"base"`` is the key absent. With
Henry V's Laws of the King, groups 2 and 3 are that module's laws whatever the list says
(rulebook: the 8 laws replace groups 2 and 3); the choice for those groups is accepted and
recorded, but nothing is drawn for them (engine README, decisions of The New Laws).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.core import rng
from engine.core.protocol import ConfigError
from engine.core.records import replace
from engine.lancaster.data import RULEBOOK, Data, Law
from engine.lancaster.printed import MODULE_PROVENANCE as PRINTED_MODULE_PROVENANCE
from engine.lancaster.printed import PRINTED
from engine.lancaster.printed import PROVENANCE as PRINTED_PROVENANCE

VERSION = "2.1.0"
MODULE = "new_laws"
CONFIG_KEY = "new_laws"
#: the name of these laws' set (``setup.LAW_SETS``), as the config's choices and the state say
SET = "new"
GROUPS = (0, 1, 2, 3, 4)
#: what a group may play in the config's list
CHOICES = ("base", "new", "random")
#: the whole-game words of the config and the list each stands for
WORDS: Mapping[str, tuple[str, ...]] = {
    "replace": ("new",) * 5,
    "combine": ("random",) * 5,
    "none": ("base",) * 5,
}


def _law(key: str, group: int, title: str, template: str, *params: tuple[str, int]) -> Law:
    return Law(key, group, title, template, tuple(params), MODULE)


#: The New Laws (lancaster-data.md, "The New Laws"; rulebook "Summary of the new law cards"):
#: 3 in group 0, 4 in each of groups 1 to 3, 3 in group 4, as the base laws.
NEW_LAWS = (
    # -- group 0 --
    _law(
        "conflicts_voting_markers",
        0,
        "Votes from the front",
        "Players gain {voting_markers:voting marker/voting markers} for each conflict in "
        "which they have at least one of their own knights.",
        ("voting_markers", 1),
    ),
    _law(
        "most_squires_gold_marker",
        0,
        "The best-served are paid",
        "The player with the most squires gains {gold} gold and "
        "{voting_markers:voting marker/voting markers} (ties: all tied players).",
        ("gold", 1),
        ("voting_markers", 1),
    ),
    _law(
        "most_gold_squire_marker_new",
        0,
        "The richest hire",
        "The player with the most gold gains {squires:squire/squires} and "
        "{voting_markers:voting marker/voting markers} (ties: all tied players).",
        ("squires", 1),
        ("voting_markers", 1),
    ),
    # -- group 1 --
    _law(
        "no_nobles_supplies",
        1,
        "Help for the lonely lord",
        "Each player without any nobleman tile receives {gold} gold, "
        "{squires:squire/squires} and {voting_markers:voting marker/voting markers}.",
        ("gold", 1),
        ("squires", 1),
        ("voting_markers", 1),
    ),
    _law(
        "squires_to_conflicts",
        1,
        "Squires to the front",
        "For each conflict in which they have at least one of their own knights, players may "
        "send {squires:squire/squires} from behind their screen to that conflict, where it "
        "adds 1 strength to theirs; all at once, in player order. These squires go back to "
        "the supply once the conflict has been scored, whoever wins.",
        ("squires", 1),
    ),
    _law(
        "squires_for_strength_1",
        1,
        "Squires for strength-1 knights",
        "Players recruit {squires:squire/squires} for each of their deployed strength-1 knights.",
        ("squires", 1),
    ),
    _law(
        "buy_extensions",
        1,
        "Buy extensions",
        "Players may buy extension tiles for their castle, {gold} gold each, as many as they "
        "like (in player order).",
        ("gold", 4),
    ),
    # -- group 2 --
    _law(
        "castle_knights_power",
        2,
        "Power at home",
        "Players gain {power:power point/power points} for each of their knights in their "
        "own castle.",
        ("power", 3),
    ),
    _law(
        "most_retained_markers_upgrade",
        2,
        "The unspent votes upgrade",
        "The player holding the most voting markers after the third vote may upgrade one of "
        "their knights (ties: all tied players). Those voting markers go back to the supply "
        "only after the current laws; markers gained from this round's laws do not count "
        "and are kept.",
    ),
    _law(
        "both_strength_2_power",
        2,
        "Both strength-2 knights out",
        "Players who have deployed both their strength-2 knights gain "
        "{power:power point/power points}.",
        ("power", 3),
    ),
    _law(
        "county_upkeep",
        2,
        "Upkeep in the counties",
        "Players pay {gold} gold for each county holding one of their knights; a knight not "
        "paid for goes back to its court (in player order).",
        ("gold", 1),
    ),
    # -- group 3 --
    _law(
        "counties_power_5",
        3,
        "Power for counties, doubled",
        "Players gain {power:power point/power points} for every {per:county/counties} "
        "with their own knights.",
        ("power", 5),
        ("per", 2),
    ),
    _law(
        "extension_upkeep",
        3,
        "Upkeep of the castle",
        "Players return {squires:squire/squires} to the supply for each extension of their "
        "castle; an extension not paid for is turned over and gives nothing until the "
        "castles have been scored (in player order).",
        ("squires", 1),
    ),
    _law(
        "exchange_gold_squires",
        3,
        "The exchange",
        "Players may exchange gold for squires or squires for gold, giving {rate} for 1, as "
        "many times as they like (in player order).",
        ("rate", 2),
    ),
    _law(
        "county_squires_power",
        3,
        "Power for supporting squires",
        "Players gain {power:power point/power points} for every {per:squire/squires} "
        "supporting their own knights in the counties.",
        ("power", 3),
        ("per", 2),
    ),
    # -- group 4 --
    _law(
        "empty_counties_power",
        4,
        "Power where no nobleman is left",
        "Players gain {power:power point/power points} for each county without any "
        "nobleman tile left in which they have a knight.",
        ("power", 3),
    ),
    _law(
        "batches_for_power",
        4,
        "Batches for power",
        "Players may spend batches of 1 gold, 1 squire and 1 voting marker held since the "
        "third vote for {power:power point/power points} each, as many as they like (in "
        "player order); markers gained from this round's laws cannot be used.",
        ("power", 3),
    ),
    _law(
        "most_conflict_knights_power",
        4,
        "The largest army in France",
        "The player with the most knights in conflicts gains {power:power point/power points} "
        "(ties: all tied players).",
        ("power", 5),
    ),
)

#: rules 2.1.0's dataset: 2.0.0's values and laws, with The New Laws added
NEW_LAWS_DATA: Data = replace(PRINTED, release=VERSION, laws=PRINTED.laws + NEW_LAWS)

#: provenance of 2.1.0: 2.0.0's, and the new laws' groups and params from the rulebook
PROVENANCE: dict[str, str] = {
    **PRINTED_PROVENANCE,
    **{f"laws.{law.key}.group": RULEBOOK for law in NEW_LAWS},
    **{f"laws.{law.key}.params": RULEBOOK for law in NEW_LAWS if law.params},
}
MODULE_PROVENANCE = PRINTED_MODULE_PROVENANCE


def has_new_laws(data: Data) -> bool:
    return any(law.module == MODULE for law in data.laws)


#: how much of a refused value an error shows: enough to find it, never the whole of a
#: hostile one (the API's body may be 64 KB, the command line's config has no limit)
SHOWN = 40


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= SHOWN else f"{text[: SHOWN - 3]}..."


def normalise(value: Any, base: Data) -> tuple[str, ...] | None:
    """The config's ``"new_laws"`` as the list of five (None: base laws only), or a clear
    ConfigError."""
    if not has_new_laws(base):
        raise ConfigError(
            f'Rules {base.release} have no The New Laws: "new_laws" needs rules {VERSION} or later.'
        )
    if isinstance(value, str):
        if value not in WORDS:
            raise ConfigError(
                f'"new_laws" must be "none", "replace", "combine" or a list of five choices, '
                f"not {_shown(value)}."
            )
        groups: Sequence[Any] = WORDS[value]
    elif isinstance(value, list | tuple):
        groups = value
        if len(groups) != len(GROUPS):
            raise ConfigError(
                f'"new_laws" as a list needs one choice per law group 0 to 4 (five), not '
                f"{len(groups)}."
            )
        for g, choice in enumerate(groups):
            if not isinstance(choice, str) or choice not in CHOICES:
                raise ConfigError(
                    f'"new_laws" group {g}: {_shown(choice)} is not one of "base", "new", "random".'
                )
    else:
        raise ConfigError(
            '"new_laws" must be "none", "replace", "combine" or a list of five choices such '
            'as ["new", "base", "random", "base", "new"].'
        )
    if all(choice == "base" for choice in groups):
        return None
    return tuple(str(c) for c in groups)


def config_value(value: Any, base: Data) -> list[str] | None:
    """What the normalised config holds under ``"new_laws"``: the list of five, or nothing
    (the key left out) for the base laws only."""
    groups = normalise(value, base)
    return None if groups is None else list(groups)


def draw_law_sets(
    config: Mapping[str, Any], r: int
) -> tuple[tuple[str, ...], tuple[bool, ...], int]:
    """Which set each group plays, which of them were drawn, and the generator after. A
    "random" group is drawn base or new with the game's generator, groups 0 to 4 in turn
    (rulebook, "The New Laws": "For each group (0 to 4) and one after the other, put one old
    and one new card in the linen bag. Then, draw one of the two cards"). Without the config
    key: () and nothing drawn."""
    if CONFIG_KEY not in config:
        return (), (), r
    sets: list[str] = []
    drawn: list[bool] = []
    for choice in law_sets(config):
        if choice == "random":
            i, r = rng.below(r, 2)
            sets.append(("base", "new")[i])
            drawn.append(True)
        else:
            sets.append(choice)
            drawn.append(False)
    return tuple(sets), tuple(drawn), r


def law_sets(config: Mapping[str, Any]) -> tuple[str, ...]:
    """What each group 0..4 plays under a normalised config, before any draw: "base",
    "new", "random", or "king" (Henry V's Laws of the King replaces groups 2 and 3)."""
    from engine.lancaster.henry_v import LAWS_OF_THE_KING

    chosen = tuple(config.get(CONFIG_KEY) or ("base",) * 5)
    king = bool(dict(config.get("expansions") or {}).get(LAWS_OF_THE_KING))
    return tuple("king" if king and g in (2, 3) else chosen[g] for g in GROUPS)
