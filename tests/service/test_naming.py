"""Players are named one way: "Ann (Red)", and a Lancaster 2-player ally "Yellow (Ann's ally)",
in the engines' own lines and boards (pbem.core.naming), from the games' real views."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

import engine
from pbem.core.naming import _COMMAND_LINE, Names, _patterns_of, names_for
from pbem.play.views import board_for_people


def test_lancaster_two_players_names_the_allies_by_their_owner() -> None:
    rules = engine.REGISTRY["lancaster"]
    state = rules.initial_state(rules.validate_config({"players": 2}), 5)
    names = names_for(rules, state, ["Ann", "Bob"])
    assert (names.of(0), names.of(1)) == ("Ann (Red)", "Bob (Blue)")
    assert names.text("Yellow (Red's ally) places knight 2 on castle space 1.") == (
        "Yellow (Ann's ally) places knight 2 on castle space 1."
    )
    assert names.text("Green places knight 1.") == "Green (Bob's ally) places knight 1."
    board = names.text(rules.render_text(rules.view(state, 0)))
    assert "  Ann (Red, you): " in board and "  Yellow (Ann's ally): " in board
    assert "Red's ally" not in board


def test_lancelot_names_each_colour_and_leaves_commands_alone() -> None:
    rules = engine.REGISTRY["lancelot"]
    state = rules.initial_state(rules.validate_config({"players": 3}), 5)
    names = names_for(rules, state, ["Ann", "Red", "Cy"])
    # A player called Red plays Blue: one pass, so nothing is renamed twice.
    assert names.text("Red captures Blue's knight; Yellow passes.") == (
        "Ann (Red) captures Red (Blue)'s knight; Cy (Yellow) passes."
    )
    assert names.many([2, 0]) == "Ann (Red) and Cy (Yellow)"
    typed = "You can type, for example: noble start player Yellow"
    assert names.text(typed) == typed


def test_a_game_without_labels_names_seats_by_their_players() -> None:
    names = Names.from_view({"players": 2}, ["Ann", "Bob"])
    assert names.of(1) == "Bob"
    assert names.text("Seat 0 committed; seat 1 drew.") == "Ann committed; Bob drew."
    assert names.text("seat 7 is no seat here") == "seat 7 is no seat here"


_FRAGMENTS = ["Red", "Blue", "Yellow", " ", "seat 1", "Seat 0", "seat 9", " (you)", "Ann (Red)"]
_FRAGMENTS += ["Redder", "x", "\n", "You can type ", "'s ally", "(", ")", ",", "é"]


@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=30).map("".join))
def test_a_line_searched_only_when_it_holds_a_word_reads_as_every_line_searched_word_by_word(
    text: str,
) -> None:
    rules = engine.REGISTRY["lancaster"]
    state = rules.initial_state(rules.validate_config({"players": 2}), 5)
    names = names_for(rules, state, ["Ann", "Bob"])
    replacements = _patterns_of(names).replacements
    # The pattern as first written, each word with its own boundary checks: the one in use
    # checks them once around all the words, and searches only lines holding a word.
    words = [
        rf"(?<![\w]){re.escape(k)}(?![\w])" for k in sorted(replacements, key=len, reverse=True)
    ]
    pattern = re.compile("|".join([*words, r"\b[Ss]eat (\d+)\b"]))

    def named(match: re.Match[str]) -> str:
        number = match.group(1)
        if number is not None:
            return names.of(int(number)) if int(number) < 2 else match.group(0)
        return replacements.get(match.group(0), match.group(0))

    every_line = "\n".join(
        line if _COMMAND_LINE.match(line) else pattern.sub(named, line) for line in text.split("\n")
    )
    assert names.text(text) == every_line


def test_the_lancelot_knights_table_lines_up_under_the_players_names() -> None:
    """The mail's table of captures, lost knights and knights in hand: each number sits
    under its heading, whatever the length of the names."""
    rules = engine.REGISTRY["lancelot"]
    state = rules.initial_state(rules.validate_config({"players": 3}), 7)
    names = names_for(rules, state, ["Ann", "Bob", "Christopher"])
    lines = board_for_people(rules, state, 0, names).splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("knights"))
    rows = lines[header + 1 : header + 4]
    assert [row.split("  ")[0] for row in rows] == [
        "Ann (Red)", "Bob (Blue)", "Christopher (Yellow)",
    ]  # fmt: skip
    for heading in ("captures", "lost", "in hand"):
        end = lines[header].index(heading) + len(heading)
        # The number is right-aligned under its heading.
        assert all(row[end - 1].isdigit() and row[end : end + 1] in ("", " ") for row in rows)
