"""Setup by player count (rules 000/003 "Setup"; lancaster-data.md) and the config."""

from __future__ import annotations

import pytest

from engine.core.protocol import ConfigError
from engine.lancaster.data import BASE
from engine.lancaster.provenance import provisional_values
from tests.engine.lancaster.helpers import BLUE, RED, YELLOW, Game, R


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_each_player_starts_with_knights_1_and_2_at_court_2_gold_2_squires_1_marker(
    players: int,
) -> None:
    s = R.initial_state({"players": players}, 7)
    for seat in range(players):
        c = s.colours[seat]
        assert c.court == (1, 2)
        assert c.reserve == (1, 1, 2, 3, 4)
        assert (c.gold, c.squires, c.voting_markers, c.power) == (2, 2, 1, 0)
        assert c.extensions == () and c.nobles == ()


@pytest.mark.parametrize(("players", "tiles"), [(2, 2), (3, 2), (4, 3), (5, 4)])
def test_nobleman_stacks_hold_2_2_3_4_tiles_by_player_count(players: int, tiles: int) -> None:
    s = R.initial_state({"players": players}, 7)
    assert s.nobles == (tiles,) * 9


@pytest.mark.parametrize(
    ("players", "removed"), [(2, {2, 10}), (3, {9, 10}), (4, {2, 10}), (5, {2, 3})]
)
def test_two_conflict_cards_are_removed_by_player_count(players: int, removed: set[int]) -> None:
    s = R.initial_state({"players": players}, 7)
    in_game = {c.card for c in s.upper if c} | set(s.conflict_pile)
    assert in_game == set(range(1, 13)) - removed
    assert len(s.conflict_pile) == 8 and s.lower == (None, None)


def test_the_upgrade_favor_tile_is_removed_in_the_three_player_game() -> None:
    assert R.initial_state({"players": 3}, 7).favors == (1, 3, 4, 5, 6)
    for players in (2, 4, 5):
        assert R.initial_state({"players": players}, 7).favors == (1, 2, 3, 4, 5, 6)


def test_law_piles_group_0_face_up_then_groups_1_to_4_from_the_top() -> None:
    s = R.initial_state({"players": 3}, 7)
    group = {law.key: law.group for law in BASE.laws}
    assert sorted(group[k] for k in s.laws) == [0, 0, 0]
    assert [group[k] for k in s.new_laws] == [1, 1, 1]
    assert [group[k] for k in s.law_pile] == [2] * 4 + [3] * 4 + [4] * 4


def test_shuffles_and_start_player_follow_the_seed() -> None:
    a, b = R.initial_state({"players": 4}, 11), R.initial_state({"players": 4}, 11)
    assert a == b
    others = {
        (s.start_player, s.conflict_pile, s.law_pile)
        for s in (R.initial_state({"players": 4}, seed) for seed in range(12))
    }
    assert len(others) > 1
    assert {R.initial_state({"players": 4}, seed).start_player for seed in range(40)} == {
        0,
        1,
        2,
        3,
    }


def test_every_player_chooses_a_first_extension_tile_at_once_before_round_1() -> None:
    g = Game(3)
    assert g.to_act == {RED, BLUE, YELLOW}
    g.play(BLUE, "extension 5")
    assert g.to_act == {RED, YELLOW}
    assert g.c(BLUE).extensions == (5,)
    assert g.said("Blue starts with an extension tile on castle space 5")
    g.play(YELLOW, "tile 2")
    g.play(RED, "3")
    assert g.head[:2] == ("place", RED)
    # The covered space can never take a knight.
    assert "knight 1 to castle 3" not in g.legal(RED)
    assert "knight 1 to castle 1" in g.legal(RED)


def test_config_takes_the_henry_v_modules_and_refuses_laws_of_the_king_alone() -> None:
    assert R.validate_config({"players": 3, "expansions": {}}) == {
        "players": 3,
        "data": {},
        "expansions": {},
    }
    assert R.validate_config(
        {"players": 3, "expansions": {"resentment": True, "kings_court": False}}
    ) == {"players": 3, "data": {}, "expansions": {"resentment": True}}
    assert R.validate_config({"players": 3, "expansions": {"kings_court": True}})["expansions"] == {
        "kings_court": True
    }
    every = {"laws_of_the_king": True, "kings_court": True, "resentment": True}
    assert R.validate_config({"players": 3, "expansions": every})["expansions"] == every
    with pytest.raises(ConfigError, match="only with both At the King's Court and The King's"):
        R.validate_config({"players": 3, "expansions": {"laws_of_the_king": True}})
    with pytest.raises(ConfigError, match="only with both"):
        R.validate_config(
            {"players": 3, "expansions": {"laws_of_the_king": True, "resentment": True}}
        )
    with pytest.raises(ConfigError, match="Unknown expansion"):
        R.validate_config({"players": 3, "expansions": {"new_laws": True}})
    with pytest.raises(ConfigError, match="true or false"):
        R.validate_config({"players": 3, "expansions": {"resentment": "yes"}})
    with pytest.raises(ConfigError, match="must be a mapping"):
        R.validate_config({"players": 3, "expansions": ["resentment"]})


@pytest.mark.parametrize("bad", [{"players": 1}, {"players": 6}, {"players": True}, {}])
def test_config_needs_2_to_5_players(bad: dict[str, object]) -> None:
    with pytest.raises(ConfigError, match="2 to 5 players"):
        R.validate_config(bad)


def test_config_rejects_unknown_keys() -> None:
    with pytest.raises(ConfigError, match="variants"):
        R.validate_config({"players": 3, "variants": {}})


def test_data_overrides_are_validated_recorded_and_replayed() -> None:
    config = {
        "players": 3,
        "data": {
            "counties": {"A": {"minimum": 2, "reward": {"gold": 3}}},
            "conflicts": {"1": {"france": 4, "points": [5, 3, 1]}},
            "start": {"gold": 5},
        },
    }
    norm = R.validate_config(config)
    assert norm["data"]["counties"] == {"A": {"minimum": 2, "reward": {"gold": 3}}}
    assert R.validate_config(norm) == norm
    s = R.initial_state(config, 3)
    assert s.data.county("A").minimum == 2 and s.data.county("A").reward.gold == 3
    assert s.data.card(1).france == 4 and s.data.card(1).points == (5, 3, 1)
    assert s.colours[0].gold == 5
    assert R.load_state(R.dump_state(s)) == s
    paths = [p for p, _ in provisional_values(s.data)]
    assert "counties.A.minimum" not in paths and "counties.B.minimum" in paths


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"counties": {"Z": {}}}, "unknown key"),
        ({"counties": {"A": {"minimum": 9}}}, "no knight is that strong"),
        ({"counties": {"A": {"minimum": 10}}}, "from 1 to 9"),
        ({"counties": {"A": {"reward": {"upgrade": 1, "extension": 1}}}}, "at most one part"),
        ({"conflicts": {"3": {"points": [1, 2]}}}, "3 numbers"),
        ({"laws": {"counties_power": {"group": 0}}}, "exactly 3 laws"),
        ({"start": {"gold": -1}}, "from 0 to 20"),
        ("lots", "must be a mapping"),
    ],
)
def test_data_overrides_that_make_no_sense_are_refused(data: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        R.validate_config({"players": 3, "data": data})


def test_provisional_values_are_listed_for_the_game_page() -> None:
    listed = dict(provisional_values(BASE))
    assert listed["counties.A.minimum"] == "1"
    assert listed["conflicts.12"] == "France 9, power points 10/6/3"
    assert "counties.H.reward" not in listed  # Dorset's reward is in the seed text
    # The two laws standing in for base laws no source gave (lancaster-data.md, Laws).
    assert listed["laws.conflicts_markers.card"].startswith("a stand-in from The New Laws:")
    assert "laws.most_gold_squire_marker.card" in listed
    assert not any(
        p.endswith(".card") and "conflicts_markers" not in p and "most_gold_squire" not in p
        for p in listed
    )


def test_the_rules_object_lists_provisional_values_under_a_config() -> None:
    base = dict(R.provisional_values({"players": 3}))
    assert base["counties.A.minimum"] == "1"
    fixed = dict(R.provisional_values({"players": 3, "data": {"counties": {"A": {"minimum": 1}}}}))
    assert "counties.A.minimum" not in fixed and len(fixed) == len(base) - 1
