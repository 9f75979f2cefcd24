"""Henry V, The King's Resentment (rules text 001; decisions 14 and 15): the dishonor track,
the tower, dishonor for lost conflicts, and dishonor in the final scoring."""

from __future__ import annotations

import pytest

from engine.core import contract
from engine.core.protocol import ConfigError, IllegalActionError
from engine.lancaster.henry_v.resentment import NEUTRAL, dishonor_scoring
from tests.engine.lancaster.helpers import BLUE, RED, YELLOW, Game, R

RESENTMENT = {"expansions": {"resentment": True}}
NEUTRAL_LAWS = ("strength_1_power", "noblemen_knights", "extensions_power")


def game(players: int = 3, **kw: object) -> Game:
    g = Game(players, cards=(1, 4), laws=NEUTRAL_LAWS, config=RESENTMENT, **kw)  # type: ignore[arg-type]
    g.setup(*([1] * players))
    return g


@pytest.mark.parametrize(
    ("players", "per_space", "box", "neutral"),
    [(2, 2, 22, 4), (3, 3, 14, 3), (4, 4, 6, 2), (5, 4, 6, None)],
)
def test_the_track_and_the_tower_are_set_up_by_player_count(
    players: int, per_space: int, box: int, neutral: int | None
) -> None:
    s = R.initial_state({"players": players, **RESENTMENT}, 1)
    assert s.dishonor_track == (per_space,) * 8  # the rest of the 38 in the supply box
    assert s.dishonor_box == box
    assert s.tower == (((NEUTRAL, neutral),) if neutral else ())


def test_a_knight_dropped_into_the_tower_returns_one_dishonor_marker_per_strength_point() -> None:
    g = game()
    g.edit_colour(RED, dishonor=3)
    g.play(RED, "knight 2 to tower")
    assert g.c(RED).dishonor == 1 and g.state.dishonor_box == 14 + 2
    assert g.state.tower == ((NEUTRAL, 3), (RED, 2))
    assert g.said("Red drops knight 2 into the tower and returns 2 dishonor markers")


def test_with_fewer_markers_than_strength_all_are_returned_and_none_is_no_obstacle() -> None:
    g = game()
    g.edit_colour(RED, dishonor=1)
    g.play(RED, "drop knight 2 in the tower")
    assert g.c(RED).dishonor == 0 and g.state.dishonor_box == 15
    g.play(BLUE, "knight 1 to tower")  # no dishonor at all: still allowed
    assert g.c(BLUE).dishonor == 0 and g.said("returns 0 dishonor markers")


def test_the_tower_holds_knights_of_total_strength_7() -> None:
    g = game()  # 3 players: the neutral knight 3 is inside
    g.play(RED, "knight 2 to tower")
    g.play(BLUE, "knight 2 to tower")  # 3 + 2 + 2 = 7: full
    assert not any("tower" in a for a in g.legal(YELLOW))
    with pytest.raises(IllegalActionError, match="room for 0 more"):
        g.play(YELLOW, "knight 1 to tower")


def test_the_tower_is_cleared_before_the_counties_and_the_neutral_knight_stays() -> None:
    g = game()
    g.play(RED, "knight 1 to tower")
    g.play(BLUE, "knight 1 to A")
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    assert g.head == ("county", 0)  # Blue's reward of A: the tower is cleared already
    assert g.state.tower == ((NEUTRAL, 3),) and 1 in g.c(RED).court
    cleared = next(i for i, line in enumerate(g.log) if "The tower is cleared" in line)
    assert "Red 1" in g.log[cleared]
    assert not any("A" in line and "reward" in line for line in g.log[:cleared])


def lost_battles(**edits: object) -> Game:
    """Conflict 1 (France 3) holds Red's 1, conflict 4 (France 5) Blue's 2: France wins both."""
    g = game()
    if edits:
        g.edit(**edits)
    g.moves(
        (RED, "knight 1 to conflict 1"),
        (RED, "favor gold"),
        (BLUE, "knight 2 to conflict 4"),
        (BLUE, "favor squires"),
    )
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    g.auto_until("place")
    return g


def test_players_with_no_knight_on_a_lost_conflict_take_a_marker_from_the_leftmost_stack() -> None:
    # decision 14; 001: "Remove the stacks one after the other from left to right."
    g = lost_battles()
    assert g.said("Lost conflict: Blue, Yellow take 1 dishonor marker each")
    assert g.said("Lost conflict: Red, Yellow take 1 dishonor marker each")
    assert [g.c(s).dishonor for s in (RED, BLUE, YELLOW)] == [1, 1, 2]
    assert g.state.dishonor_track == (0, 2, 3, 3, 3, 3, 3, 3)


def test_a_lost_second_battle_is_a_lost_conflict_too() -> None:
    g = lost_battles()
    before = [g.c(s).dishonor for s in (RED, BLUE, YELLOW)]
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    g.next_round()
    # Both cards slid to the lower row and France wins again: the players with no knight
    # there take one more each (Red is on 1 only, Blue on 4 only).
    lower = [line for line in g.log if "Lost conflict" in line][2:4]
    why = "take 1 dishonor marker each (no knight of theirs on the card)."
    assert lower == [f"  Lost conflict: Blue, Yellow {why}", f"  Lost conflict: Red, Yellow {why}"]
    assert sum(g.c(s).dishonor for s in (RED, BLUE, YELLOW)) >= sum(before) + 4


def test_markers_come_from_the_supply_box_once_the_track_is_empty_then_without_limit() -> None:
    g = lost_battles(dishonor_track=(0,) * 8, dishonor_box=1)
    # Blue takes the box's last marker, then Yellow, Red, Yellow are recorded without limit.
    assert g.state.dishonor_box == 0
    assert [g.c(s).dishonor for s in (RED, BLUE, YELLOW)] == [1, 1, 2]


def test_england_winning_gives_no_dishonor() -> None:
    g = game()
    g.moves(
        (RED, "knight 2 to conflict 1"),
        (RED, "favor gold"),
        (BLUE, "knight 1 to conflict 1"),
        (BLUE, "favor squires"),
    )
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    g.auto_until("place")
    first = g.log.index("Conflict 1 (upper row): England 3 against France 3: England wins.")
    then = next(i for i, line in enumerate(g.log) if line.startswith("Conflict 4"))
    assert not any("Lost conflict" in line for line in g.log[first:then])
    assert "Lost conflict: Red, Blue, Yellow" in g.log[then + 1]  # nobody on conflict 4


def _scored(
    players: int, dishonor: list[int], uncovered: int, markers: list[int] | None = None
) -> dict[str, list[int]]:
    g = Game(players, config=RESENTMENT)
    per = g.state.dishonor_track[0]
    g.edit(dishonor_track=(0,) * uncovered + (per,) * (8 - uncovered))
    for seat, n in enumerate(dishonor):
        g.edit_colour(seat, dishonor=n, voting_markers=(markers or [0] * players)[seat])
    return dishonor_scoring(g.state)


def test_dishonor_scoring_follows_the_rules_example() -> None:
    # 001: Yellow (4 markers, the most) loses 6 + 4, Green (3, next most) 3 + 3, Red and
    # Blue (2 each) 2 each; the rightmost uncovered space shows 6/3 (the 6th space).
    parts = _scored(4, [2, 2, 4, 3], uncovered=6)
    assert parts["dishonor"] == [-2, -2, -10, -6]


def test_tied_dishonor_the_player_with_more_voting_markers_counts_as_having_fewer() -> None:
    parts = _scored(4, [0, 0, 4, 4], uncovered=6, markers=[0, 0, 1, 0])
    assert parts["dishonor"] == [0, 0, -4 - 3, -4 - 6]


def test_still_tied_players_share_the_penalties_of_their_places_rounded_down() -> None:
    parts = _scored(4, [1, 0, 4, 4], uncovered=6)
    assert parts["dishonor"] == [-1, 0, -4 - 4, -4 - 4]  # (6 + 3) / 2 = 4 each
    parts = _scored(4, [5, 0, 2, 2], uncovered=6)
    assert parts["dishonor"] == [-5 - 6, 0, -2 - 1, -2 - 1]  # 3 / 2 = 1 each


def test_no_uncovered_track_space_means_no_extra_penalty() -> None:
    assert _scored(3, [3, 1, 0], uncovered=0)["dishonor"] == [-3, -1, 0]


def test_two_players_lose_only_the_larger_number() -> None:
    assert _scored(2, [4, 3], uncovered=6)["dishonor"] == [-4 - 6, -3]


def test_a_player_without_dishonor_takes_no_track_penalty() -> None:
    # decision (engine/lancaster/README.md): "the next most" needs at least one marker
    assert _scored(3, [3, 0, 0], uncovered=6)["dishonor"] == [-3 - 6, 0, 0]


def test_the_outcome_counts_dishonor_in_the_total() -> None:
    final = contract.random_game(R, {"players": 4, **RESENTMENT}, 11)
    outcome = R.outcome(final)
    assert outcome is not None
    for seat, b in enumerate(outcome.breakdown):
        parts = b["during_game"] + b["knighthood"] + b["castle"] + b["noblemen"] + b["dishonor"]
        assert b["total"] == parts == outcome.scores[seat]
        assert b["dishonor"] <= -b["dishonor_markers"] <= 0


def test_dishonor_is_behind_the_screen_except_with_two_players_and_at_the_end() -> None:
    g = game()
    g.edit_colour(RED, dishonor=2)
    assert g.view(RED)["players"][RED]["dishonor"] == 2
    for viewer in (BLUE, YELLOW, None):
        assert g.view(viewer)["players"][RED]["dishonor"] is None
    assert "dishonor ?" in R.render_text(g.view(BLUE))
    two = game(2)
    two.edit_colour(RED, dishonor=2)
    assert two.view(BLUE)["players"][RED]["dishonor"] == 2
    final = contract.random_game(R, {"players": 3, **RESENTMENT}, 5)
    assert all(p["dishonor"] is not None for p in R.view(final, None)["players"])
    assert Game(3).view(RED)["players"][RED].get("dishonor", "absent") == "absent"


def test_the_tower_and_the_track_are_public() -> None:
    g = game()
    g.play(RED, "knight 1 to tower")
    for viewer in (RED, BLUE, None):
        res = g.view(viewer)["resentment"]
        assert [k["strength"] for k in res["tower"]] == [3, 1]
        assert res["tower_strength"] == 4 and res["supply_box"] == 14
        assert res["track"][5] == {"markers": 3, "penalties": [6, 3]}
    text = R.render_text(g.view(BLUE))
    assert "Tower (4 of 7): neutral 3, Red 1" in text


def test_two_players_allies_take_no_dishonor_and_annihilate_none_in_the_tower() -> None:
    g = game(2)
    g.edit_colour(RED, dishonor=2)
    g.play(RED, "ally knight 2 to tower")  # the neutral knight 4 + 2
    assert g.c(RED).dishonor == 2 and g.said("an ally annihilates nothing")
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    g.auto_until("place")
    assert g.c(2).dishonor == 0 and g.c(3).dishonor == 0  # the allies
    assert g.c(RED).dishonor > 2 and g.c(BLUE).dishonor > 0  # nobody was on the cards


def test_the_tower_is_read_and_written_in_the_notation() -> None:
    g = game()
    assert R.parse_action(g.state, RED, "knight 2 to tower") == (
        "place",
        False,
        2,
        ("tower", None),
        0,
    )
    assert R.parse_action(g.state, RED, "2 tower") == ("place", False, 2, ("tower", None), 0)
    assert "knight 1 to tower" in g.legal(RED)
    plain = Game(3)
    plain.setup(1, 1, 1)
    with pytest.raises(IllegalActionError, match="no tower"):
        plain.play(RED, "knight 1 to tower")


def test_the_resentments_numbers_are_data_overridable_in_the_config() -> None:
    config = R.validate_config(
        {
            "players": 3,
            **RESENTMENT,
            "data": {"resentment": {"tower_capacity": 9, "per_space": {"3": 2}}},
        }
    )
    s = R.initial_state(config, 1)
    assert s.dishonor_track == (2,) * 8 and s.dishonor_box == 38 - 16
    assert s.data.tower_capacity == 9
    with pytest.raises(ConfigError, match="gives 1 track spaces"):
        R.validate_config({"players": 3, "data": {"resentment": {"penalties": [[1, 0]]}}})
