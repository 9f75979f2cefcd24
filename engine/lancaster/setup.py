"""Config validation and the set-up of a game by player count (rules 000/003, "Setup").

The config keys and law sets an expansion adds, and the pieces it puts on the table, are the
extension points below, filled by ``wiring.py`` (engine/lancaster/README.md lists them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.core import rng
from engine.core.protocol import ConfigError
from engine.core.records import replace
from engine.lancaster.data import COUNTY_LETTERS, Data, Law
from engine.lancaster.overrides import apply_overrides
from engine.lancaster.phases.rounds import round_frames
from engine.lancaster.state import Colour, Conflict, State

PLAYER_COUNTS = (2, 3, 4, 5)
#: the law groups, in the order of the draw pile (group 0 the current laws)
LAW_GROUPS = (0, 1, 2, 3, 4)


#: ``ConfigSection.default`` of a key that, absent, stays absent
ABSENT: Any = object()


@dataclass(frozen=True)
class ConfigSection:
    """A config key an expansion adds, and how it is checked and normalised."""

    key: str
    #: (the value given, or ``default`` when the key is absent; the release's dataset) -> the
    #: normalised value, None to leave the key out; raises ConfigError
    normalise: Callable[[Any, Data], Any]
    #: the value of an absent key (``ABSENT``: it stays absent)
    default: Any = ABSENT
    #: checked before the data overrides (which error a config with several shows first)
    before_data: bool = False


#: Extension point: the config keys besides "players" and "data", in the order they are
#: listed (Henry V: "expansions"; The New Laws: "new_laws")
CONFIG_SECTIONS: list[ConfigSection] = []

#: Extension point: the laws a set plays, by name: the ``Law.module`` of its laws ("base" is
#: the base game's, module None; The New Laws: "new"; Laws of the King: "king")
LAW_SETS: dict[str, str | None] = {"base": None}

#: Extension point: a game's law sets drawn at setup, before anything else, ``(config,
#: generator) -> (sets, drawn, generator)``: per law group the set it plays and whether it
#: was drawn, which the state records; ``((), (), generator)`` where the config chooses none
#: (The New Laws)
DRAW_LAW_SETS: list[
    Callable[[Mapping[str, Any], int], tuple[tuple[str, ...], tuple[bool, ...], int]]
] = []

#: Extension point: the set a law group plays in place of the base laws when no set was
#: drawn, ``(config, group) -> set or None`` (Laws of the King: groups 2 and 3)
REPLACED_GROUPS: list[Callable[[Mapping[str, Any], int], str | None]] = []

#: Extension point: a module's pieces put on the table once the base game's are, ``(state)
#: -> state`` (The King's Resentment: the tower and the dishonor track; At the King's Court:
#: the regal board and each player's lord and bishops)
SETUPS: list[Callable[[State], State]] = []


def config_keys() -> tuple[str, ...]:
    return ("players", "data", *(section.key for section in CONFIG_SECTIONS))


def validate_config(config: Mapping[str, Any], base: Data) -> dict[str, Any]:
    """``config`` checked and normalised; its data overrides apply to ``base``, the dataset of
    the rules version the game is created with."""
    if not isinstance(config, Mapping):
        raise ConfigError('The config must be a mapping such as {"players": 3}.')
    keys = config_keys()
    unknown = sorted(str(k) for k in config if k not in keys)
    if unknown:
        raise ConfigError(
            f"Unknown config key(s) {', '.join(unknown)}; Lancaster accepts {', '.join(keys)}."
        )
    players = config.get("players")
    if isinstance(players, bool) or players not in PLAYER_COUNTS:
        raise ConfigError(f'Lancaster is for 2 to 5 players; "players" was {players!r}.')
    sections: dict[str, Any] = {}
    _normalise_sections(config, base, sections, before_data=True)
    _, data = apply_overrides(config.get("data", {}), base)
    _normalise_sections(config, base, sections, before_data=False)
    normalised: dict[str, Any] = {"players": players, "data": data}
    normalised.update((s.key, sections[s.key]) for s in CONFIG_SECTIONS if s.key in sections)
    return normalised


def _normalise_sections(
    config: Mapping[str, Any], base: Data, into: dict[str, Any], before_data: bool
) -> None:
    for section in CONFIG_SECTIONS:
        given = config.get(section.key, section.default)
        if section.before_data != before_data or given is ABSENT:
            continue
        value = section.normalise(given, base)
        if value is not None:
            into[section.key] = value


def law_pool(data: Data, sets: tuple[str, ...]) -> list[Law]:
    """The laws of a game: per group, those of the set it plays (``LAW_SETS``)."""
    return [law for law in data.laws if LAW_SETS[sets[law.group]] == law.module]


def law_sets(config: Mapping[str, Any], r: int) -> tuple[tuple[str, ...], tuple[bool, ...], int]:
    """The set each law group plays, which of them were drawn (both () when the config
    chooses no sets: the state records none), and the generator after."""
    for draw in DRAW_LAW_SETS:
        sets, drawn, r = draw(config, r)
        if sets:
            return sets, drawn, r
    return (), (), r


def _replaced(config: Mapping[str, Any], group: int) -> str:
    return next((s for hook in REPLACED_GROUPS if (s := hook(config, group))), "base")


def removed_by_strength(data: Data, players: int, r: int) -> tuple[tuple[int, ...], int]:
    """The conflict cards removed by France's strength, and the generator after: one card
    of each listed strength; where several cards have it (two of strength 3, removed with 5
    players), which one is drawn with the game's generator (lancaster-data.md, "Conflict
    cards"; rulebook setup sheet: '5 | "2" & 1 x "3"')."""
    out: list[int] = []
    for strength in data.removed_cards_for(players):
        candidates = [c.number for c in data.conflicts if c.france == strength]
        candidates = [c for c in candidates if c not in out]
        if len(candidates) > 1:
            i, r = rng.below(r, len(candidates))
            out.append(candidates[i])
        else:
            out.extend(candidates[:1])  # overrides.py made sure there is one
    return tuple(sorted(out)), r


def initial_state(config: Mapping[str, Any], seed: int, base: Data) -> State:
    config = validate_config(config, base)
    data, _ = apply_overrides(config["data"], base)
    n = int(config["players"])
    r = rng.seed_state(seed)

    # Laws: the three group-0 laws face up as the current laws; the draw pile is group 1 on
    # top, then 2, 3, 4, each shuffled (000/003, Setup 7). Three are revealed now.
    sets, drawn_sets, r = law_sets(config, r)
    pool = law_pool(data, sets or tuple(_replaced(config, g) for g in LAW_GROUPS))
    groups = [[law.key for law in pool if law.group == g] for g in range(5)]
    current, r = rng.shuffled(r, groups[0])
    pile: list[str] = []
    for g in (1, 2, 3, 4):
        shuffled, r = rng.shuffled(r, groups[g])
        pile.extend(shuffled)

    # Conflict cards: two removed by player count (the 2-player entry is the 4-player one,
    # decision 12), the rest shuffled; two revealed into the upper row.
    drawn: tuple[int, ...] = ()
    if data.removal_by_strength:
        drawn, r = removed_by_strength(data, n, r)
        removed = drawn
    else:
        removed = data.removed_cards_for(n)
    cards, r = rng.shuffled(r, [c.number for c in data.conflicts if c.number not in removed])
    start, r = rng.below(r, n)  # Lancaster: a random start player

    reserve = list(data.knights)
    for k in data.start_court:
        reserve.remove(k)
    player = Colour(
        court=tuple(sorted(data.start_court)),
        reserve=tuple(sorted(reserve)),
        castle=(None,) * 6,
        extensions=(),
        nobles=(),
        gold=data.start_gold,
        squires=data.start_squires,
        voting_markers=data.start_voting_markers,
    )
    colours = [player] * n
    if n == 2:
        # decision: rules/README.md, Lancaster 12 — an ally per player: one strength-2 knight
        # at court, the other six in its reserve, no resources.
        ally_reserve = list(data.knights)
        for k in data.ally_start_court:
            ally_reserve.remove(k)
        ally = Colour(
            court=tuple(sorted(data.ally_start_court)),
            reserve=tuple(sorted(ally_reserve)),
            castle=(None,) * 6,
            extensions=(),
            nobles=(),
        )
        colours += [ally, ally]
    # decision 12: the 2-player game uses the 4-player setup except 2 noblemen per county
    # (data.py gives 2 players the 4-player removals, so an override can change either).
    nobles = data.nobles_for(n)
    favors = tuple(f.number for f in data.favors if f.number not in data.removed_favors_for(n))
    state = State(
        config=config,
        data=data,
        players=n,
        round=1,
        start_player=start,
        next_start_player=None,
        colours=tuple(colours),
        counties=(None,) * len(COUNTY_LETTERS),
        nobles=(nobles,) * len(COUNTY_LETTERS),
        upper=(Conflict(cards[0], ()), Conflict(cards[1], ())),
        lower=(None, None),
        conflict_pile=tuple(cards[2:]),
        favors=favors,
        favors_in_game=favors,
        laws=tuple(current),
        new_laws=tuple(pile[:3]),
        law_pile=tuple(pile[3:]),
        votes=(None,) * n,
        results=(),
        agenda=(),
        rng=r,
        removed_cards=drawn,
        law_sets=sets,
        law_sets_drawn=drawn_sets,
    )
    for module_setup in SETUPS:
        state = module_setup(state)
    return replace(state, agenda=(("setup",), *round_frames(state)))
