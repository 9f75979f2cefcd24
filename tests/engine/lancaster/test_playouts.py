"""Seeded random playouts: 500 full games over every player count for the base game and 160
with each set of Henry V modules (1140 in all) under rules 1.0.0, and 400 under the latest
release (the printed data), with the invariants checked after every action.

A plain run plays the first fifth of each set of seeds; ``-m slow`` plays the other four
fifths. Measured with ``coverage --branch``, the other four fifths reach one branch of the
engine the plain run's playouts do not (an office's grant with the seal supply empty), which
test_court.py checks on its own."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.core import contract
from engine.lancaster import LancasterRules
from engine.lancaster.state import State
from tests.engine.lancaster.helpers import LATEST, R

GAMES_PER_COUNT = 125  # x 4 player counts = 500 games


def check_invariants(s: State) -> None:
    data = s.data
    assert 1 <= s.round <= data.rounds
    for colour, c in enumerate(s.colours):
        # Each colour has exactly its 7 knights across court, board, castle and reserve (and
        # with Henry V: the tower and the lords' supporters).
        pieces = list(c.court) + list(c.reserve) + [k for k in c.castle if k is not None]
        pieces += [k for owner, k in s.tower if owner == colour]
        pieces += [
            k for a in s.applicants if a is not None and a.colour == colour for k in a.knights
        ]
        pieces += [o.strength for o in s.counties if o is not None and o.colour == colour]
        for _, _, card in s.conflicts():
            pieces += [k for sp in card.spaces if sp.colour == colour for k in sp.knights]
        assert Counter(pieces) == Counter(data.knights), (colour, pieces)
        # No resource is ever negative.
        assert min(c.gold, c.squires, c.voting_markers, c.power) >= 0
        # No nobleman letter twice in one hand.
        assert len(set(c.nobles)) == len(c.nobles)
        assert not (set(c.extensions) & {n for n, k in enumerate(c.castle, 1) if k is not None})
        if s.is_ally(colour):
            assert (c.gold, c.squires, c.voting_markers, c.power, c.nobles) == (0, 0, 0, 0, ())
            assert c.extensions == ()
    assert all(n >= 0 for n in s.nobles)
    # Each county holds at most one knight, strong enough on its own.
    assert len(s.counties) == 9
    for i, occ in enumerate(s.counties):
        if occ is not None:
            assert occ.might >= data.counties[i].minimum and occ.squires >= 0
    # A conflict space holds one colour; a colour holds at most one space per card.
    for _, _, card in s.conflicts():
        assert len(card.spaces) <= 3
        colours = [sp.colour for sp in card.spaces if not sp.archer]  # an archer: its own
        assert len(colours) == len(set(colours))
        assert all(sp.archer != bool(sp.knights) for sp in card.spaces) or s.agenda[0][0] in (
            "ransom",
            "captured",
        )
        assert all(not sp.archer or (sp.tudor == 0 and sp.strength == 2) for sp in card.spaces)
    assert set(s.favors) <= set(s.favors_in_game)
    if "resentment" in s.expansions:
        check_resentment(s)
    if "kings_court" in s.expansions:
        check_court(s)


def check_court(s: State) -> None:
    """At the King's Court: lords, bishops, seals and privileges are all somewhere, once."""
    data = s.data
    for i, c in enumerate(s.colours):
        assert c.lord in ("court", "office", "treasury")
        assert 0 <= c.bishops <= data.bishops_max and c.seals >= 0
        if s.is_ally(i):
            assert c.bishops == 0 and c.seals == 0
    in_office = [a.colour for a in s.applicants if a is not None]
    assert sorted(in_office) == sorted(i for i, c in enumerate(s.colours) if c.lord == "office")
    # Seals: the supply and the players' screens hold the 24.
    assert s.seal_supply + sum(c.seals for c in s.colours) == data.seals
    # Bishops: the supply, the players' (allies' are removed from the game) — never more.
    total = dict(data.bishops_per_players)[s.players]
    assert s.bishop_supply >= 0 and s.bishop_supply + sum(c.bishops for c in s.colours) <= total
    for a in s.applicants:
        if a is not None:
            assert a.bishops <= s.colours[a.colour].bishops
    # Privileges: on the regal board, held, granted, or on the board with a knight.
    for k, privilege in enumerate(("shield", "archer", "tudor")):
        held = sum(c.privileges.count(privilege) + c.granted.count(privilege) for c in s.colours)
        if privilege == "shield":
            placed = sum(1 for o in s.counties if o is not None and o.shield)
        elif privilege == "archer":
            placed = sum(1 for _, _, card in s.conflicts() for sp in card.spaces if sp.archer)
        else:
            placed = sum(1 for o in s.counties if o is not None and o.tudor)
            placed += sum(sp.tudor for _, _, card in s.conflicts() for sp in card.spaces)
            placed += sum(1 for a in s.applicants if a is not None and a.tudor)
        assert s.privilege_supply[k] + held + placed == data.privileges[k], (
            privilege,
            s.agenda[:1],
        )
    assert min(s.treasury) >= 0


def check_resentment(s: State) -> None:
    """The King's Resentment: the tower within its capacity, the neutral knight at its
    bottom, no negative dishonor; every marker is on the track, in the box or with a player
    (more only once both ran out: markers are then recorded without limit)."""
    data = s.data
    assert sum(k for _, k in s.tower) <= data.tower_capacity
    neutral = dict(data.tower_neutral)[s.players]
    assert [k for c, k in s.tower if c < 0] == ([neutral] if neutral else [])
    per_space = dict(data.dishonor_per_space)[s.players]
    assert all(0 <= n <= per_space for n in s.dishonor_track) and s.dishonor_box >= 0
    held = [c.dishonor for c in s.colours]
    assert min(held) >= 0
    assert all(c.dishonor == 0 for i, c in enumerate(s.colours) if s.is_ally(i))
    total = sum(held) + sum(s.dishonor_track) + s.dishonor_box
    assert total >= data.dishonor_markers
    # The track empties left to right.
    track = list(s.dishonor_track)
    assert track == sorted(track), track
    # The tower holds players' knights only during placement and parliament.
    if s.agenda and s.agenda[0][0] in ("county", "castle", "castle_paid", "conflict", "ransom"):
        assert all(c < 0 for c, _ in s.tower)


#: A plain run's share of each set of seeds, and the rest, run with ``-m slow``.
BATCHES = ["first fifth", pytest.param("the rest", marks=pytest.mark.slow)]


def seeds_of(batch: str, games: int) -> range:
    """The seeds ``range(games)`` of one batch."""
    return range(games // 5) if batch == "first fifth" else range(games // 5, games)


#: Henry V module sets: 40 games per player count each (with the base game's 125: 1140)
MODULE_SETS = [
    ("resentment",),
    ("kings_court",),
    ("kings_court", "resentment"),
    ("kings_court", "resentment", "laws_of_the_king"),
]


@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("modules", [(), *MODULE_SETS])
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_games_keep_every_invariant_and_end_after_round_5(
    players: int, modules: tuple[str, ...], batch: str
) -> None:
    finished = 0
    config: dict[str, object] = {"players": players}
    if modules:
        config["expansions"] = dict.fromkeys(modules, True)
    seeds = seeds_of(batch, GAMES_PER_COUNT if not modules else 40)
    for seed in seeds:
        state = contract.random_game(
            R,
            config,
            1000 * players + seed,
            max_steps=5000,
            on_step=lambda _before, _seat, _action, after: check_invariants(after),
        )
        assert state.round == 5 and state.finished
        outcome = R.outcome(state)
        assert outcome is not None and len(outcome.scores) == players
        finished += 1
    assert finished == len(seeds)


#: the latest release: 20 games per player count and module set
LATEST_GAMES = 20


@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("modules", [(), *MODULE_SETS])
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_games_of_the_latest_rules_keep_every_invariant(
    players: int, modules: tuple[str, ...], batch: str
) -> None:
    config: dict[str, object] = {"players": players}
    if modules:
        config["expansions"] = dict.fromkeys(modules, True)
    for seed in seeds_of(batch, LATEST_GAMES):
        state = contract.random_game(
            LATEST,
            config,
            7000 * players + seed,
            max_steps=5000,
            on_step=lambda _before, _seat, _action, after: check_invariants(after),
        )
        assert state.round == 5 and state.finished and LATEST.outcome(state) is not None


@pytest.mark.parametrize(
    ("rules", "config"),
    [
        pytest.param(rules, config, id=f"{rules.version}-{config}")
        for rules in (R, LATEST)
        for config in rules.contract_configs()
    ],
)
def test_deadline_defaults_alone_play_a_whole_game_legally(
    rules: LancasterRules, config: dict[str, object]
) -> None:
    for players in (int(str(config["players"])),):
        state = rules.initial_state(config, players)
        while rules.to_act(state):
            seat = min(rules.to_act(state))
            action = rules.auto_action(state, seat)
            assert action in rules.legal_actions(state, seat)
            state = rules.apply(state, seat, action).state
            check_invariants(state)
        assert rules.outcome(state) is not None
