"""Replies as people write them, read as they meant them or refused — never guessed.

The corpus (``corpus/phrasings.txt``) has two parts: "moves", each with the one action it
must read as, and "not moves", each refused as unreadable, as illegal, or (``never``) in every
position of the corpus. Nothing outside "moves" is ever applied.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from engine.core.protocol import ActionSyntaxError, IllegalActionError
from engine.lancaster.parsing import PLACING_VERBS
from tests.engine.lancaster.helpers import BLUE, LATEST, RED, YELLOW, Game, R
from tests.engine.lancaster.test_court import place_all
from tests.engine.lancaster.test_new_laws import _two_conflicts, _upkeep, laws_game

CORPUS = Path(__file__).with_name("corpus") / "phrasings.txt"
NEUTRAL = ("strength_1_power", "noblemen_knights", "extensions_power")


def _placed(players: int = 3) -> Game:
    g = Game(players, cards=(1, 4), laws=NEUTRAL)
    g.setup(*([1] * players))
    return g


def _rewards(*moves: tuple[int, str], laws: tuple[str, ...] = NEUTRAL) -> Game:
    g = Game(3, cards=(1, 4), laws=laws)  # type: ignore[arg-type]
    g.setup(1, 1, 1)
    g.moves(*moves)
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    return g


def setup() -> Game:
    return Game(3, cards=(1, 4), laws=NEUTRAL)


def place() -> Game:
    return _placed()  # Red to place knights 1 and 2, 2 squires, conflicts 1 and 4


def place_one() -> Game:
    g = _placed()
    g.moves((RED, "knight 1 to castle 2"), (BLUE, "knight 1 to castle 2"))
    g.play(YELLOW, "knight 1 to castle 2")
    return g  # Red has only its knight 2 at court


def place_two() -> Game:
    return _placed(2)


def favor() -> Game:
    g = _placed(4)
    g.play(RED, "knight 1 to conflict 1")
    return g  # 4 players: the upgrade tile is in the game; no voting markers tile


def favor_three() -> Game:
    g = _placed()
    g.play(RED, "knight 1 to conflict 1")
    return g


def vote() -> Game:
    g = _placed()
    g.place_rest_in_castles()
    return g  # Red votes first, with 1 voting marker


def county_a() -> Game:
    return _rewards((RED, "knight 1 to A"))  # its reward needs no choice; Red has 2 gold


def county_b() -> Game:
    return _rewards((RED, "knight 2 to B"))  # upgrade: knight 2 in B or knight 1 in castle 2


def surrey() -> Game:
    return _rewards((RED, "knight 1 to I"))


def surrey_held() -> Game:
    g = surrey()
    g.edit_colour(RED, nobles=("I",))  # no nobleman I left for Red to take
    return g


def _printed_surrey(players: int, move: str, **red: object) -> Game:
    """Rules 2.0.0 (as printed): Red's ``move`` to Surrey, whose reward is 2 gold and 2
    squires and whose holder names the start player at once (decisions 6 and 12)."""
    g = Game(players, cards=(5, 6), laws=NEUTRAL, rules=LATEST)
    g.setup(*([1] * players))
    if red:
        g.edit_colour(RED, **red)
        g.rerun()
    g.play(RED, move)
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    return g


def surrey_printed() -> Game:
    return _printed_surrey(3, "knight 1 to I")  # Red has 2 gold: not enough for both


def surrey_printed_rich() -> Game:
    return _printed_surrey(3, "knight 1 to I", gold=3)


def place_printed() -> Game:
    g = Game(3, cards=(5, 6), laws=NEUTRAL, rules=LATEST)
    g.setup(1, 1, 1)
    return g  # rules 2.0.0: Red to place knights 1 and 2, with 2 squires


def surrey_ally() -> Game:
    return _printed_surrey(2, "ally knight 2 to I")  # Red decides for its ally, Yellow


def dorset() -> Game:
    return _rewards(
        (RED, "knight 2 to H"), (BLUE, "knight 1 to conflict 4"), (BLUE, "favor squires")
    )


def castle() -> Game:
    g = Game(3, cards=(1, 4), laws=NEUTRAL)
    g.setup(6, 1, 1)
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    g.auto_until("castle_paid")
    return g  # Red's extension covers space 6: pay 3 squires for a new knight, or done


def castle_five() -> Game:
    g = Game(3, cards=(1, 4), laws=NEUTRAL)
    g.setup(5, 1, 1)
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    g.auto_until("castle_paid")
    return g  # space 5: pay 2 squires to upgrade knight 1 (castle 1) or 2 (castle 2)


def buy_markers() -> Game:
    return _rewards((RED, "knight 1 to A"), laws=("buy_voting_markers", *NEUTRAL[:2]))


def law_upgrade() -> Game:
    g = Game(3, cards=(1, 4), laws=("no_strength_2_upgrades", *NEUTRAL[:2]))
    g.setup(5, 1, 1)
    g.edit_colour(RED, court=(1, 1), reserve=(1, 2, 2, 3, 4))  # no strength 2 to deploy
    g.rerun()
    g.play(RED, "knight 1 to A")
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    return g  # Red may upgrade knight 1 in A or in castle 1, or not


def law_swap() -> Game:
    g = Game(3, cards=(1, 4), laws=("swap_3_for_4", *NEUTRAL[:2]))
    g.setup(1, 1, 1)
    g.edit_colour(RED, court=(1, 3), reserve=(1, 1, 2, 2, 4))
    g.rerun()
    g.play(RED, "knight 3 to D")
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    return g  # Red's 3 is deployed and its 4 in the reserve


def ransom() -> Game:
    g = Game(3, cards=(1, 4), laws=NEUTRAL)
    g.setup(1, 1, 1)
    g.moves((RED, "knight 1 to conflict 4"), (RED, "favor gold"))
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    g.auto_until("place")  # France wins conflict 4: it slides to the lower row
    g.auto_until("ransom")  # and wins again
    return g


HENRY_V = {"expansions": {"kings_court": True, "resentment": True, "laws_of_the_king": True}}


def court_place() -> Game:
    """Henry V, every module: Red to place, knights 1 and 2 and its lord at court, 1 bishop,
    the shield, the archer and the Tudor knight in hand (as if granted last round)."""
    g = Game(3, cards=(1, 4), laws=NEUTRAL, config=HENRY_V)
    g.setup(1, 1, 1)
    g.edit_colour(RED, bishops=1, privileges=("archer", "shield", "tudor"))
    g.edit(bishop_supply=4, privilege_supply=(1, 2, 2))
    return g


def court_seals() -> Game:
    g = Game(3, cards=(1, 4), laws=("seals_for_squires_gold", *NEUTRAL[:2]), config=HENRY_V)
    g.setup(1, 1, 1)
    g.edit_colour(RED, seals=3)
    g.edit(seal_supply=21)
    place_all(g)
    g.reject_all_new_laws()
    return g  # Red decides first how many of its 3 seals to dispose of


def court_bishop() -> Game:
    g = Game(3, cards=(1, 4), laws=NEUTRAL, config=HENRY_V)
    g.setup(1, 1, 1)
    g.play(RED, "knight 2 to B")
    place_all(g)
    g.reject_all_new_laws()
    return g  # county B: upgrade a knight, or take a bishop instead


def nl_send() -> Game:
    return _two_conflicts()  # rules 2.1.0: Red's knights at conflicts 5 and 6, 5 squires


def nl_extension() -> Game:
    return laws_game("buy_extensions", gold=9)  # Red's extension covers space 1


def nl_recall() -> Game:
    return _upkeep(1)  # Red's knights in A and B, 1 gold


def nl_turn_over() -> Game:
    return laws_game("extension_upkeep", extensions=(1, 3), squires=1)


def nl_exchange() -> Game:
    return laws_game("exchange_gold_squires", gold=4, squires=2)


def nl_batches() -> Game:
    return laws_game("batches_for_power", voting_markers=3, gold=2, squires=5)


POSITIONS: dict[str, Callable[[], Game]] = {
    f.__name__: f
    for f in (
        setup,
        place,
        place_one,
        place_two,
        favor,
        favor_three,
        vote,
        county_a,
        county_b,
        surrey,
        surrey_held,
        surrey_printed,
        surrey_printed_rich,
        surrey_ally,
        place_printed,
        dorset,
        castle,
        castle_five,
        buy_markers,
        law_upgrade,
        law_swap,
        ransom,
        court_place,
        court_seals,
        court_bishop,
        nl_send,
        nl_extension,
        nl_recall,
        nl_turn_over,
        nl_exchange,
        nl_batches,
    )
}


@cache
def position(name: str) -> tuple[Any, int]:
    """The state (immutable, so shared) and the seat that reads the text."""
    g = POSITIONS[name]()
    return g.state, min(g.to_act)


def _cases(part: str) -> list[tuple[str, str, str]]:
    cases: list[tuple[str, str, str]] = []
    current = None
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("["):
            current = line.strip("[]")
            # a damaged header would silently drop every case after it
            assert current in ("moves", "not moves"), f"unknown corpus section {line!r}"
            continue
        # a case outside both parts would never be checked
        assert current is not None, f"a corpus case before any part: {line!r}"
        if current == part:
            name, text, expected = (x.strip() for x in line.split(" | "))
            cases.append((name, text, expected))
    return cases


MOVES = _cases("moves")
NOT_MOVES = _cases("not moves")


def test_the_corpus_is_large_and_every_position_is_what_its_cases_expect() -> None:
    assert len(MOVES) + len(NOT_MOVES) >= 150
    assert {name for name, _, _ in MOVES + NOT_MOVES} == set(POSITIONS)
    for name in POSITIONS:
        state, seat = position(name)
        assert R.legal_actions(state, seat), name


@pytest.mark.parametrize(("name", "text", "expected"), MOVES)
def test_a_move_reads_as_the_player_meant(name: str, text: str, expected: str) -> None:
    state, seat = position(name)
    action = R.parse_action(state, seat, text)
    assert R.format_action(state, action) == expected
    assert action in R.legal_actions(state, seat)


@pytest.mark.parametrize(("name", "text", "expected"), NOT_MOVES)
def test_a_reply_that_is_not_a_move_is_refused(name: str, text: str, expected: str) -> None:
    errors = {
        "syntax": ActionSyntaxError,
        "illegal": IllegalActionError,
        "never": (ActionSyntaxError, IllegalActionError),
    }[expected]
    state, seat = position(name)
    with pytest.raises(errors) as refused:
        R.parse_action(state, seat, text)
    assert str(refused.value)
    if isinstance(refused.value, ActionSyntaxError):
        assert refused.value.can_type  # the refusal lists what can be typed now


@pytest.mark.parametrize("text", sorted({t for _, t, e in NOT_MOVES if e == "never"}))
def test_a_sentence_that_is_not_a_move_is_refused_in_every_position(text: str) -> None:
    for name in POSITIONS:
        state, seat = position(name)
        with pytest.raises((ActionSyntaxError, IllegalActionError)):
            R.parse_action(state, seat, text)


@pytest.mark.parametrize("verb", PLACING_VERBS)
def test_every_verb_of_placing_places_every_kind_of_piece(verb: str) -> None:
    """docs/lancaster-notation.md: the verbs of placing are read for a knight's placement,
    the tower's (The King's Resentment) and a lord's (At the King's Court) alike."""
    state, seat = position("court_place")
    for text, expected in (
        (f"knight 2 {verb} to C", "knight 2 to C"),
        (f"I'm {verb} knight 1 to conflict 4", "knight 1 to conflict 4"),
        (f"{verb} knight 2 in the tower", "knight 2 to tower"),
        (f"my lord {verb} to the chancellor", "lord to chancellor"),
        (f"{verb} my lord in the treasury for the gold", "lord to treasury gold"),
    ):
        assert R.format_action(state, R.parse_action(state, seat, text)) == expected, text


def test_the_notation_page_lists_the_verbs_of_placing() -> None:
    page = " ".join(
        (Path(__file__).parents[3] / "docs" / "lancaster-notation.md")
        .read_text(encoding="utf-8")
        .split()
    )
    listed = "place, put, send, move, goes, drop and their *-s* and *-ing* forms"
    assert listed in page
    for base in ("place", "put", "send", "move", "goes", "drop"):
        assert base in PLACING_VERBS
