"""Lancaster component data: every printed number the engine needs, with its provenance.

Source: the shared ``rules/lancaster-data.md``. Each value is tagged ``rulebook`` (the
publisher's rulebook), ``example`` (deduced from a worked example of it), ``seed`` (stated in a
rule text we hold), ``public`` (published summaries and reference cards) or ``provisional``
(chosen by the project where no source was available; owners of the game can correct it).

Each rules release has its own dataset: ``BASE`` here is rules 1.0.0's (kept as it was: games
created with it replay exactly), ``printed.PRINTED`` is 2.0.0's, the values of the rulebook.

A game's config may override values under ``"data"`` (``overrides.apply_overrides`` validates
them; the override then lives in the config, so a replay stays exact). ``provenance.py`` holds
each value's provenance and lists what is provisional for the game page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

RULEBOOK = "rulebook"
SEED = "seed"
PUBLIC = "public"
PROVISIONAL = "provisional"
CONFIG = "config"  # a value replaced by the game's config

COUNTY_LETTERS = "ABCDEFGHI"
CASTLE_SPACES = (1, 2, 3, 4, 5, 6)


@dataclass(frozen=True, slots=True)
class Reward:
    """What a county, castle space or king's favor tile gives.

    At most one part needs a choice (``upgrade``, ``extension``, ``nobleman``,
    ``conflict_move``, ``start_player``), so a reward is one action with one detail.
    """

    gold: int = 0
    squires: int = 0
    voting_markers: int = 0
    power: int = 0
    new_knight: int = 0
    upgrade: int = 0
    extension: int = 0
    nobleman: int = 0
    conflict_move: bool = False
    start_player: bool = False

    def choice(self) -> str | None:
        """The part of the reward that needs the player's choice, if any."""
        if self.upgrade:
            return "upgrade"
        if self.extension:
            return "extension"
        if self.nobleman:
            return "nobleman"
        if self.conflict_move:
            return "conflict_move"
        if self.start_player:
            return "start_player"
        return None

    def describe(self) -> str:
        parts: list[str] = []
        if self.nobleman:
            parts.append("a nobleman of your choice")
        if self.upgrade:
            parts.append("upgrade a knight")
        if self.new_knight:
            parts.append(_count(self.new_knight, "new knight (strength 1)", "new knights"))
        if self.extension:
            parts.append("a castle extension")
        if self.gold:
            parts.append(f"{self.gold} gold")
        if self.squires:
            parts.append(_count(self.squires, "squire", "squires"))
        if self.voting_markers:
            parts.append(_count(self.voting_markers, "voting marker", "voting markers"))
        if self.power:
            parts.append(_count(self.power, "power point", "power points"))
        if self.conflict_move:
            parts.append("move this knight to a conflict (no king's favor)")
        if self.start_player:
            parts.append("choose the next start player")
        return " + ".join(parts) if parts else "nothing"


def _count(n: int, one: str, many: str) -> str:
    return f"1 {one}" if n == 1 else f"{n} {many}"


@dataclass(frozen=True, slots=True)
class County:
    letter: str
    name: str
    minimum: int
    reward: Reward
    #: the holder names the next start player, whatever else they take there (decision:
    #: rules/README.md, Lancaster 6: Surrey); this is not part of the county's reward
    names_start_player: bool = False


@dataclass(frozen=True, slots=True)
class CastleSpace:
    number: int
    reward: Reward
    cost_squires: int = 0  # a paid space: optional each time (lancaster-data.md, Castle)


@dataclass(frozen=True, slots=True)
class Favor:
    number: int
    reward: Reward


@dataclass(frozen=True, slots=True)
class ConflictCard:
    number: int
    france: int
    points: tuple[int, int, int]  # power points for ranks 1, 2, 3


@dataclass(frozen=True, slots=True)
class Law:
    key: str
    group: int
    title: str
    #: the card's text; ``{name:one/many}`` is a parameter with its noun (singular/plural),
    #: so that an overridden number is also what players read and vote on
    template: str
    params: tuple[tuple[str, int], ...] = ()
    module: str | None = None  # a Henry V module whose laws these are (None: the base game)

    def param(self, name: str) -> int:
        for key, value in self.params:
            if key == name:
                return value
        raise KeyError(name)

    @property
    def text(self) -> str:
        def fill(m: re.Match[str]) -> str:
            n = self.param(m.group(1))
            return f"{n} {m.group(2) if n == 1 else m.group(3)}" if m.group(2) else str(n)

        return _PARAM.sub(fill, self.template)


_PARAM = re.compile(r"\{(\w+)(?::([^/}]*)/([^}]*))?\}")


@dataclass(frozen=True, slots=True)
class Office:
    """An office at the king's court: its tribute (a resource key) and its grant."""

    key: str
    title: str
    tribute: str  # "voting_markers", "squires" or "gold"
    seals: int
    privilege: str | None  # "shield", "archer" or "tudor"
    privilege_in_last_round: bool


OFFICES = (
    Office("chancellor", "Lord High Chancellor", "voting_markers", 2, "shield", False),
    Office("constable", "Lord High Constable", "squires", 1, "archer", False),
    Office("chamberlain", "Lord Great Chamberlain", "gold", 0, "tudor", True),
)


@dataclass(frozen=True, slots=True)
class Data:
    start_gold: int
    start_squires: int
    start_voting_markers: int
    knights: tuple[int, ...]  # one colour's knights by strength
    start_court: tuple[int, ...]
    ally_start_court: tuple[int, ...]  # decision: rules/README.md, Lancaster 12
    rounds: int
    both_cost: int  # gold to take both nobleman and reward in a county
    company_base: int  # voting markers for company at table, plus one per nobleman
    company_per_nobleman: int
    majority_points: tuple[int, int]  # final scoring: most, second (knighthood, castle)
    ransom_per_strength: int  # gold to ransom a captured knight, per strength point
    counties: tuple[County, ...]
    castle: tuple[CastleSpace, ...]
    favors: tuple[Favor, ...]
    conflicts: tuple[ConflictCard, ...]
    laws: tuple[Law, ...]
    nobles_per_county: tuple[tuple[int, int], ...]  # (players, tiles per county)
    #: (players, card numbers), or France's strengths with ``removal_by_strength``
    removed_conflicts: tuple[tuple[int, tuple[int, ...]], ...]
    removed_favors: tuple[tuple[int, tuple[int, ...]], ...]  # (players, tile numbers)
    # -- Henry V, The King's Resentment (lancaster-data.md) --
    dishonor_markers: int = 38
    dishonor_spaces: int = 8  # spaces of the dishonor track
    dishonor_per_space: tuple[tuple[int, int], ...] = ((2, 2), (3, 3), (4, 4), (5, 4))
    #: printed penalties (larger, smaller) of the track spaces, left to right
    dishonor_penalties: tuple[tuple[int, int], ...] = (
        (1, 0),
        (2, 1),
        (3, 1),
        (4, 2),
        (5, 2),
        (6, 3),
        (7, 3),
        (8, 4),
    )
    tower_capacity: int = 7  # total strength the tower holds
    tower_neutral: tuple[tuple[int, int], ...] = ((2, 4), (3, 3), (4, 2), (5, 0))
    # -- Henry V, At the King's Court (lancaster-data.md) --
    court_start_voting_markers: int = 2  # 001: "each player receives 2 voting markers"
    offices: tuple[Office, ...] = ()
    seals: int = 24
    bishops_per_players: tuple[tuple[int, int], ...] = ((2, 5), (3, 5), (4, 7), (5, 9))
    bishops_max: int = 3  # per player
    privileges: tuple[int, int, int] = (2, 3, 3)  # shields, archers, Tudor knights
    overridden: frozenset[str] = field(default_factory=frozenset)
    #: the rules release whose dataset this is ("1.0.0": ``BASE``; "2.0.0": the printed data);
    #: ``provenance`` reads each value's source by it
    release: str = "1.0.0"
    #: ``removed_conflicts`` names France's strengths, not card numbers (rulebook setup sheet,
    #: "Strength of conflict cards"); where several cards have a strength, which one is
    #: removed is drawn at setup
    removal_by_strength: bool = False
    # -- the rules rules 2.0.0 plays as printed (shared rules/README.md); 1.0.0 keeps its own --
    #: Surrey's holder names the start player with immediate effect: this round's castles
    #: and ransoms already go in the new order (decision 6); else from the next round
    start_player_at_once: bool = False
    #: an extension tile may cover a space where a knight stands: the knight goes back to
    #: court unscored (decision 17); else such a space cannot be covered
    extension_covers_knight: bool = False
    #: 2 players: an ally in Surrey lets its player name the start player, and an ally in
    #: Dorset passes to France (decision 12); else both are lost (engine README decision 7)
    ally_names_start_player: bool = False
    ally_passage_to_france: bool = False
    #: 2 players: final scoring's (most, second) for knighthood and extensions (decision 12:
    #: only the 8 for first place); None: ``majority_points`` as with more players
    majority_points_two_players: tuple[int, int] | None = None
    #: 2 players: the ally's own small castle, its spaces used without paying squires and
    #: never extended (decision 12); (): the ally has a castle like a player's
    ally_castle: tuple[CastleSpace, ...] = ()
    #: At the King's Court: a Tudor knight supports a lord only beside a knight of the same
    #: player (decision 19)
    privilege_needs_knight: bool = False
    #: the log names a county by its printed name and letter ("York (C)"); rules 1.0.0's
    #: logs (and golden transcripts) name the letter alone
    county_names_in_log: bool = False

    def county(self, letter: str) -> County:
        return self.counties[COUNTY_LETTERS.index(letter)]

    def space(self, number: int) -> CastleSpace:
        return self.castle[number - 1]

    def castle_of(self, ally: bool) -> tuple[CastleSpace, ...]:
        """The spaces of a castle: an ally's own where the release has one (decision 12)."""
        return self.ally_castle if ally and self.ally_castle else self.castle

    def favor(self, number: int) -> Favor:
        return self.favors[number - 1]

    def card(self, number: int) -> ConflictCard:
        return self.conflicts[number - 1]

    def law(self, key: str) -> Law:
        for law in self.laws:
            if law.key == key:
                return law
        raise KeyError(key)

    def nobles_for(self, players: int) -> int:
        return dict(self.nobles_per_county)[players]

    def removed_cards_for(self, players: int) -> tuple[int, ...]:
        return dict(self.removed_conflicts).get(players, ())

    def removed_favors_for(self, players: int) -> tuple[int, ...]:
        return dict(self.removed_favors).get(players, ())


# -- the base data (lancaster-data.md) ---------------------------------------------------------

_COUNTIES = (
    County("A", "County A", 1, Reward(gold=1, squires=1)),
    County("B", "County B", 2, Reward(upgrade=1)),
    County("C", "County C", 1, Reward(new_knight=1)),
    County("D", "Gloucester", 3, Reward(upgrade=1, voting_markers=2)),
    County("E", "County E", 2, Reward(voting_markers=2)),
    County("F", "County F", 3, Reward(new_knight=1, squires=1)),
    County("G", "County G", 4, Reward(extension=1)),
    County("H", "Dorset", 2, Reward(conflict_move=True)),
    # decision: rules/README.md, Lancaster 6 — Surrey's printed reward is unknown to us: it
    # offers the nobleman only; naming the next start player goes with holding it.
    County("I", "Surrey", 1, Reward(), names_start_player=True),
)

_CASTLE = (
    CastleSpace(1, Reward(squires=2)),
    CastleSpace(2, Reward(gold=2)),
    CastleSpace(3, Reward(voting_markers=2)),
    CastleSpace(4, Reward(gold=1, squires=1)),
    CastleSpace(5, Reward(upgrade=1), cost_squires=2),
    CastleSpace(6, Reward(new_knight=1), cost_squires=3),
)

_FAVORS = (
    Favor(1, Reward(new_knight=1)),
    Favor(2, Reward(upgrade=1)),
    Favor(3, Reward(gold=2)),
    Favor(4, Reward(squires=2)),
    Favor(5, Reward(nobleman=1)),
    Favor(6, Reward(voting_markers=2)),
)

CONFLICT_CARDS = tuple(
    ConflictCard(n, france, (a, b, c))
    for n, france, a, b, c in (
        (1, 3, 4, 2, 1),
        (2, 4, 5, 3, 1),
        (3, 4, 5, 2, 1),
        (4, 5, 6, 3, 1),
        (5, 5, 6, 3, 2),
        (6, 6, 7, 4, 2),
        (7, 6, 7, 3, 2),
        (8, 7, 8, 4, 2),
        (9, 7, 8, 5, 2),
        (10, 8, 9, 5, 3),
        (11, 8, 10, 5, 2),
        (12, 9, 10, 6, 3),
    )
)

BASE_LAWS = (
    Law(
        "buy_voting_markers",
        0,
        "Buy voting markers",
        "Players may buy 1 voting marker for {gold} gold each, any number (in player order).",
        (("gold", 1),),
    ),
    Law(
        "squires_for_strength_2",
        0,
        "Squires for strength-2 knights",
        "Players recruit {squires:squire/squires} for each of their deployed strength-2 knights.",
        (("squires", 1),),
    ),
    Law(
        "buy_power_points",
        0,
        "Buy power points",
        "Players may buy 1 power point for {gold} gold each, any number (in player order).",
        (("gold", 1),),
    ),
    Law(
        "most_gold_upgrades",
        1,
        "The richest upgrade",
        "The player with the most gold may upgrade one of their deployed knights "
        "(ties: all tied players).",
    ),
    Law(
        "most_squires_new_knight",
        1,
        "The most squires recruit",
        "The player with the most squires recruits a new strength-1 knight to their court "
        "(ties: all tied players).",
    ),
    Law(
        "no_strength_2_upgrades",
        1,
        "Upgrade without strength 2",
        "Players with no deployed strength-2 knight may upgrade one of their knights.",
    ),
    Law(
        "counties_power",
        2,
        "Power for counties",
        "All players gain {power:power point/power points} for every {per:county/counties} "
        "occupied by their own knights.",
        (("power", 3), ("per", 2)),
    ),
    Law(
        "squire_and_gold_for_power",
        2,
        "Buy power with squires and gold",
        "Players may spend 1 squire + 1 gold for {power:power point/power points}, any number "
        "of times (in player order).",
        (("power", 3),),
    ),
    Law(
        "conflicts_extensions",
        2,
        "Extensions for conflicts",
        "Players may take 1 extension tile for every {per:conflict/conflicts} they are involved "
        "in with their own knights.",
        (("per", 2),),
    ),
    Law(
        "swap_3_for_4",
        2,
        "Swap strength 3 for 4",
        "Players who deployed their strength-3 knight may swap it for their strength-4 knight, "
        "if that is in the reserve.",
    ),
    Law(
        "conflicts_resources",
        3,
        "Supplies for conflicts",
        "Players receive 1 squire + 1 voting marker + 1 gold for every {per:conflict/conflicts} "
        "with at least 1 of their knights.",
        (("per", 2),),
    ),
    Law(
        "conflicts_power",
        3,
        "Power for conflicts",
        "Players gain {power:power point/power points} for each conflict with at least 1 of "
        "their knights.",
        (("power", 3),),
    ),
    Law(
        "strength_1_power",
        3,
        "All strength-1 knights deployed",
        "Players who have all 3 of their strength-1 knights deployed gain "
        "{power:power point/power points}.",
        (("power", 5),),
    ),
    Law(
        "conflicts_markers",
        3,
        "Voting markers for conflicts",
        "Players gain {voting_markers:voting marker/voting markers} for each conflict they are "
        "involved in with their own knights.",
        (("voting_markers", 1),),
    ),
    Law(
        "extensions_power",
        4,
        "Power for extensions",
        "Players gain {power:power point/power points} for every "
        "{per:extension tile/extension tiles} in their castle.",
        (("power", 5), ("per", 3)),
    ),
    Law(
        "counties_power_8",
        4,
        "Great power for counties",
        "Players gain {power:power point/power points} for every {per:county/counties} with "
        "their own knights.",
        (("power", 8), ("per", 3)),
    ),
    Law(
        "noblemen_knights",
        4,
        "Knights for noblemen",
        "Players recruit 1 new knight from the reserve to their court for every "
        "{per:nobleman/noblemen} they hold.",
        (("per", 3),),
    ),
    Law(
        "most_gold_squire_marker",
        4,
        "The richest gain",
        "The player with the most gold gains 1 squire and 1 voting marker (ties: all tied "
        "players).",
    ),
)

_KING = "laws_of_the_king"
#: Laws of the King (001): they replace the base laws of groups 2 and 3 (the first four in
#: group 2, the last four in group 3: lancaster-data.md, provisional).
KING_LAWS = (
    Law(
        "dispose_most_squires_gold",
        2,
        "The richest dispose",
        "The player with the most squires must dispose of {squires:squire/squires}; the "
        "player with the most gold must dispose of {gold} gold (ties: all tied players).",
        (("squires", 2), ("gold", 3)),
        _KING,
    ),
    Law(
        "no_bishops_return_dishonor",
        2,
        "Pardon without bishops",
        "Each player without bishops may return {dishonor:dishonor marker/dishonor markers} "
        "to the supply.",
        (("dishonor", 1),),
        _KING,
    ),
    Law(
        "fewest_dishonor_power",
        2,
        "Power for the honourable",
        "The player with the fewest dishonor markers gains {power:power point/power points} "
        "(ties: all tied players).",
        (("power", 5),),
        _KING,
    ),
    Law(
        "seals_for_squires_gold",
        2,
        "Seals for squires and gold",
        "For each regal seal they dispose of, players receive {squires:squire/squires} and "
        "{gold} gold (each decides how many, in player order from the start player).",
        (("squires", 2), ("gold", 1)),
        _KING,
    ),
    Law(
        "most_markers_seal",
        3,
        "A seal for the most voting markers",
        "The player with the most voting markers after the third voting receives "
        "{seals:regal seal/regal seals} (ties: all tied players). Voting markers go back to "
        "the supply only after all current laws are applied; those gained from laws are kept.",
        (("seals", 1),),
        _KING,
    ),
    Law(
        "most_squires_gold_power",
        3,
        "Power for squires and gold",
        "The player with the most squires gains {power:power point/power points}; the player "
        "with the most gold gains {power:power point/power points} (ties: all tied players).",
        (("power", 3),),
        _KING,
    ),
    Law(
        "dishonor_for_counties",
        3,
        "Dishonor for counties",
        "Players receive 1 dishonor marker for every {per:county/counties} occupied by their "
        "knights.",
        (("per", 2),),
        _KING,
    ),
    Law(
        "tower_knights_power",
        3,
        "Power for the tower",
        "Players gain {power:power point/power points} for each of their knights in the tower.",
        (("power", 3),),
        _KING,
    ),
)

BASE = Data(
    start_gold=2,
    start_squires=2,
    start_voting_markers=1,
    knights=(1, 1, 1, 2, 2, 3, 4),
    start_court=(1, 2),
    ally_start_court=(2,),
    rounds=5,
    both_cost=3,
    company_base=1,
    company_per_nobleman=1,
    majority_points=(8, 4),
    ransom_per_strength=1,
    counties=_COUNTIES,
    castle=_CASTLE,
    favors=_FAVORS,
    conflicts=CONFLICT_CARDS,
    laws=BASE_LAWS + KING_LAWS,
    nobles_per_county=((2, 2), (3, 2), (4, 3), (5, 4)),
    # 2 players: the 4-player setup (000: "2p/4p: remove 2 & 10"; decision 12)
    removed_conflicts=((2, (2, 10)), (3, (9, 10)), (4, (2, 10)), (5, (2, 3))),
    removed_favors=((2, ()), (3, (2,)), (4, ()), (5, ())),
    offices=OFFICES,
)
