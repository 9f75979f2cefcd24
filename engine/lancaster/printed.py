"""Lancaster as printed: the dataset of rules 2.0.0, ``PRINTED``, and where each value comes
from (``PROVENANCE``).

Source: the shared ``rules/lancaster-data.md``, which checked every value against the
publisher's rulebook (public copies: ``jonnyallred/boardgame-rules``,
``extracted/lancaster-rules.txt``; ``borisyankov/rulespal``,
``data/rulebooks/lancaster-rulebook.md``). Games created under rules 1.0.0 keep ``data.BASE``
(its counties, laws and conflict cards were partly stand-ins); this module changes nothing of
it.

Provenance tags, as the data file gives them: ``rulebook`` (stated in the publisher's
rulebook), ``example`` (deduced from one of its worked examples), ``seed`` (stated in a rule
text of the shared folder), ``public`` (reviews, reference cards), ``provisional`` (no source:
chosen by the project, overridable per game). Where the file names several sources for one
value, the tag is the first of rulebook, seed, example, public that it names: a value stated
in a text counts before one deduced from an example.
"""

from __future__ import annotations

from engine.core.records import replace
from engine.lancaster.data import (
    BASE,
    BASE_LAWS,
    KING_LAWS,
    PROVISIONAL,
    PUBLIC,
    RULEBOOK,
    SEED,
    CastleSpace,
    ConflictCard,
    County,
    Data,
    Law,
    Reward,
)

EXAMPLE = "example"

VERSION = "2.0.0"

# -- counties (lancaster-data.md, "Counties"; the rulebook's "Summary of Rewards") ------------

COUNTIES = (
    County("A", "Northumberland", 1, Reward(extension=1)),
    County("B", "Stafford", 1, Reward(upgrade=1)),
    # York and Gloucester: the 2 voting markers are taken even when no strength-1 knight is
    # left or no knight can be upgraded (pieces.apply_reward gives what can be given).
    County("C", "York", 1, Reward(new_knight=1, voting_markers=2)),
    County("D", "Gloucester", 3, Reward(upgrade=1, voting_markers=2)),
    County("E", "Bedford", 2, Reward(extension=1)),
    County("F", "Suffolk", 3, Reward(new_knight=1)),
    County("G", "Somerset", 4, Reward(power=4)),
    County("H", "Dorset", 2, Reward(conflict_move=True)),
    # Surrey: 2 gold and 2 squires (the rulebook's example: "he chooses 2 squires and 2 gold"),
    # and its holder names the start player besides (decision: rules/README.md, Lancaster 6).
    County("I", "Surrey", 1, Reward(gold=2, squires=2), names_start_player=True),
)

# The castle and the favors hold the same values as 1.0.0 (only what is known of them changed,
# in PROVENANCE below): PRINTED takes them from BASE.

#: 2 players: the ally's small castle (rulebook, "Rules for a 2-player game": "The ally's
#: castle: A new knight with strength 1 / Upgrade of a knight's level"; "No squires must be
#: expended for new knights and upgrades"; "The allies have a small castle of their own,
#: which cannot be extended")
ALLY_CASTLE = (
    CastleSpace(1, Reward(new_knight=1)),
    CastleSpace(2, Reward(upgrade=1)),
)

# -- conflict cards (lancaster-data.md, "Conflict cards"): removed by France's strength --------

CONFLICTS = tuple(
    ConflictCard(n, france, (a, b, c))
    for n, france, a, b, c in (
        (1, 2, 2, 1, 1),
        (2, 3, 3, 1, 1),
        (3, 3, 3, 2, 1),
        (4, 4, 3, 2, 1),
        (5, 5, 4, 2, 1),  # the rulebook's example: France 5 pays 4, 2 and 1 power points
        (6, 5, 5, 3, 1),
        (7, 6, 5, 3, 2),
        (8, 6, 6, 3, 2),
        (9, 7, 6, 4, 2),
        (10, 8, 7, 4, 2),
        (11, 9, 8, 5, 3),
        (12, 10, 9, 6, 3),
    )
)
#: the strengths of France removed by player count (rulebook setup sheet, "Strength of
#: conflict cards"): with 5 players one card of strength 3 of the two, drawn at setup
REMOVED_STRENGTHS = ((2, (2, 10)), (3, (9, 10)), (4, (2, 10)), (5, (2, 3)))

# -- laws (lancaster-data.md, "Laws"; groups 3/4/4/4/3 by the rulebook's "Summary of Laws") ----

#: the group of each base law in the rulebook (1.0.0 had 13 of them in other groups)
LAW_GROUPS = {
    "most_gold_upgrades": 0,
    "most_squires_new_knight": 0,
    "counties_power": 0,
    "buy_voting_markers": 1,
    "squire_and_gold_for_power": 1,
    "conflicts_extensions": 1,
    "squires_for_strength_2": 1,
    "conflicts_resources": 2,
    "no_strength_2_upgrades": 2,
    "swap_3_for_4": 2,
    "extensions_power": 2,
    "conflicts_power": 3,
    "counties_power_8": 3,
    "strength_1_power": 3,
    "noblemen_knights": 3,
    "buy_power_points": 4,
}

#: the two group-4 laws 1.0.0 lacked (it had stand-ins from The New Laws in their place)
NEW_GROUP_4 = (
    Law(
        "squires_for_power",
        4,
        "Power for squires",
        "Players may give up squires for power points, {squires:squire/squires} for each "
        "point, as many as they like (in player order).",
        (("squires", 1),),
    ),
    Law(
        "all_strengths_power",
        4,
        "Knights of every strength",
        "Players with knights of all four strengths on the board gain "
        "{power:power point/power points}.",
        (("power", 6),),
    ),
)

LAWS = (
    *(replace(law, group=LAW_GROUPS[law.key]) for law in BASE_LAWS if law.key in LAW_GROUPS),
    *NEW_GROUP_4,
)

PRINTED: Data = replace(
    BASE,
    release=VERSION,
    counties=COUNTIES,
    conflicts=CONFLICTS,
    laws=LAWS + KING_LAWS,
    removed_conflicts=REMOVED_STRENGTHS,
    removal_by_strength=True,
    # the rules that change as printed (shared rules/README.md, decisions 6, 12, 17, 19)
    start_player_at_once=True,
    extension_covers_knight=True,
    ally_names_start_player=True,
    ally_passage_to_france=True,
    ally_castle=ALLY_CASTLE,
    majority_points_two_players=(8, 0),
    privilege_needs_knight=True,
    county_names_in_log=True,
)

# -- provenance of every value, by the paths the config overrides use --------------------------

_COUNTY = {
    # letter: (minimum, reward)
    "A": (PROVISIONAL, RULEBOOK),
    "B": (EXAMPLE, RULEBOOK),  # two placement examples: a strength-2 knight, then expelled
    "C": (PROVISIONAL, RULEBOOK),
    "D": (PUBLIC, RULEBOOK),
    "E": (PROVISIONAL, RULEBOOK),
    "F": (PROVISIONAL, RULEBOOK),
    "G": (PUBLIC, PROVISIONAL),  # "4 power points": the kind from the rulebook, not the amount
    "H": (PROVISIONAL, RULEBOOK),
    "I": (PROVISIONAL, EXAMPLE),  # the kind from the rulebook, the amounts from its example
}

_CARD = {
    # card: (France's strength, power points)
    1: (RULEBOOK, PROVISIONAL),
    2: (RULEBOOK, PROVISIONAL),
    3: (RULEBOOK, PROVISIONAL),
    5: (EXAMPLE, EXAMPLE),
    11: (RULEBOOK, PROVISIONAL),
    12: (RULEBOOK, PROVISIONAL),
}

PROVENANCE: dict[str, str] = {
    "start.gold": RULEBOOK,
    "start.squires": RULEBOOK,
    "start.voting_markers": RULEBOOK,
    "knights": RULEBOOK,
    "start_court": RULEBOOK,
    "rounds": SEED,
    "company": SEED,  # the data file: "seed; rulebook example: 4 noblemen give 5"
    "nobles_per_county": SEED,
    # Not in the data file's tables; the rulebook (rulespal copy) states each:
    # "Place 1 knight with strength 2 at the court, the 6 remaining knights go to the reserve."
    "ally_start_court": RULEBOOK,
    # "Pay 3 gold (into the general supply) and take both"
    "both_cost": RULEBOOK,
    # "8 power points for the player with the highest strength total of their knighthood. The
    # runner-up gains 4 power points."
    "majority_points": RULEBOOK,
    # "The players may ransom their knights by paying 1 gold per strength level"
    "ransom_per_strength": RULEBOOK,
    # "Only the 8 power points for the first position are awarded when evaluating the
    # strength of the knighthood and the amount of extensions."
    "majority_points_two_players": RULEBOOK,
    "ally_castle": RULEBOOK,
    **{f"removed_conflicts.{n}": RULEBOOK for n in (2, 3, 4, 5)},
    **{f"removed_favors.{n}": RULEBOOK for n in (2, 3, 4, 5)},
    **{f"counties.{c.letter}.name": RULEBOOK for c in COUNTIES},
    **{f"counties.{k}.minimum": v[0] for k, v in _COUNTY.items()},
    **{f"counties.{k}.reward": v[1] for k, v in _COUNTY.items()},
    "counties.I.start_player": RULEBOOK,
    "castle.1.reward": EXAMPLE,  # "he recruits two squires for his knight"
    "castle.2.reward": PROVISIONAL,  # gold: public; 2: provisional
    "castle.3.reward": PROVISIONAL,  # voting markers: public; 2: provisional
    "castle.4.reward": PROVISIONAL,
    "castle.5.reward": RULEBOOK,
    "castle.6.reward": RULEBOOK,
    "castle.5.cost_squires": RULEBOOK,
    "castle.6.cost_squires": RULEBOOK,
    "favors.1.reward": SEED,  # seed 003's FAQ names the tile
    "favors.2.reward": RULEBOOK,
    "favors.3.reward": PROVISIONAL,  # gold: rulebook; 2: provisional
    "favors.4.reward": PROVISIONAL,  # squires: rulebook; 2: provisional
    "favors.5.reward": RULEBOOK,
    "favors.6.reward": PROVISIONAL,
    **{
        f"conflicts.{c.number}.{part}": _CARD.get(c.number, (PROVISIONAL, PROVISIONAL))[i]
        for c in CONFLICTS
        for i, part in enumerate(("france", "points"))
    },
    **{f"laws.{law.key}.group": RULEBOOK for law in LAWS},
    **{f"laws.{law.key}.params": RULEBOOK for law in LAWS if law.params},
}

#: the Henry V modules' values, as lancaster-data.md gives them: At the King's Court and The
#: King's Resentment "(seed 001, rulebook)", except the dishonor track's number of spaces and
#: its penalties ("provisional"); Laws of the King's texts from seed 001, its groups "from the
#: rulebook"
MODULE_PROVENANCE: dict[str, dict[str, str]] = {
    "laws_of_the_king": {
        **{f"laws.{law.key}.group": RULEBOOK for law in KING_LAWS},
        **{f"laws.{law.key}.params": SEED for law in KING_LAWS},
    },
    "kings_court": {
        f"kings_court.{key}": RULEBOOK
        for key in (
            "offices",
            "seals",
            "bishops",
            "bishops_max",
            "start_voting_markers",
            "privileges",
        )
    },
    "resentment": {
        "resentment.markers": RULEBOOK,
        "resentment.spaces": PROVISIONAL,  # "Number of spaces: 8 (provisional)"
        "resentment.per_space": RULEBOOK,
        "resentment.penalties": PROVISIONAL,  # the seed's example shows a space with 6/3
        "resentment.tower_capacity": RULEBOOK,
        "resentment.tower_neutral": RULEBOOK,
    },
}
