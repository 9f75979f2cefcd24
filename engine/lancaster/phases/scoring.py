"""Final scoring after the last round (decision: rules/README.md, Lancaster 10).

``SCORINGS`` lists the terms of the final scoring, the base game's and each Henry V
module's (registered by ``wiring.py``); a term counts only with its module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.core.protocol import Outcome
from engine.lancaster.state import State

#: Extension point: strength counted for knighthood beyond the knights not in the reserve,
#: ``(state, colour) -> strength`` (At the King's Court: the Tudor knight granted in round 5)
KNIGHTHOOD: list[Callable[[State, int], int]] = []


def majority(state: State, key: Callable[[int], tuple[int, int]]) -> list[int]:
    """8 for the most, 4 for the second, by ``key`` = (value, tie-breaker). Still tied for
    first: the tied players share 12 equally, rounded down, and no one is second; tied for
    second: they share 4, rounded down. (8 and 4 are ``data.majority_points``.)"""
    first, second = state.data.majority_points
    if state.two_player and state.data.majority_points_two_players is not None:
        # decision: rules/README.md, Lancaster 12 — with 2 players only the 8 for first place
        # (rulebook: "Only the 8 power points for the first position are awarded"); two
        # players still tied share those 8
        first, second = state.data.majority_points_two_players
    points = [0] * state.players
    seats = sorted(range(state.players), key=key, reverse=True)
    groups: list[list[int]] = []
    for seat in seats:
        if groups and key(groups[-1][0]) == key(seat):
            groups[-1].append(seat)
        else:
            groups.append([seat])
    if len(groups[0]) > 1:
        for seat in groups[0]:
            points[seat] = (first + second) // len(groups[0])
        return points
    points[groups[0][0]] = first
    if len(groups) > 1:
        for seat in groups[1]:
            points[seat] = second // len(groups[1])
    return points


def knighthood_strength(state: State, colour: int) -> int:
    """Total strength of every knight not in the reserve (court, board, conflicts); with At
    the King's Court, the Tudor knight granted in round 5 too (001)."""
    extra = sum(more(state, colour) for more in KNIGHTHOOD)
    return sum(state.data.knights) - sum(state.colours[colour].reserve) + extra


def knighthood(state: State) -> dict[str, list[int]]:
    strength = [knighthood_strength(state, s) for s in range(state.players)]
    pts = majority(state, lambda s: (strength[s], state.colours[s].squires))
    return {"knighthood": pts, "knighthood_strength": strength}


def castle(state: State) -> dict[str, list[int]]:
    count = [len(state.colours[s].extensions) for s in range(state.players)]
    pts = majority(state, lambda s: (count[s], state.colours[s].gold))
    return {"castle": pts, "extensions": count}


def noblemen(state: State) -> dict[str, list[int]]:
    count = [len(state.colours[s].nobles) for s in range(state.players)]
    return {"noblemen": [n * (n - 1) // 2 for n in count], "noblemen_count": count}


@dataclass(frozen=True)
class ScoringTerm:
    """One part of the final scoring: ``score`` returns per-seat lists, among them the
    points under ``key`` (added to the total) and any figures shown beside them."""

    key: str
    score: Callable[[State], dict[str, list[int]]]
    module: str | None = None  # a Henry V module, or None for the base game


#: Extension point: every term of the final scoring, in the order the breakdown shows them;
#: the modules' terms are appended by ``wiring.py`` (seals, dishonor)
SCORINGS: list[ScoringTerm] = [
    ScoringTerm("knighthood", knighthood),
    ScoringTerm("castle", castle),
    ScoringTerm("noblemen", noblemen),
]


def final_scoring(state: State) -> Outcome:
    parts: dict[str, list[int]] = {}
    terms = [t for t in SCORINGS if t.module is None or t.module in state.expansions]
    for term in terms:
        parts.update(term.score(state))
    breakdown = []
    totals = []
    for seat in range(state.players):
        during = state.colours[seat].power
        entry = {"during_game": during, **{k: v[seat] for k, v in parts.items()}}
        entry["total"] = during + sum(parts[t.key][seat] for t in terms)
        breakdown.append(entry)
        totals.append(entry["total"])
    best = max(totals)
    winners = tuple(s for s in range(state.players) if totals[s] == best)  # a tie is shared
    return Outcome(scores=tuple(totals), winners=winners, breakdown=tuple(breakdown))
