"""Config validation and the set-up of a game by player count (rules 000/003, "Setup")."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from engine.core import rng
from engine.core.protocol import ConfigError
from engine.lancaster import new_laws
from engine.lancaster.data import COUNTY_LETTERS, Data, Law
from engine.lancaster.henry_v import (
    KINGS_COURT,
    LAWS_OF_THE_KING,
    MODULES,
    RESENTMENT,
    court,
    resentment,
)
from engine.lancaster.overrides import apply_overrides
from engine.lancaster.phases.rounds import round_frames
from engine.lancaster.state import Colour, Conflict, State

PLAYER_COUNTS = (2, 3, 4, 5)
CONFIG_KEYS = ("players", "data", "expansions", new_laws.CONFIG_KEY)
#: the Henry V modules this version plays (the others are refused by ``validate_config``)
AVAILABLE_MODULES: tuple[str, ...] = MODULES


def validate_config(config: Mapping[str, Any], base: Data) -> dict[str, Any]:
    """``config`` checked and normalised; its data overrides apply to ``base``, the dataset of
    the rules version the game is created with."""
    if not isinstance(config, Mapping):
        raise ConfigError('The config must be a mapping such as {"players": 3}.')
    unknown = sorted(str(k) for k in config if k not in CONFIG_KEYS)
    if unknown:
        raise ConfigError(
            f"Unknown config key(s) {', '.join(unknown)}; Lancaster accepts "
            f"{', '.join(CONFIG_KEYS)}."
        )
    players = config.get("players")
    if isinstance(players, bool) or players not in PLAYER_COUNTS:
        raise ConfigError(f'Lancaster is for 2 to 5 players; "players" was {players!r}.')
    expansions = _expansions(config.get("expansions", {}))
    _, data = apply_overrides(config.get("data", {}), base)
    normalised: dict[str, Any] = {"players": players, "data": data, "expansions": expansions}
    if new_laws.CONFIG_KEY in config:
        # The New Laws (rules 2.1.0; decision: rules/README.md, Lancaster 18): the list of
        # five, or nothing for the base laws only
        groups = new_laws.normalise(config[new_laws.CONFIG_KEY], base)
        if groups is not None:
            normalised[new_laws.CONFIG_KEY] = list(groups)
    return normalised


def _expansions(value: Any) -> dict[str, bool]:
    """The Henry V modules: each of At the King's Court and The King's Resentment alone or
    together; Laws of the King only with both (001). Normalised to the modules switched on."""
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


def law_pool(data: Data, expansions: Mapping[str, bool], sets: tuple[str, ...] = ()) -> list[Law]:
    """The laws of a game: the base game's, where Laws of the King replaces groups 2 and 3
    (001, "1st option"); with The New Laws, ``sets`` says per group which set plays ("base",
    "new" or "king", after the setup's draws)."""
    king = bool(expansions.get(LAWS_OF_THE_KING))
    if sets:
        module = {"base": None, "new": new_laws.MODULE, "king": LAWS_OF_THE_KING}
        return [law for law in data.laws if module[sets[law.group]] == law.module]
    base = [law for law in data.laws if law.module is None and not (king and law.group in (2, 3))]
    return base + [law for law in data.laws if king and law.module == LAWS_OF_THE_KING]


def draw_law_sets(
    config: Mapping[str, Any], r: int
) -> tuple[tuple[str, ...], tuple[bool, ...], int]:
    """The New Laws: which set each group plays, which of them were drawn, and the generator
    after. A "random" group is drawn base or new with the game's generator, groups 0 to 4 in
    turn (rulebook, "The New Laws": "For each group (0 to 4) and one after the other, put one
    old and one new card in the linen bag. Then, draw one of the two cards"). Without the
    config key: () and nothing drawn."""
    if new_laws.CONFIG_KEY not in config:
        return (), (), r
    sets: list[str] = []
    drawn: list[bool] = []
    for choice in new_laws.law_sets(config):
        if choice == "random":
            i, r = rng.below(r, 2)
            sets.append(("base", "new")[i])
            drawn.append(True)
        else:
            sets.append(choice)
            drawn.append(False)
    return tuple(sets), tuple(drawn), r


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
    expansions = config["expansions"]
    data, _ = apply_overrides(config["data"], base)
    n = int(config["players"])
    r = rng.seed_state(seed)

    # Laws: the three group-0 laws face up as the current laws; the draw pile is group 1 on
    # top, then 2, 3, 4, each shuffled (000/003, Setup 7). Three are revealed now.
    sets, drawn_sets, r = draw_law_sets(config, r)
    pool = law_pool(data, expansions, sets)
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
    if resentment.active(state):
        state = replace(state, **resentment.setup_values(data, n))
    if court.active(state):
        state = replace(state, **court.setup_values(data, n, state.colours))
    return replace(state, agenda=(("setup",), *round_frames(state)))
