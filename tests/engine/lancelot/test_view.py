"""Config, view, text rendering, outcome and the deadline default (rules/lancelot.md,
"Config, view, outcome")."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from engine import REGISTRY
from engine.core.protocol import ConfigError
from engine.lancelot import LANCELOT
from engine.lancelot.state import COLOURS
from tests.engine.lancelot.helpers import (
    LONG_GAME,
    R,
    at,
    first_step,
    new_game,
    play,
    random_game,
    step,
)

# -- config ---------------------------------------------------------------------------------


def test_lancelot_is_registered() -> None:
    assert REGISTRY["lancelot"] is LANCELOT
    assert (R.name, R.player_counts) == ("lancelot", (2, 3, 4, 5))


def test_the_config_is_completed_with_the_defaults() -> None:
    assert R.validate_config({"players": 4}) == {
        "players": 4,
        "target": 9,
        "variants": {"diagonals": False, "excalibur": False},
    }
    config = {"players": 2, "target": 3, "variants": {"excalibur": True}}
    normal = R.validate_config(config)
    assert normal == {
        "players": 2,
        "target": 3,
        "variants": {"diagonals": False, "excalibur": True},
    }
    assert R.validate_config(normal) == normal


@pytest.mark.parametrize(
    ("config", "said"),
    [
        ({"players": 6}, "'players' must be a whole number from 2 to 5, not 6"),
        ({"players": "3"}, "'players' must be a whole number from 2 to 5"),
        ({"players": True}, "'players' must be"),
        ({}, "'players' must be"),
        ({"players": 2, "colour": "red"}, "Unknown config key(s) 'colour'"),
        ({"players": 2, "target": 0}, "'target' must be a whole number of captures from 1 to 30"),
        ({"players": 3, "target": 61}, "from 1 to 60 (the usual target with 3 players is 8)"),
        ({"players": 2, "target": 2.5}, "'target' must be"),
        ({"players": 2, "variants": {"mirror": True}}, "Unknown variant(s) 'mirror'"),
        ({"players": 2, "variants": {"diagonals": "yes"}}, "'diagonals' must be true or false"),
        ({"players": 2, "variants": ["diagonals"]}, "'variants' must be a mapping"),
    ],
)
def test_a_bad_config_is_refused_with_a_clear_message(config: dict[str, Any], said: str) -> None:
    with pytest.raises(ConfigError) as error:
        R.validate_config(config)
    assert said in str(error.value)


def test_the_seed_plays_no_part() -> None:
    config = {"players": 3, "variants": {"excalibur": True}}
    assert R.initial_state(config, 1) == R.initial_state(config, 2**80)


# -- view -----------------------------------------------------------------------------------


def _excalibur_game() -> Any:
    # Seat 0 captures F5 with the force of the King; seat 1 then places on E7.
    return play(
        new_game(excalibur=True), "excalibur G9", "D5", "F5", "E5", "J10", "king H5 K8", "E7"
    )


def test_the_view_shows_board_captures_knights_shields_area_target_and_who_acts() -> None:
    state = _excalibur_game()
    v = R.view(state, 1)
    assert v["board"] == {"D5": 0, "E5": 0, "H5": "X", "K8": 0, "J10": 1, "E7": 1}
    assert v["captures"] == [1, 0]
    assert v["lost"] == [0, 1]
    assert v["in_hand"] == [27, 27]
    assert v["shields"] == [False, True]
    assert v["excalibur"] == "H5"
    assert v["area"]["from"] == "D4" and v["area"]["to"] == "K11"
    assert v["area"]["columns"] == list("DEFGHIJK")
    assert v["area"]["rows"] == list(range(4, 12))
    assert v["target"] == 7
    assert v["to_act"] == [0]
    assert v["last_action"] == {"seat": 1, "text": "E7"}
    assert v["finished"] is False and v["winners"] == []
    json.dumps(v)


def test_nothing_is_hidden_every_seat_sees_the_same_game() -> None:
    state = _excalibur_game()
    views = [R.view(state, seat) for seat in (None, 0, 1)]
    for v in views:
        v.pop("seat")
        v.pop("prompt")
    assert views[0] == views[1] == views[2]
    assert R.is_secret(state, 0, ("place", 4, 4)) is False


def test_the_prompt_speaks_to_the_viewer() -> None:
    state = _excalibur_game()
    assert R.view(state, 0)["prompt"].startswith("Your turn: place a knight, e.g. D4")
    assert R.view(state, 1)["prompt"] == "Red is to play."
    assert R.view(state, None)["prompt"] == "Red is to play."
    fresh = new_game(excalibur=True)
    assert "force of the King" in R.view(play(fresh, "excalibur G9"), 0)["prompt"]
    assert "set Excalibur" in R.view(fresh, 1)["prompt"]


def test_the_plain_variant_view_has_no_shields() -> None:
    v = R.view(new_game(), None)
    assert "shields" not in v and "excalibur" not in v
    assert v["variants"] == {"diagonals": False, "excalibur": False}


def test_the_text_rendering_shows_the_board_with_coordinates_and_the_counts() -> None:
    text = R.render_text(R.view(_excalibur_game(), 0))
    lines = text.splitlines()
    assert (
        lines[0]
        == "Lancelot, 2 players, area D4-K11, first to 7 captures wins (variants: excalibur)."
    )
    assert "     D E F G H I J K" in lines
    # Row 5, read left to right: D5 E5 (seat 0), F5 free (captured), G5 free, H5 Excalibur.
    assert "   5 R R . . X . . .  5" in lines
    assert "   7 . B . . . . . .  7" in lines
    assert "   8 . . . . . . . R  8" in lines
    assert "knights  captures  lost  in hand  shield" in lines
    assert "Red             1     0       27  spent" in lines
    assert "Blue            0     1       27  unused" in lines
    assert "R = Red, B = Blue, . = free square, X = Excalibur" in lines
    assert "You play Red (R)." in lines
    assert "Last move: Blue played E7." in lines
    assert lines[-1].startswith("Your turn: place a knight")


def test_the_text_rendering_of_the_full_board_has_two_digit_rows() -> None:
    text = R.render_text(R.view(play(new_game(5), "A1", "N14"), None))
    assert "     A B C D E F G H I J K L M N" in text
    assert "  14 . . . . . . . . . . . . . B  14" in text
    assert "   1 R . . . . . . . . . . . . .  1" in text


# -- outcome --------------------------------------------------------------------------------


def test_the_outcome_gives_captures_as_scores_and_the_winner() -> None:
    moves = ("D4", "F4", "E4", "K8", "K6", "G9", "K7", "H10")
    state = play(new_game(target=2), *moves)
    assert R.outcome(state) is None
    state = play(state, "K4")
    outcome = R.outcome(state)
    assert outcome is not None
    assert outcome.scores == (2, 0)
    assert outcome.winners == (0,)
    assert outcome.breakdown[0] == {
        "captures": 2,
        "captured_from": {"1": 2},
        "lost": 0,
        "in_hand": 25,
        "on_board": 5,
        "end": "target",
    }
    json.dumps(outcome.to_json())
    assert R.view(state, 1)["winners"] == [0]


# -- dump and load --------------------------------------------------------------------------


def test_the_state_round_trips_through_json_readably() -> None:
    state = _excalibur_game()
    dumped = R.dump_state(state)
    assert dumped["players"] == 2
    assert dumped["board"]["H5"] == "X"
    assert "rng" not in dumped  # Lancelot draws nothing
    assert R.load_state(json.loads(json.dumps(dumped))) == state


# -- the deadline default -------------------------------------------------------------------


def test_the_default_move_takes_the_biggest_capture() -> None:
    state = play(new_game(), "D5", "J5", "E5", "J9")
    # F5 G5 H5 I5 all capture J5 (+2 on row 5); K5 does too. The nearest the centre wins.
    action = R.auto_action(state, 0)
    assert action == ("place", 6, 5)  # G5
    t = step(state, "G5")
    assert at(t.state, "J5") is None


def test_the_default_move_is_central_on_an_empty_board_and_never_spends_the_shield() -> None:
    assert R.auto_action(new_game(), 0) == ("place", 6, 7)  # G7, one of the 4 central squares
    assert R.auto_action(new_game(5), 0) == ("place", 6, 7)  # G7 on A1–N14 too
    fresh = new_game(excalibur=True)
    assert R.auto_action(fresh, 1) == ("excalibur", 6, 7)
    state = play(fresh, "excalibur G7")
    action = R.auto_action(state, 0)
    assert action[0] == "place" and action != ("place", 6, 7)


def test_the_default_move_passes_when_nothing_else_is_legal() -> None:
    state, seat, _a, _t = first_step(LONG_GAME, lambda s: s[2] == ("pass",))
    assert R.auto_action(state, seat) == ("pass",)


# -- naming the seats -----------------------------------------------------------------------


def test_the_view_names_every_seat_by_its_colour_and_board_letter() -> None:
    v = R.view(new_game(5), None)
    assert v["players"] == [
        {"seat": 0, "label": "Red", "symbol": "R"},
        {"seat": 1, "label": "Blue", "symbol": "B"},
        {"seat": 2, "label": "Yellow", "symbol": "Y"},
        {"seat": 3, "label": "Green", "symbol": "G"},
        {"seat": 4, "label": "Purple", "symbol": "P"},
    ]
    state = new_game(5)
    assert [R.seat_label(state, s) for s in range(5)] == [p["label"] for p in v["players"]]


@pytest.mark.parametrize("players", [2, 3, 5])
def test_no_log_line_or_text_names_a_seat_by_its_number(players: int) -> None:
    config: dict[str, object] = {
        "players": players,
        "target": 4,
        "variants": {"diagonals": True, "excalibur": True},
    }
    seat_word = re.compile(r"\bseats?\b", re.IGNORECASE)
    cell = re.compile(r"^  [ 1]\d (.*)  \d+$")
    symbols = {"R", "B", "Y", "G", "P"}
    steps = random_game(config, seed=players, king_one_in=2)
    for _state, seat, _action, t in steps:
        assert t.log[0].startswith(f"{COLOURS[seat]} "), t.log[0]
        assert not any(seat_word.search(line) for line in t.log), t.log
        for viewer in (None, seat):
            text = R.render_text(R.view(t.state, viewer))
            assert not seat_word.search(text), text
            for line in text.splitlines():
                row = cell.match(line)
                if row:  # a board row: only the seats' letters, X and free squares
                    assert set(row.group(1).split()) <= symbols | {"X", "."}, line
    final = steps[-1][3].state
    assert R.to_act(final) == frozenset()
    winners = " and ".join(COLOURS[w] for w in final.winners)
    assert winners in steps[-1][3].log[-1]
