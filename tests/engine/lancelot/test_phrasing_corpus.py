"""The phrasing corpus: moves as people write them in mail replies, read as they meant them,
and sentences that are not moves (or not clearly one move), refused and never applied.

The cases are in ``phrasing_corpus.txt`` beside this file; the positions they are read at
are built here by playing moves, over both variants.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from engine.core.protocol import ActionSyntaxError, EngineError, IllegalActionError
from engine.lancelot.state import LancelotState
from tests.engine.lancelot.helpers import LONG_GAME, R, first_step, new_game, play

CORPUS = Path(__file__).with_name("phrasing_corpus.txt")


@cache
def position(name: str) -> LancelotState:
    """The positions the corpus is read at; each names the seat to act in a comment."""
    if name == "plain2":  # 2 players, D4-K11, no variant: Red to place
        return play(new_game(2), "D4", "H8")
    if name == "diag3":  # 3 players, C3-L12, diagonals: Red to place
        return play(new_game(3, diagonals=True), "C3", "L12", "F7")
    if name == "opening2":  # Excalibur variant before the first turn: Blue sets Excalibur
        return new_game(2, excalibur=True)
    if name == "excal2":  # Excalibur on G9, Red to act with its shield unused
        return play(new_game(2, excalibur=True), "excalibur G9", "D4", "H8")
    if name == "spent":  # Red has spent its shield (Excalibur now on F7)
        return play(new_game(2, excalibur=True), "excalibur G9", "king F7 E5", "H8")
    if name == "both4":  # 4 players, B2-M13, both variants: Red to act, shield unused
        return play(new_game(4, diagonals=True, excalibur=True), "excalibur G9")
    if name == "blocked":  # a seat with knights but no open square: it must pass
        state, seat, _action, _t = first_step(
            LONG_GAME, lambda s: s[2] == ("pass",) and s[0].in_hand[s[1]] > 0
        )
        assert state.current == seat
        return state
    raise KeyError(name)


POSITIONS = ("plain2", "diag3", "opening2", "excal2", "spent", "both4", "blocked")


def _cases(section: str) -> list[tuple[str, str, str]]:
    cases: list[tuple[str, str, str]] = []
    current = None
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        if line.startswith("["):
            current = line.strip("[]")
            continue
        if current == section:
            where, text, expected = (part.strip() for part in line.split("|"))
            cases.append((where, text, expected))
    return cases


MOVES = _cases("moves")
NOT_MOVES = _cases("not moves")


def test_the_corpus_is_large_and_covers_both_variants_and_every_kind_of_action() -> None:
    assert len(MOVES) + len(NOT_MOVES) >= 150
    assert len(MOVES) >= 100 and len(NOT_MOVES) >= 100
    kinds = {expected.split()[0] if " " in expected else expected for _, _, expected in MOVES}
    assert {"king", "excalibur", "pass"} <= kinds
    assert {where for where, _, _ in MOVES} == set(POSITIONS)
    assert {where for where, _, _ in NOT_MOVES} == {"*", *POSITIONS}


@pytest.mark.parametrize(("where", "text", "expected"), MOVES)
def test_a_move_is_read_as_the_player_meant_it(where: str, text: str, expected: str) -> None:
    state = position(where)
    seat = state.current
    action = R.parse_action(state, seat, text)
    assert R.format_action(state, action) == expected
    assert action in R.legal_actions(state, seat)
    R.apply(state, seat, action)


def _refusal(state: LancelotState, text: str) -> EngineError:
    seat = state.current
    with pytest.raises((ActionSyntaxError, IllegalActionError)) as error:
        R.parse_action(state, seat, text)
    refusal = error.value
    assert isinstance(refusal, EngineError)
    if isinstance(refusal, ActionSyntaxError):
        # A syntax error lists what can be typed now, and every example really can be.
        assert "You can type, for example: " in str(refusal)
        assert refusal.can_type
        for example in refusal.can_type:
            assert R.parse_action(state, seat, example) in R.legal_actions(state, seat)
    return refusal


@pytest.mark.parametrize(("where", "text", "expected"), NOT_MOVES)
def test_what_is_not_clearly_one_move_is_refused_and_never_applied(
    where: str, text: str, expected: str
) -> None:
    for name in POSITIONS if where == "*" else (where,):
        state = position(name)
        before = R.dump_state(state)
        refusal = _refusal(state, text)
        assert expected in str(refusal), (name, str(refusal))
        assert R.dump_state(state) == before  # nothing was applied


# -- the rules page's examples stay true ------------------------------------------------------

RULES_PAGE = Path(__file__).parents[3] / "docs" / "lancelot-rules.md"


def _table_rows(heading: str) -> list[list[str]]:
    """The body rows of the first table after ``heading`` in the rules page, as cells."""
    after = RULES_PAGE.read_text(encoding="utf-8").split(heading, 1)[1].splitlines()
    start = next(i for i, line in enumerate(after) if line.startswith("|"))
    table = []
    for line in after[start:]:
        if not line.startswith("|"):
            break  # the table ends at the first line that is not a row
        table.append([cell.strip() for cell in line.strip("|").split("|")])
    return [row for row in table[1:] if not row[0].startswith("---")]


def _examples(cell: str) -> list[str]:
    return cell.split("`")[1::2]


def test_every_example_of_what_to_type_on_the_rules_page_is_read_as_it_says() -> None:
    positions = {"place": "plain2", "king": "excal2", "excalibur": "opening2", "pass": "blocked"}
    rows = _table_rows("## What to type")
    assert len(rows) == 4
    for _purpose, typed, also in rows:
        (canonical,) = _examples(typed)
        kind = canonical.split()[0] if " " in canonical else canonical
        state = position(positions.get(kind, "plain2"))
        for text in [canonical, *_examples(also)]:
            action = R.parse_action(state, state.current, text)
            assert R.format_action(state, action) == canonical, text


def test_every_refused_example_on_the_rules_page_is_refused() -> None:
    rows = _table_rows("### A reply is played as you meant it, or not at all")
    examples = [text for row in rows for text in _examples(row[0])]
    assert len(examples) >= 12
    state = position("excal2")  # Red to act, shield unused
    for text in examples:
        _refusal(state, text)


#: The verbs the rules page lists as skipped, with their -s and -ing forms.
VERB_FORMS = {
    "place": ("place", "places", "placing"),
    "play": ("play", "plays", "playing"),
    "put": ("put", "puts", "putting"),
    "set": ("set", "sets", "setting"),
    "go": ("go", "goes", "going"),
    "move": ("move", "moves", "moving"),
    "take": ("take", "takes", "taking"),
    "use": ("use", "uses", "using"),
    "spend": ("spend", "spends", "spending"),
    "invoke": ("invoke", "invokes", "invoking"),
}


def test_the_rules_page_lists_the_verbs_read() -> None:
    listed = " ".join(RULES_PAGE.read_text(encoding="utf-8").split())
    assert ", ".join(VERB_FORMS) + "* (and their *-s* and *-ing* forms)" in listed


@pytest.mark.parametrize("verb", [form for forms in VERB_FORMS.values() for form in forms])
def test_every_verb_the_rules_page_lists_is_read_for_every_kind_of_move(verb: str) -> None:
    for where, text, expected in (
        ("plain2", f"I {verb} E5", "E5"),
        ("opening2", f"{verb} Excalibur on G9", "excalibur G9"),
        ("excal2", f"{verb} king F7 E5", "king F7 E5"),
        ("blocked", f"I {verb} pass", "pass"),
    ):
        state = position(where)
        action = R.parse_action(state, state.current, text)
        assert R.format_action(state, action) == expected, text
