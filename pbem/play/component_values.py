"""A game's component values as players read them: which are not from a published source
(``provisional``), and which the game's config changed from the printed game (``overridden``).

The values, and which of them are provisional, come from the rules themselves (Lancaster's
``provisional_values`` and the dataset its config's ``data`` overrides give); this module only
puts each value's data path into words ("Somerset (county G): its reward"). A path it has no
words for is shown as the path itself, so a value the rules add later is never left out.
Rules without component data (Lancelot) have none of either.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core import ConfigError
from engine.lancaster.data import Data, Reward
from engine.lancaster.henry_v import KINGS_COURT, LAWS_OF_THE_KING, RESENTMENT
from engine.lancaster.overrides import apply_overrides

#: the Henry V modules by the names players know them by
MODULE_NAMES = {
    KINGS_COURT: "At the King's Court",
    RESENTMENT: "The King's Resentment",
    LAWS_OF_THE_KING: "Laws of the King",
}
#: the player count the rules page's lists are worked out for (no provenance depends on it)
SAMPLE_PLAYERS = 3


@dataclass(frozen=True)
class Value:
    """One component value: its data ``path`` (what a config's ``data`` override names),
    ``what`` it stands for in words, the ``value`` the game uses, and for a value the game's
    config changed, the ``printed`` one (the rules release's own) it replaces."""

    path: str
    what: str
    value: str
    printed: str | None = None


def _data_of(rules: Any, config: Mapping[str, Any]) -> Data | None:
    """The dataset a game of ``rules`` plays with ``config`` (its release's data with the
    config's overrides), or None for rules that have no component data."""
    base = getattr(rules, "base", None)
    if not isinstance(base, Data):
        return None
    data, _ = apply_overrides(config.get("data") or {}, base)
    return data


def _plural(n: int, one: str, many: str) -> str:
    return f"1 {one}" if n == 1 else f"{n} {many}"


def _strengths(values: Sequence[int]) -> str:
    return ", ".join(map(str, values)) if values else "none"


def _by_players(table: Sequence[tuple[int, Any]], show: Callable[[Any], str] = str) -> str:
    return "; ".join(f"{n} players: {show(v)}" for n, v in table)


def _reward(reward: Reward) -> str:
    return reward.describe()


def _county(data: Data, letter: str) -> str:
    county = data.county(letter)
    named = county.name if county.name != f"County {letter}" else ""
    return f"{named} (county {letter})" if named else f"County {letter}"


def _law(data: Data, key: str) -> str:
    try:
        return f"the law “{data.law(key).title}”"
    except KeyError:
        return f"the law {key}"


def describe(data: Data, path: str) -> tuple[str, str]:
    """(what ``path`` stands for, its value in ``data``) in words a player understands; the
    path itself and "?" for a path this module does not know."""
    try:
        return _describe(data, path.split("."))
    except (KeyError, IndexError, ValueError):
        return path, "?"


def _describe(data: Data, parts: list[str]) -> tuple[str, str]:
    head = parts[0]
    rest = parts[1:]
    if head == "start":
        what = {"gold": "gold", "squires": "squires", "voting_markers": "voting markers"}[rest[0]]
        number = {
            "gold": data.start_gold,
            "squires": data.start_squires,
            "voting_markers": data.start_voting_markers,
        }[rest[0]]
        return f"Each player's starting {what}", str(number)
    if head == "knights":
        return "Each colour's knights, by strength", _strengths(data.knights)
    if head == "start_court":
        return "The knights each player starts with at court", _strengths(data.start_court)
    if head == "ally_start_court":
        return "2 players: the knights an ally starts with at court", _strengths(
            data.ally_start_court
        )
    if head == "ally_castle":
        spaces = "; ".join(f"space {s.number}: {_reward(s.reward)}" for s in data.ally_castle)
        return "2 players: the ally's small castle", spaces or "a castle like a player's"
    if head == "rounds":
        return "Rounds in a game", str(data.rounds)
    if head == "both_cost":
        return "Gold paid in a county to take its nobleman and its reward both", str(data.both_cost)
    if head == "company":
        return (
            "Company at table: voting markers each player takes when castles are scored",
            f"{data.company_base} + {data.company_per_nobleman} per nobleman",
        )
    if head == "majority_points":
        first, second = data.majority_points
        return (
            "Final scoring: power points for the strongest knighthood and the most extensions",
            f"{first} for the most, {second} for the second",
        )
    if head == "majority_points_two_players":
        pair = data.majority_points_two_players or data.majority_points
        return (
            "Final scoring with 2 players: power points for knighthood and extensions",
            f"{pair[0]} for the most, {pair[1]} for the second",
        )
    if head == "ransom_per_strength":
        return "Ransom of a knight captured in France: gold per strength point", str(
            data.ransom_per_strength
        )
    if head == "nobles_per_county":
        return "Noblemen in each county, by number of players", _by_players(data.nobles_per_county)
    if head == "removed_conflicts":
        n = int(rest[0])
        removed = data.removed_cards_for(n)
        if data.removal_by_strength:
            shown = " and ".join(f"one of France strength {s}" for s in removed)
        else:
            shown = " and ".join(f"card {c}" for c in removed)
        return f"Conflict cards taken out with {n} players", shown or "none"
    if head == "removed_favors":
        n = int(rest[0])
        tiles = [f"tile {t} ({_reward(data.favor(t).reward)})" for t in data.removed_favors_for(n)]
        return f"King's favor tiles taken out with {n} players", ", ".join(tiles) or "none"
    if head == "counties":
        county = data.county(rest[0])
        where = _county(data, rest[0])
        if rest[1:] == ["minimum"]:
            return f"{where}: the weakest knight that may enter", f"strength {county.minimum}"
        if rest[1:] == ["reward"]:
            return f"{where}: its reward", _reward(county.reward)
        if rest[1:] == ["name"]:
            return f"County {rest[0]}: its name", county.name
        if rest[1:] == ["start_player"]:
            holder = "names the start player" if county.names_start_player else "names no one"
            return f"{where}: its holder names the start player", f"its holder {holder}"
        raise KeyError(rest[1])
    if head == "castle":
        space = data.space(int(rest[0]))
        if rest[1:] == ["cost_squires"]:
            return f"Castle space {space.number}: squires paid to use it", str(space.cost_squires)
        cost = (
            f"pay {_plural(space.cost_squires, 'squire', 'squires')}: "
            if space.cost_squires
            else ""
        )
        return f"Castle space {space.number}: its reward", cost + _reward(space.reward)
    if head == "favors":
        return f"King's favor tile {rest[0]}", _reward(data.favor(int(rest[0])).reward)
    if head == "conflicts":
        card = data.card(int(rest[0]))
        points = "/".join(map(str, card.points))
        if rest[1:] == ["france"]:
            return f"Conflict card {card.number}: France's strength", str(card.france)
        if rest[1:] == ["points"]:
            return (
                f"Conflict card {card.number} (France {card.france}): power points for "
                "1st/2nd/3rd place",
                points,
            )
        return (
            f"Conflict card {card.number}: France's strength and power points for 1st/2nd/3rd",
            f"France {card.france}; {points}",
        )
    if head == "laws":
        law = data.law(rest[0])
        if rest[1:] == ["group"]:
            return f"{_law(data, rest[0]).capitalize()}: its group (when it comes up)", (
                f"group {law.group}"
            )
        if rest[1:] == ["params"]:
            return f"{_law(data, rest[0]).capitalize()}: its numbers", law.text
        if rest[1:] == ["card"]:
            return (
                f"{_law(data, rest[0]).capitalize()}: a law from The New Laws standing in for a "
                "base law",
                law.text,
            )
        raise KeyError(rest[1])
    if head == "resentment":
        module = MODULE_NAMES[RESENTMENT]
        key = rest[0]
        if key == "penalties":
            return (
                f"{module}: the dishonor track's penalties per space (larger/smaller)",
                ", ".join(f"{a}/{b}" for a, b in data.dishonor_penalties),
            )
        words: dict[str, tuple[str, str]] = {
            "markers": ("dishonor markers in the game", str(data.dishonor_markers)),
            "spaces": ("spaces of the dishonor track", str(data.dishonor_spaces)),
            "per_space": (
                "dishonor markers on each track space, by number of players",
                _by_players(data.dishonor_per_space),
            ),
            "tower_capacity": (
                "the tower's capacity (total strength of the knights in it)",
                str(data.tower_capacity),
            ),
            "tower_neutral": (
                "the neutral knight put in the tower at setup, by number of players",
                _by_players(data.tower_neutral, lambda k: f"strength {k}" if k else "none"),
            ),
        }
        what, value = words[key]
        return f"{module}: {what}", value
    if head == "kings_court":
        module = MODULE_NAMES[KINGS_COURT]
        key = rest[0]
        shields, archers, tudors = data.privileges
        words = {
            "offices": (
                "the regal seals each office grants",
                "; ".join(f"{o.title}: {o.seals}" for o in data.offices),
            ),
            "seals": ("regal seals in the game", str(data.seals)),
            "bishops": ("bishops, by number of players", _by_players(data.bishops_per_players)),
            "bishops_max": ("the most bishops a player may hold", str(data.bishops_max)),
            "start_voting_markers": (
                "each player's starting voting markers",
                str(data.court_start_voting_markers),
            ),
            "privileges": (
                "privileges in the game",
                f"{shields} shields, {archers} archers, {tudors} Tudor knights",
            ),
        }
        what, value = words[key]
        return f"{module}: {what}", value
    raise KeyError(head)


def provisional(rules: Any, config: Mapping[str, Any]) -> list[Value]:
    """Every value of a game of ``rules`` with ``config`` that is not from a published source
    (the rules' own ``provisional_values``), in words; [] for rules that declare none."""
    listed = getattr(rules, "provisional_values", None)
    data = _data_of(rules, config)
    if listed is None or data is None:
        return []
    out = []
    for path, engine_text in listed(config):
        what, value = describe(data, str(path))
        # a path without words of ours keeps the rules' own text of its value
        out.append(Value(str(path), what, engine_text if value == "?" else value))
    return sorted(out, key=lambda v: _path_order(v.path))


def overridden(rules: Any, config: Mapping[str, Any]) -> list[Value]:
    """Every value the game's config changes from its rules release's printed data (the
    config's ``data`` overrides), in words, each with the value it replaces."""
    data = _data_of(rules, config)
    if data is None or not data.overridden:
        return []
    printed: Data = rules.base
    out = []
    for path in sorted(data.overridden, key=_path_order):
        what, value = describe(data, path)
        _, was = describe(printed, path)
        out.append(Value(path, what, value, was if was != value else None))
    return out


_ORDER = (
    "start",
    "knights",
    "start_court",
    "ally_start_court",
    "counties",
    "castle",
    "favors",
    "conflicts",
    "removed_conflicts",
    "removed_favors",
    "nobles_per_county",
    "laws",
    "rounds",
    "both_cost",
    "company",
    "ransom_per_strength",
    "majority_points",
    "kings_court",
    "resentment",
)


def _path_order(path: str) -> tuple[int, list[str | int]]:
    parts = path.split(".")
    rank = _ORDER.index(parts[0]) if parts[0] in _ORDER else len(_ORDER)
    return rank, [int(p) if p.isdigit() else p for p in parts[1:]]


@dataclass(frozen=True)
class Section:
    """Part of the rules page's list: the values provisional ``when`` ("In every game", "With
    The King's Resentment"), beyond those of the sections before it."""

    when: str
    values: tuple[Value, ...]


def _config_for(modules: Sequence[str], extra: Mapping[str, Any]) -> dict[str, Any]:
    config: dict[str, Any] = {"players": SAMPLE_PLAYERS, **extra}
    if modules:
        config["expansions"] = dict.fromkeys(modules, True)
    return config


def sections(rules: Any) -> list[Section]:
    """The values still provisional in ``rules`` (a release, e.g. the latest), as the rules
    page lists them: those of every game, then those each Henry V module set and The New Laws
    add, where the release plays them."""
    if not isinstance(getattr(rules, "base", None), Data):
        return []  # rules without component data (Lancelot)
    listed = getattr(rules, "module_combinations", None)
    combos: list[tuple[str, ...]] = listed() if listed is not None else [()]
    variants: list[tuple[str, dict[str, Any]]] = []
    for combo in combos:
        # Named by the modules that no smaller set plays (Laws of the King, which needs both
        # others), else by all of the set.
        alone = [m for m in combo if not any(m in c and len(c) < len(combo) for c in combos)]
        named = alone or list(combo)
        label = (
            "In every game"
            if not combo
            else "With " + " and ".join(MODULE_NAMES.get(m, m) for m in named)
        )
        variants.append((label, _config_for(combo, {})))
    # The New Laws, in every way a game may take them (a release that does not play them
    # refuses the config, and they are left out).
    for label, laws in (
        ("With The New Laws (in place of the base laws)", "replace"),
        ("With The New Laws combined with the base laws", "combine"),
    ):
        variants.append((label, _config_for((), {"new_laws": laws})))
    seen: set[str] = set()
    out: list[Section] = []
    for label, config in variants:
        try:
            values = provisional(rules, config)
        except ConfigError:
            continue
        new = tuple(v for v in values if v.path not in seen)
        seen.update(v.path for v in values)
        if new or not out:
            out.append(Section(label, new))
    return out


def count_for(rules: Any, config: Mapping[str, Any]) -> int | None:
    """How many values of a game of ``rules`` with ``config`` are not from a published
    source; None when the rules refuse the config."""
    try:
        return len(provisional(rules, config))
    except ConfigError:
        return None


# -- The New Laws: which laws each group plays ----------------------------------------------

#: the law groups, 0 (face up at setup) to 4
LAW_GROUPS = (0, 1, 2, 3, 4)
#: what a law group plays, in words: the config's choices ("base", "new", "random") and the
#: view's account once drawn ("king": Laws of the King in place of groups 2 and 3)
LAW_SET_WORDS = {
    "base": "the base game's laws",
    "new": "The New Laws",
    "random": "drawn at random when the game was set up",
    "king": MODULE_NAMES[LAWS_OF_THE_KING],
}


def chosen_law_sets(config: Mapping[str, Any]) -> list[str] | None:
    """The set each law group 0 to 4 plays by the config's ``new_laws`` ("base", "new" or
    "random"), or None for a game of the base laws (no ``new_laws``, or "none"). The engine
    records the list of five; "replace" and "combine" are read too."""
    chosen = config.get("new_laws")
    if chosen in (None, "none"):
        return None
    if chosen == "replace":
        return ["new"] * len(LAW_GROUPS)
    if chosen == "combine":
        return ["random"] * len(LAW_GROUPS)
    if isinstance(chosen, list | tuple) and len(chosen) == len(LAW_GROUPS):
        return [str(c) for c in chosen]
    return None


def _view_law_sets(view: Mapping[str, Any]) -> list[tuple[str, bool]] | None:
    """(set, drawn at setup) per group from the view (``laws.sets``: the engine's account,
    the draws included, public), or None when the view has none."""
    laws = view.get("laws")
    sets = laws.get("sets") if isinstance(laws, Mapping) else None
    if not isinstance(sets, list | tuple) or len(sets) != len(LAW_GROUPS):
        return None
    out = []
    for entry in sets:
        if not isinstance(entry, Mapping):
            return None
        out.append((str(entry.get("set")), bool(entry.get("drawn"))))
    return out


def law_sets(config: Mapping[str, Any], view: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(group, which laws it plays) of a game with The New Laws, for its pages: the view's
    own account where it gives one (a group drawn at random shows what was drawn), else the
    config's choice, where Laws of the King takes groups 2 and 3. Empty for a game of the
    base laws."""
    chosen = chosen_law_sets(config)
    if chosen is None:
        return []
    shown = _view_law_sets(view)
    if shown is not None:
        return [
            (
                f"Group {group}",
                LAW_SET_WORDS.get(which, which) + (" (drawn at random at setup)" if drawn else ""),
            )
            for group, (which, drawn) in zip(LAW_GROUPS, shown, strict=True)
        ]
    king = bool((config.get("expansions") or {}).get(LAWS_OF_THE_KING))
    out = []
    for group, which in zip(LAW_GROUPS, chosen, strict=True):
        words = LAW_SET_WORDS.get(which, which)
        if king and group in (2, 3):
            words = LAW_SET_WORDS["king"]
        out.append((f"Group {group}", words))
    return out
