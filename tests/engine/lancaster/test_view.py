"""Views (decision: rules/README.md, Lancaster 11): what each seat may know, and nothing
more; the text rendering for emails."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core import rng
from engine.core.contract import random_game
from engine.lancaster.state import State, Vote
from tests.engine.lancaster.helpers import BLUE, RED, YELLOW, Game, R


def test_a_view_holds_the_round_phase_start_player_prompt_and_every_players_pieces() -> None:
    g = Game(3, cards=(1, 4))
    g.setup(1, 2, 3)
    g.play(RED, "knight 1 to A with 1 squire")
    v = g.view(BLUE)
    assert (v["round"], v["phase"], v["start_player"]) == (1, "placement", RED)
    assert v["prompt"].startswith("Place a knight from your court")
    assert g.view(RED)["prompt"] == "Waiting for Blue to place a knight."
    red = v["players"][RED]
    assert red["power"] == 0 and red["voting_markers"] == 1
    assert red["noblemen"] == [] and red["extensions"] == [1]
    assert red["knights"] == {
        "court": [2],
        "reserve": [1, 1, 2, 3, 4],
        "board": [{"strength": 1, "where": "county A"}],
    }
    assert v["counties"][0]["occupant"] == {
        "colour": "Red",
        "seat": RED,
        "ally": False,
        "strength": 1,
        "squires": 1,
    }
    assert [c["card"] for c in v["conflicts"]["upper"]] == [1, 4]


def test_other_seats_gold_and_squires_are_hidden_your_own_are_shown() -> None:
    g = Game(4)
    for viewer in (None, BLUE):
        red = g.view(viewer)["players"][RED]
        assert red["gold"] is None and red["squires"] is None
    red = g.view(RED)["players"][RED]
    assert (red["gold"], red["squires"]) == (2, 2)


def test_draw_piles_show_only_their_size() -> None:
    g = Game(3)
    v = g.view(None)
    assert v["laws"]["pile"] == 12 and v["conflicts"]["pile"] == 8
    text = json.dumps(v)
    for key in g.state.law_pile:
        assert key not in text


def test_the_text_rendering_shows_the_board_and_hides_what_the_view_hides() -> None:
    g = Game(3, cards=(1, 4))
    g.setup(1, 2, 3)
    g.play(RED, "knight 2 to B")
    text = R.render_text(g.view(BLUE))
    assert "LANCASTER - round 1 of 5, placement" in text
    assert "B County B (min 2; upgrade a knight; noblemen left 2): Red knight 2" in text
    assert "Conflict 1: France 3, England 0, power points 4/2/1" in text
    assert "Red: 0 power points, gold ?, squires ?, voting markers 1" in text
    assert "Blue (you): 0 power points, gold 2, squires 2" in text
    # The examples of what to type are the mail's to show (once, under the board), not the board's.
    assert "You can type" not in text and "knight 1 to castle 1" not in text
    assert "in force:" in text and "new (to vote):" in text


def _hide(state: State, seat: int, gold: int, squires: int, vote: Vote) -> State:
    """The same state, except for values only ``seat`` may know (dishonor too, with The King's
    Resentment)."""
    if not state.two_player:
        state = state.with_colour(seat, gold=gold, squires=squires)
        if "resentment" in state.expansions:
            state = state.with_colour(seat, dishonor=(gold + squires) % 7)
        if "kings_court" in state.expansions:
            state = state.with_colour(seat, seals=(gold * 3 + squires) % 11)
    if state.votes[seat] is not None:
        votes = list(state.votes)
        votes[seat] = vote
        state = replace(state, votes=tuple(votes))
    return state


@settings(max_examples=24, deadline=None)
@given(
    modules=st.sampled_from([(), ("resentment",), ("kings_court",), ("kings_court", "resentment")]),
    players=st.sampled_from([2, 3, 4, 5]),
    seed=st.integers(0, 2**32),
    gold=st.integers(0, 25),
    squires=st.integers(0, 25),
    yes=st.booleans(),
    markers=st.integers(0, 6),
)
def test_hidden_values_never_change_what_another_seat_sees(
    modules: tuple[str, ...],
    players: int,
    seed: int,
    gold: int,
    squires: int,
    yes: bool,
    markers: int,
) -> None:
    config: dict[str, object] = {"players": players}
    if modules:
        config["expansions"] = dict.fromkeys(modules, True)
    state = R.initial_state(config, seed)
    r = rng.seed_state(seed)
    compared = 0
    while R.to_act(state):
        views = {v: R.view(state, v) for v in [None, *range(players)]}
        for seat in range(players):
            other = _hide(state, seat, gold, squires, Vote(yes, markers))
            if other == state:
                continue
            for viewer in [None, *range(players)]:
                if viewer != seat:
                    assert R.view(other, viewer) == views[viewer], (seat, viewer)
                    compared += 1
        seats = sorted(R.to_act(state))
        i, r = rng.below(r, len(seats))
        legal = R.legal_actions(state, seats[i])
        j, r = rng.below(r, len(legal))
        state = R.apply(state, seats[i], legal[j]).state
    assert compared > 0


def test_a_cast_vote_is_seen_only_by_its_voter_until_the_reveal() -> None:
    g = Game(3)
    g.setup(1, 1, 1)
    g.place_rest_in_castles()
    g.play(YELLOW, "vote yes 1")
    assert g.view(YELLOW)["players"][YELLOW]["vote"] == {"yes": True, "markers": 1}
    for viewer in (None, RED, BLUE):
        assert g.view(viewer)["players"][YELLOW]["vote"] is None
        assert g.view(viewer)["players"][YELLOW]["voted"] is True
    assert g.view(RED)["prompt"].startswith("Vote on the new law")
    assert g.view(YELLOW)["prompt"] == "Waiting for the votes of Red, Blue."


@pytest.mark.parametrize("modules", [(), ("kings_court", "laws_of_the_king", "resentment")])
@pytest.mark.parametrize("players", [3, 4, 5])
def test_hidden_values_never_decide_whether_the_game_asks_or_moves_by_itself(
    players: int, modules: tuple[str, ...]
) -> None:
    """A decision taken automatically (a single option) is public at once: it must not depend
    on a seat's hidden gold or squires. Playing the same actions (legal in both) from two
    states that differ only in those values must ask the same seats and log the same lines,
    until a law names the richest player (the law itself reveals that)."""
    compared = 0
    for seed in range(12):
        for start in (0, 60, 120, 180):
            seat, (gold, squires) = seed % players, ((0, 0), (9, 9), (0, 9))[seed % 3]
            config: dict[str, object] = {"players": players}
            if modules:
                config["expansions"] = dict.fromkeys(modules, True)
            state = R.initial_state(config, seed)
            r = rng.seed_state(seed)
            for _ in range(start):
                if not R.to_act(state):
                    break
                seats = sorted(R.to_act(state))
                i, r = rng.below(r, len(seats))
                legal = R.legal_actions(state, seats[i])
                j, r = rng.below(r, len(legal))
                state = R.apply(state, seats[i], legal[j]).state
            other = state.with_colour(seat, gold=gold, squires=squires)
            while R.to_act(state):
                assert R.to_act(other) == R.to_act(state), (seed, start, state.agenda[0])
                seats = sorted(R.to_act(state))
                i, r = rng.below(r, len(seats))
                theirs = set(R.legal_actions(other, seats[i]))
                both = [x for x in R.legal_actions(state, seats[i]) if x in theirs]  # sorted
                j, r = rng.below(r, len(both))
                a, b = R.apply(state, seats[i], both[j]), R.apply(other, seats[i], both[j])
                if a.log != b.log:
                    differ = set(a.log) ^ set(b.log)
                    assert all(line.startswith('Law "') for line in differ), (seed, differ)
                    break  # a law named the richest (or the most squires): public from here
                state, other = a.state, b.state
                compared += 1
    # (with Henry V the laws that name the richest come more often: fewer steps compare)
    assert compared > (1000 if not modules else 500)


def test_seats_are_named_by_their_colour_in_the_view_the_log_and_seat_label() -> None:
    g = Game(2)
    g.setup(1, 1)
    v = g.view(None)
    assert [p["colour"] for p in v["players"]] == ["Red", "Blue"]
    assert [(a["colour"], a["of"]) for a in v["allies"]] == [("Yellow", RED), ("Green", BLUE)]
    assert [R.seat_label(g.state, s) for s in (RED, BLUE)] == ["Red", "Blue"]
    g.play(RED, "ally knight 2 to A")
    assert g.said("Yellow (Red's ally) places knight 2 in A.")
    assert not any(f"seat {s}" in line for line in g.log for s in range(4))


def test_a_law_approved_this_round_is_listed_once_in_the_text() -> None:
    """After a parliament, an approved law is in force; the text does not list it again as
    "new (approved)" (the vote's line says it was approved)."""
    seen: list[Any] = []

    def after_step(_state: Any, _seat: Any, _action: Any, state: Any) -> None:
        if not seen and any(r.approved for r in state.results):
            seen.append(state)

    random_game(R, R.validate_config({"players": 3}), 11, on_step=after_step)
    assert seen, "no law was approved in this seeded game"
    text = R.render_text(R.view(seen[0], 0))
    approved = next(r for r in seen[0].results if r.approved)
    title = seen[0].data.law(approved.law).title
    assert text.count(f"{title} - ") == 1
    assert f"in force: {title} - " in text and f"vote on {title}: " in text
