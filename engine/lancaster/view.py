"""``view(state, seat)``: everything ``seat`` may know, JSON-ready. The only place hidden
information is decided (decision: rules/README.md, Lancaster 11):

- other seats' gold and squires are ``null`` (public in the 2-player game, decision 12, and
  once the game is over, when the screens are lifted for the final scoring);
- a vote is ``null`` to everyone but its voter until all have voted ("voted" says who has);
- the order of the law and conflict draw piles is never shown, only their sizes;
- the generator state and the seed are never in a view.

Hidden resources are declared once, in ``HIDDEN``; what a module adds to the view is its hook
in ``SECTIONS``; both extension points are filled by ``wiring.py`` with the modules' entries.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.lancaster import flow
from engine.lancaster.notation import can_type, format_action
from engine.lancaster.pieces import board_knights
from engine.lancaster.state import Conflict, State


@dataclass(frozen=True)
class Resource:
    """A resource behind the player's screen: only its owner sees it, except in the 2-player
    game and once the game is over (decisions 11 and 12; 001 for seals and dishonor)."""

    key: str
    module: str | None = None  # a Henry V module, or None for the base game


#: Extension point: every hidden resource, the base game's and each Henry V module's (The
#: King's Resentment: dishonor; At the King's Court: seals): one place decides them.
HIDDEN: list[Resource] = [Resource("gold"), Resource("squires")]

#: Extension point: what a module adds to the view, ``(state, view) -> None`` adding its
#: public pieces in place (The New Laws: the law sets, squires sent, extensions turned over;
#: The King's Resentment: the tower and the dishonor track; At the King's Court: the regal
#: board, lords, privileges, shields and Tudor knights), run in this order
SECTIONS: list[Callable[[State, dict[str, Any]], None]] = []


def hidden_resources(state: State) -> tuple[str, ...]:
    return tuple(r.key for r in HIDDEN if r.module is None or r.module in state.expansions)


def _knights(state: State, colour: int) -> dict[str, Any]:
    col = state.colours[colour]
    return {
        "court": list(col.court),
        "reserve": list(col.reserve),
        "board": [{"strength": s, "where": w} for s, w in board_knights(state, colour)],
    }


def _card(state: State, card: Conflict | None) -> dict[str, Any] | None:
    if card is None:
        return None
    data = state.data.card(card.card)
    return {
        "card": card.card,
        "france": data.france,
        "points": list(data.points),
        "england": sum(sp.strength for sp in card.spaces),
        "spaces": [
            {
                "colour": state.colour_name(sp.colour),
                "seat": state.controller(sp.colour),
                "ally": state.is_ally(sp.colour),
                "knights": list(sp.knights),
                "strength": sp.strength,
            }
            for sp in card.spaces
        ],
    }


def _castle(state: State, colour: int) -> list[dict[str, Any]]:
    col = state.colours[colour]
    return [
        {
            "space": sp.number,
            "reward": sp.reward.describe(),
            "cost_squires": sp.cost_squires,
            "extension": sp.number in col.extensions,
            "knight": col.castle[sp.number - 1],
        }
        for sp in state.data.castle_of(state.is_ally(colour))
    ]


def view(state: State, seat: int | None) -> dict[str, Any]:
    public = state.two_player or state.finished
    h = flow.head(state)
    to_act = sorted(flow.to_act(state))
    voting = h is not None and h[0][0] == "vote"
    players = []
    for s in range(state.players):
        col = state.colours[s]
        mine = seat == s
        shown = mine or public
        vote = state.votes[s] if voting else None
        players.append(
            {
                "seat": s,
                "colour": state.colour_name(s),
                "power": col.power,
                **{key: getattr(col, key) if shown else None for key in hidden_resources(state)},
                "voting_markers": col.voting_markers,
                "noblemen": list(col.nobles),
                "extensions": list(col.extensions),
                "castle": _castle(state, s),
                "knights": _knights(state, s),
                "voted": vote is not None if voting else None,
                "vote": (
                    {"yes": vote.yes, "markers": vote.markers}
                    if vote is not None and mine
                    else None
                ),
            }
        )
    allies = [
        {
            "colour": state.colour_name(c),
            "of": state.controller(c),
            "castle": _castle(state, c),
            "knights": _knights(state, c),
        }
        for c in range(state.players, len(state.colours))
    ]
    if h is None:
        phase = "finished"
        prompt = "The game is over."
    else:
        frame, hd = h
        phase = hd.phase(state, frame)
        if seat is not None and seat in to_act:
            prompt = hd.prompt(state, frame, seat)
        else:
            prompt = hd.waiting(state, frame)
    result: dict[str, Any] = {
        "game": "lancaster",
        "round": state.round,
        "rounds": state.data.rounds,
        "phase": phase,
        "start_player": state.start_player,
        "next_start_player": state.next_start_player,
        "to_act": to_act,
        "you": seat,
        "prompt": prompt,
        "players": players,
        "allies": allies,
        "counties": [_county(state, i) for i in range(len(state.data.counties))],
        "conflicts": {
            "upper": [_card(state, c) for c in state.upper],
            "lower": [_card(state, c) for c in state.lower],
            "pile": len(state.conflict_pile),
        },
        "favors": [
            {
                "tile": f.number,
                "reward": f.reward.describe(),
                "face_up": f.number in state.favors,
            }
            for f in state.data.favors
            if f.number in state.favors_in_game
        ],
        "laws": {
            "current": [_law(state, k) for k in state.laws],
            "new": [_new_law(state, i, k) for i, k in enumerate(state.new_laws)],
            "pile": len(state.law_pile),
        },
        "votes": [
            {
                "law": r.law,
                "title": state.data.law(r.law).title,
                "approved": r.approved,
                "yes": r.yes,
                "no": r.no,
                "votes": [{"yes": v.yes, "markers": v.markers} for v in r.votes],
            }
            for r in state.results
        ],
        "options": [],
        "options_total": 0,
        "can_type": [],
        "finished": state.finished,
        "outcome": None,
    }
    if state.data.removal_by_strength:
        # Rules 2.0.0: the cards removed at setup (with 5 players one of the two of strength 3,
        # drawn) are public: everyone at the table sees them go back in the box. Not in a
        # 1.0.0 view, which stays as it was.
        result["conflicts"]["removed"] = [
            {"card": n, "france": state.data.card(n).france} for n in state.removed_cards
        ]
    for section in SECTIONS:
        section(state, result)
    if seat is not None and seat in to_act:
        legal = flow.legal_actions(state, seat)
        result["options"] = [format_action(state, a) for a in legal[:60]]
        result["options_total"] = len(legal)
        result["can_type"] = list(can_type(state, seat))
    if state.finished:
        from engine.lancaster.phases.scoring import final_scoring

        result["outcome"] = final_scoring(state).to_json()
    return result


def _county(state: State, i: int) -> dict[str, Any]:
    c = state.data.counties[i]
    occ = state.counties[i]
    return {
        "letter": c.letter,
        "name": c.name,
        "minimum": c.minimum,
        "reward": c.reward.describe(),
        # decision 6: Surrey's holder names the next start player, whatever they take there
        "names_start_player": c.names_start_player,
        # as printed, with immediate effect (a 1.0.0 view has no such key: it stays as it was)
        **(
            {"start_player_at_once": True}
            if c.names_start_player and state.data.start_player_at_once
            else {}
        ),
        "noblemen_left": state.nobles[i],
        "occupant": None
        if occ is None
        else {
            "colour": state.colour_name(occ.colour),
            "seat": state.controller(occ.colour),
            "ally": state.is_ally(occ.colour),
            "strength": occ.strength,
            "squires": occ.squires,
        },
    }


def _law(state: State, key: str) -> dict[str, Any]:
    law = state.data.law(key)
    return {"key": key, "title": law.title, "text": law.text}


def _new_law(state: State, index: int, key: str) -> dict[str, Any]:
    entry = _law(state, key)
    result = next((r for r in state.results if r.law == key), None)
    if result is not None:
        entry["status"] = "approved" if result.approved else "rejected"
    elif state.agenda and state.agenda[0] == ("vote", index):
        entry["status"] = "voting"
    else:
        entry["status"] = "to vote"
    return entry
