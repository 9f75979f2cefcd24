"""Email notation: short and forgiving; format_action reads back exactly; errors help."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core import contract
from engine.core.protocol import ActionSyntaxError, IllegalActionError, NotYourTurnError
from tests.engine.lancaster.helpers import BLUE, RED, YELLOW, Game, R

NEUTRAL = ("strength_1_power", "noblemen_knights", "extensions_power")


def placing() -> Game:
    g = Game(3, cards=(1, 4), laws=NEUTRAL)
    g.setup(1, 1, 1)
    return g


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("knight 2 to B with 1 squire", ("place", False, 2, ("county", "B"), 1)),
        ("Knight 2 to b, with 1 squire.", ("place", False, 2, ("county", "B"), 1)),
        ("2 B +1", ("place", False, 2, ("county", "B"), 1)),
        ("2 b 1 squire", ("place", False, 2, ("county", "B"), 1)),
        ("place my knight 2 in county B with two squires", ("place", False, 2, ("county", "B"), 2)),
        ("knight 1 to A", ("place", False, 1, ("county", "A"), 0)),
        ("1 a", ("place", False, 1, ("county", "A"), 0)),
        ("I put a knight 1 in Surrey", ("place", False, 1, ("county", "I"), 0)),
        ("castle 2 knight 1", ("place", False, 1, ("castle", 2), 0)),
        ("knight 1 to castle 2", ("place", False, 1, ("castle", 2), 0)),
        ("conflict 4 knight 2", ("place", False, 2, ("conflict", 4), 0)),
        ("2 to conflict 4", ("place", False, 2, ("conflict", 4), 0)),
    ],
)
def test_placements_read_in_many_forms(text: str, action: tuple[object, ...]) -> None:
    g = placing()
    assert R.parse_action(g.state, RED, text) == action


def test_a_placement_syntax_error_lists_what_can_be_typed_now() -> None:
    g = placing()
    with pytest.raises(ActionSyntaxError) as err:
        R.parse_action(g.state, RED, "send my best man")
    assert "knight 1 to A" in err.value.can_type
    assert "knight 1 to castle 2" in err.value.can_type
    assert "knight 2 to conflict 1" in err.value.can_type
    assert "Could not read" in str(err.value)


def test_an_illegal_placement_says_which_rule_forbids_it() -> None:
    g = placing()
    with pytest.raises(IllegalActionError, match="needs a knight of strength 3"):
        R.parse_action(g.state, RED, "knight 1 to D")
    with pytest.raises(IllegalActionError, match="no knight of strength 3"):
        R.parse_action(g.state, RED, "knight 3 to A")
    with pytest.raises(NotYourTurnError, match="Red to place a knight"):
        R.parse_action(g.state, BLUE, "knight 1 to A")


def test_votes_favors_and_setup_read_forgivingly() -> None:
    g = Game(3, cards=(1, 4), laws=NEUTRAL)
    assert R.parse_action(g.state, RED, "Extension 4") == ("extension", 4)
    assert R.parse_action(g.state, RED, "tile four") == ("extension", 4)
    g.setup(1, 1, 1)
    g.play(RED, "knight 1 to conflict 1")
    for text, tile in [
        ("favor gold", 3),
        ("Favour: the squires please", 4),
        ("favor new knight", 1),
        ("favor 6", 6),
        ("votes", 6),
    ]:
        assert R.parse_action(g.state, RED, text)[:2] == ("favor", tile)
    assert R.parse_action(g.state, RED, "favor nobleman a") == ("favor", 5, "A")
    assert R.parse_action(g.state, RED, "noble Surrey") == ("favor", 5, "I")
    g.play(RED, "favor gold")
    g.place_rest_in_castles()
    for text, action in [
        ("vote yes 1", ("vote", True, 1)),
        ("YES +1", ("vote", True, 1)),
        ("no", ("vote", False, 0)),
        ("vote against with one marker", ("vote", False, 1)),
        ("aye", ("vote", True, 0)),
    ]:
        assert R.parse_action(g.state, RED, text) == action
    with pytest.raises(ActionSyntaxError) as err:
        R.parse_action(g.state, RED, "maybe")
    assert err.value.can_type == ("vote no", "vote no 1", "vote yes", "vote yes 1")


def test_county_castle_law_and_ransom_choices_read_forgivingly() -> None:
    g = Game(3, cards=(1, 4), laws=("buy_voting_markers", *NEUTRAL[:2]))
    g.setup(1, 1, 1)
    g.moves((RED, "knight 2 to B"), (BLUE, "knight 1 to I"))
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    assert R.parse_action(g.state, RED, "buy 1 marker") == ("markers", 1)
    assert R.parse_action(g.state, RED, "none") == ("markers", 0)
    for seat in (RED, BLUE, YELLOW):
        g.play(seat, "none")
    assert g.head == ("county", 1)
    assert R.parse_action(g.state, RED, "Nobleman!") == ("noble",)
    assert R.parse_action(g.state, RED, "reward: upgrade knight 2 in B") == (
        "reward",
        (2, "county B"),
    )
    assert R.parse_action(g.state, RED, "reward 1 castle 2") == ("reward", (1, "castle 2"))
    with pytest.raises(ActionSyntaxError) as err:
        R.parse_action(g.state, RED, "reward")  # several knights could be upgraded
    assert "reward upgrade knight 2 in county B" in err.value.can_type
    g.play(RED, "noble")
    # decision 6: Surrey gives the nobleman, and its holder names the next start player
    assert R.parse_action(g.state, BLUE, "noble start player yellow") == ("noble", YELLOW)
    assert R.parse_action(g.state, BLUE, "nobleman, me") == ("noble", BLUE)


def test_castle_and_ransom_choices_read_forgivingly() -> None:
    g = Game(3, cards=(1, 4), laws=NEUTRAL)
    g.setup(6, 1, 1)
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    g.auto_until("castle_paid")
    assert R.parse_action(g.state, RED, "Done.") == ("done",)
    assert R.parse_action(g.state, RED, "no thanks") == ("done",)
    assert R.parse_action(g.state, RED, "castle 6") == ("castle", 6, None)
    assert R.parse_action(g.state, RED, "space 6") == ("castle", 6, None)


def test_every_legal_action_formats_to_text_that_reads_back() -> None:
    # Over whole random games of every size (the contract only samples large sets).
    checked = 0
    for players in (2, 3, 4, 5):
        for state, seat, _ in contract.playout(R, {"players": players}, 99 + players):
            for a in R.legal_actions(state, seat):
                assert R.parse_action(state, seat, R.format_action(state, a)) == a
                checked += 1
    assert checked > 1000


def test_the_documented_shorthands_read_as_documented() -> None:
    # docs/lancaster-notation.md: the less obvious "also read" forms.
    g = Game(2, cards=(1, 4), laws=NEUTRAL)
    g.setup(1, 1)
    assert R.parse_action(g.state, RED, "ally 2 E") == ("place", True, 2, ("county", "E"), 0)
    g.edit_colour(RED, court=(1,), reserve=(1, 1, 2, 2, 3, 4))
    assert R.parse_action(g.state, RED, "to A with 1 squire") == (
        "place",
        False,
        1,
        ("county", "A"),
        1,
    )  # the only strength at court may be left out
    g = Game(4, cards=(1, 4), laws=NEUTRAL)
    g.setup(1, 1, 1, 1)
    g.play(RED, "knight 1 to conflict 1")
    assert R.parse_action(g.state, RED, "favor upgrade 2 court") == ("favor", 2, (2, "court"))
    assert R.parse_action(g.state, RED, "upgrade knight 1 at conflict 1") == (
        "favor",
        2,
        (1, "conflict 1"),
    )
    assert R.parse_action(g.state, RED, "noble Gloucester") == ("favor", 5, "D")
    g = Game(3, cards=(1, 4), laws=NEUTRAL)
    g.setup(1, 1, 1)
    g.edit_colour(RED, court=(2, 4), reserve=(1, 1, 1, 2, 3))
    g.rerun()
    g.moves((RED, "knight 4 to G"), (BLUE, "knight 2 to H"), (YELLOW, "knight 1 to I"))
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    assert R.parse_action(g.state, RED, "reward 3") == ("reward", 3)
    g.play(RED, "reward 3")
    assert R.parse_action(g.state, BLUE, "reward conflict 4") == ("reward", 4)
    g.play(BLUE, "reward to conflict 4")
    assert R.parse_action(g.state, YELLOW, "noble blue") == ("noble", BLUE)


def test_documented_law_castle_and_ransom_shorthands() -> None:
    g = Game(3, cards=(1, 4), laws=("no_strength_2_upgrades", *NEUTRAL[:2]))
    g.setup(5, 1, 1)
    g.edit_colour(RED, court=(1, 1), reserve=(1, 2, 2, 3, 4))
    g.rerun()
    g.moves((RED, "knight 1 to A"))
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    assert g.head == ("law_choice", "no_strength_2_upgrades", RED)
    assert R.parse_action(g.state, RED, "upgrade 1 A") == ("upgrade", (1, "county A"))
    assert R.parse_action(g.state, RED, "skip") == ("upgrade", None)
    g.play(RED, "skip")
    g.play(RED, "noble")
    g.auto_until("castle_paid")
    assert R.parse_action(g.state, RED, "castle 5 knight 1 court") == (
        "castle",
        5,
        (1, "court"),
    )


WORDS = [
    # Henry V
    "lord",
    "chancellor",
    "constable",
    "treasury",
    "bishop",
    "bishops",
    "shield",
    "archer",
    "tudor",
    "tower",
    "seals",
    "dispose",
    "gold",
    "knights",
    "and",
    "knight",
    "ally",
    "to",
    "with",
    "squires",
    "squire",
    "castle",
    "conflict",
    "favor",
    "vote",
    "yes",
    "no",
    "reward",
    "both",
    "noble",
    "nobleman",
    "upgrade",
    "extension",
    "ransom",
    "none",
    "done",
    "swap",
    "buy",
    "markers",
    "power",
    "trade",
    "start",
    "player",
    "court",
    "county",
    "in",
    "at",
    "a",
    "i",
    "b",
    "d",
    "h",
    "red",
    "blue",
    "yellow",
    "me",
    "+",
    ",",
    ".",
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "12",
    "99",
    "999",
    "four",
]


@settings(max_examples=400, deadline=None)
@given(
    players=st.sampled_from([2, 3, 5]),
    henry_v=st.booleans(),
    steps=st.integers(0, 120),
    text=st.lists(st.sampled_from(WORDS), max_size=8).map(" ".join),
)
def test_any_text_gives_a_legal_action_or_an_error_for_the_player(
    players: int, henry_v: bool, steps: int, text: str
) -> None:
    config: dict[str, object] = {"players": players}
    if henry_v:
        config["expansions"] = {"kings_court": True, "resentment": True, "laws_of_the_king": True}
    state = R.initial_state(config, steps)
    for _ in range(steps):
        if not R.to_act(state):
            break
        seat = min(R.to_act(state))
        state = R.apply(state, seat, R.auto_action(state, seat)).state
    for seat in range(players):
        try:
            action = R.parse_action(state, seat, text)
        except (ActionSyntaxError, IllegalActionError, NotYourTurnError) as err:
            assert str(err)
            continue
        assert action in R.legal_actions(state, seat)


def test_illegal_choices_say_why_and_list_what_is_possible() -> None:
    g = Game(3, cards=(1, 4), laws=("buy_voting_markers", *NEUTRAL[:2]))
    g.setup(1, 1, 1)
    g.play(RED, "knight 1 to A")
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    with pytest.raises(IllegalActionError, match="only 2 gold"):
        g.play(RED, "buy 3 voting markers")
    for seat in (RED, BLUE, YELLOW):
        g.play(seat, "none")
    with pytest.raises(IllegalActionError, match="Taking both costs 3 gold; you have 2"):
        g.play(RED, "both")
    g.edit_colour(RED, nobles=("A",))
    with pytest.raises(IllegalActionError, match="each nobleman once"):
        g.play(RED, "noble")
    with pytest.raises(IllegalActionError, match="You can: reward"):
        g.apply(RED, ("reward", 5))
