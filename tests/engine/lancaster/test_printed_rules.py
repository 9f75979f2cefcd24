"""The rules that change in 2.0.0, Lancaster as printed (shared ``rules/README.md``):
decision 6 (Surrey: the start player named with immediate effect, besides the reward),
12 (two players: an ally in Surrey, final scoring), 17 (an extension tile over a knight),
19 (a Tudor knight needs a knight of its player). Each is checked against 1.0.0 too, which
games created with it keep."""

from __future__ import annotations

import pytest

from engine.core import contract
from engine.core.protocol import IllegalActionError
from engine.lancaster.state import State
from tests.engine.lancaster.helpers import BLUE, LATEST, RED, YELLOW, Game, R

NEUTRAL = ("strength_1_power", "noblemen_knights", "extensions_power")
HENRY_V = {"expansions": {"kings_court": True, "resentment": True, "laws_of_the_king": True}}


def _rewards(
    *moves: tuple[int, str],
    latest: bool = True,
    players: int = 3,
    stop: bool = False,
    **red: object,
) -> Game:
    """The given placements, the rest in castles, new laws rejected: the county rewards
    are next (``red``: Red's resources, arranged first; ``stop``: the game stops after the
    counties, before the castles pay out)."""
    g = Game(players, cards=(5, 6), laws=NEUTRAL, rules=LATEST if latest else R)
    g.setup(*([1] * players))
    if red:
        g.edit_colour(RED, **red)
        g.rerun()
    if stop:
        g.stop_after("county", 8)
    g.moves(*moves)
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    return g


def _company_order(g: Game) -> list[str]:
    return [line.split()[0] for line in g.log if line.endswith("for company at table.")]


# -- decision 6: Surrey ------------------------------------------------------------------------


def test_surreys_holder_names_the_start_player_with_immediate_effect() -> None:
    g = _rewards((RED, "knight 1 to I"))
    assert g.state.start_player == RED
    g.play(RED, "take the gold and squires, Blue starts")
    assert g.said(
        "Red names Blue the start player, with immediate effect: this round's castles and "
        "ransoms go in the new player order."
    )
    # this round's castles are already scored from Blue, clockwise
    assert _company_order(g)[:3] == ["Blue", "Yellow", "Red"]
    assert g.state.start_player == BLUE and g.state.next_start_player is None


def test_surrey_gives_its_reward_besides_naming_the_start_player() -> None:
    g = _rewards((RED, "knight 1 to I"), stop=True)
    gold, squires = g.c(RED).gold, g.c(RED).squires
    g.play(RED, "reward, Yellow starts")
    assert (g.c(RED).gold, g.c(RED).squires) == (gold + 2, squires + 2)
    assert g.state.start_player == YELLOW


def test_surrey_both_pays_3_gold_for_the_nobleman_and_the_reward_and_names_the_start() -> None:
    g = _rewards((RED, "knight 1 to I"), gold=3, stop=True)
    g.play(RED, "both, I start")
    assert g.c(RED).nobles == ("I",)
    assert (g.c(RED).gold, g.c(RED).squires) == (3 - 3 + 2, 2 + 2)
    assert g.state.start_player == RED


def test_a_1_0_0_game_names_the_start_player_only_for_the_next_round() -> None:
    g = _rewards((RED, "knight 1 to I"), latest=False)
    g.play(RED, "noble, Blue starts")
    assert g.said("Red names Blue the next start player.")
    assert _company_order(g)[:3] == ["Red", "Blue", "Yellow"]  # this round: as it was
    assert g.said(
        "Round 2 begins; Blue is the start player.",
    )


# -- decision 17: an extension tile over a knight ----------------------------------------------


def test_an_extension_over_a_knight_sends_it_back_to_court_unscored() -> None:
    g = _rewards(
        (RED, "knight 2 to castle 3"),
        (BLUE, "knight 1 to castle 2"),
        (YELLOW, "knight 1 to castle 2"),
        (RED, "knight 1 to A"),
    )
    # Red holds Northumberland; its knight 2 stands on castle space 3
    assert g.head == ("county", 0)
    assert "reward extension 3" in g.legal(RED)  # the space with the knight may be covered
    court = g.c(RED).court  # knight 1 is in Northumberland, knight 2 on space 3
    g.play(RED, "reward extension 3")
    assert g.said(
        "Red's knight 2 on castle space 3 goes back to court without scoring: the extension "
        "tile covers its space."
    )
    # the castle phase scores the extension, not the knight that stood there
    assert g.said("Red takes 2 voting markers (castle space 3, extension).")
    assert not g.said("Red takes 2 voting markers (castle space 3, knight).")
    assert 3 in g.c(RED).extensions and g.c(RED).castle[2] is None
    assert not g.said("Red's castle knights return to court")  # none was left there
    assert 2 in g.c(RED).court and 2 not in court  # it went from space 3 to court


def test_a_1_0_0_extension_never_covers_a_knight() -> None:
    g = _rewards(
        (RED, "knight 2 to castle 3"),
        (BLUE, "knight 1 to castle 2"),
        (YELLOW, "knight 1 to castle 2"),
        (RED, "knight 4 to G"),
        latest=False,
        court=(1, 2, 4),
        reserve=(1, 1, 2, 3),
    )
    assert "reward extension 3" not in g.legal(RED)
    with pytest.raises(IllegalActionError):
        g.play(RED, "reward extension 3")


# -- decision 12: two players ------------------------------------------------------------------


def test_an_ally_in_surrey_lets_its_player_name_the_start_player() -> None:
    g = _rewards((RED, "ally knight 2 to I"), players=2)
    assert g.head == ("county", 8) and g.to_act == {RED}
    g.play(RED, "Surrey: nobleman, Blue starts")
    assert g.said("Yellow (Red's ally) removes a nobleman of Surrey (I) from the game.")
    assert g.state.start_player == BLUE


def test_a_1_0_0_ally_in_surrey_names_no_one() -> None:
    g = _rewards((RED, "ally knight 2 to I"), players=2, latest=False, stop=True)
    # Surrey has no reward in 1.0.0 and an ally names no one: removing the nobleman is the
    # only choice, taken automatically
    assert g.said("Yellow (Red's ally) removes a nobleman I from the game.")
    assert not g.said("names")


def _finished_two_player_game(latest: bool, seed: int) -> State:
    rules = LATEST if latest else R
    state = contract.random_game(rules, {"players": 2}, seed, max_steps=5000)
    assert state.finished
    return state


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_two_players_final_scoring_awards_only_the_8_for_first_place(seed: int) -> None:
    outcome = LATEST.outcome(_finished_two_player_game(True, seed))
    assert outcome is not None
    for term in ("knighthood", "castle"):
        points = sorted(b[term] for b in outcome.breakdown)
        assert points in ([0, 8], [4, 4]), (term, points)  # 4 each: still tied, they share 8


def test_a_1_0_0_two_player_game_still_awards_4_for_second_place() -> None:
    seconds = []
    for seed in (1, 2, 3, 4):
        outcome = R.outcome(_finished_two_player_game(False, seed))
        assert outcome is not None
        seconds += [sorted(b[t] for b in outcome.breakdown) for t in ("knighthood", "castle")]
    assert [4, 8] in seconds


# -- decision 19: privileges need a knight -----------------------------------------------------


def _court(latest: bool) -> Game:
    g = Game(3, cards=(5, 6), laws=NEUTRAL, config=HENRY_V, rules=LATEST if latest else R)
    g.setup(1, 1, 1)
    g.edit_colour(RED, privileges=("tudor",))
    g.edit(privilege_supply=(2, 3, 2))
    return g


def test_a_tudor_knight_supports_a_lord_only_beside_a_knight_of_the_same_player() -> None:
    g = _court(latest=True)
    assert "lord to chancellor with tudor" not in g.legal(RED)
    with pytest.raises(IllegalActionError, match="only together with one of your own knights"):
        g.play(RED, "lord to chancellor with tudor")
    g.play(RED, "lord to chancellor with knight 1 and tudor")
    assert g.state.applicants[0] is not None and g.state.applicants[0].tudor


def test_a_1_0_0_tudor_knight_may_support_a_lord_alone() -> None:
    g = _court(latest=False)
    g.play(RED, "lord to chancellor with tudor")
    assert g.state.applicants[0] is not None and g.state.applicants[0].tudor


def _ally_castle_game(latest: bool = True) -> Game:
    g = Game(2, cards=(5, 6), laws=NEUTRAL, rules=LATEST if latest else R)
    g.setup(1, 1)
    g.edit_colour(YELLOW, court=(1, 2), reserve=(1, 1, 2, 3, 4))  # Red's ally: two knights
    g.rerun()
    return g


def test_the_allys_castle_has_two_spaces_a_new_knight_and_an_upgrade_without_squires() -> None:
    g = _ally_castle_game()
    assert g.view(RED)["allies"][0]["castle"] == [
        {"space": 1, "reward": "1 new knight (strength 1)", "cost_squires": 0,
         "extension": False, "knight": None},
        {"space": 2, "reward": "upgrade a knight", "cost_squires": 0,
         "extension": False, "knight": None},
    ]  # fmt: skip
    with pytest.raises(IllegalActionError, match="The ally's castle has 2 spaces"):
        g.play(RED, "ally knight 2 to castle 3")
    g.moves((RED, "ally knight 2 to castle 2"), (BLUE, "knight 1 to castle 2"))
    g.play(RED, "ally knight 1 to castle 1")
    g.place_rest_in_castles()
    squires = g.c(RED).squires
    g.reject_all_new_laws()
    assert g.head == ("ally_castle", RED, 2)
    assert g.said("Yellow (Red's ally) takes a new knight (strength 1) to court.")
    g.play(RED, "upgrade knight 2 in castle 2")
    assert g.said("Yellow (Red's ally) upgrades the knight 2 in castle 2 to strength 3.")
    assert g.c(RED).squires >= squires  # Red paid nothing for its ally's castle
    assert 3 not in g.c(YELLOW).reserve and 4 in g.c(YELLOW).reserve


def test_the_mail_board_shows_the_allys_own_castle_and_its_knights() -> None:
    # Before the fix the text board (turn mails, 'show') listed an ally's knights but not its
    # small castle: a player by mail never read what the ally's two spaces give.
    g = _ally_castle_game()
    g.play(RED, "ally knight 2 to castle 2")
    lines = g.rules.render_text(g.view(BLUE)).splitlines()
    yellow = lines.index("  Yellow (Red's ally): court 1; board 2 castle 2; reserve 1 1 2 3 4")
    assert lines[yellow + 1] == (
        "    its castle, no squires to pay: 1 (1 new knight (strength 1)): -; "
        "2 (upgrade a knight): knight 2"
    )
    assert lines[yellow + 2].startswith("  Green (Blue's ally): court 2;")
    assert lines[yellow + 3].startswith("    its castle, no squires to pay: 1 (1 new knight")


def test_a_1_0_0_mail_board_lists_allies_as_it_did() -> None:
    g = _ally_castle_game(latest=False)
    g.play(RED, "ally knight 2 to castle 2")
    lines = g.rules.render_text(g.view(BLUE)).splitlines()
    yellow = lines.index("  Yellow (Red's ally): court 1; board 2 castle 2; reserve 1 1 2 3 4")
    assert lines[yellow + 1].startswith("  Green (Blue's ally): court 2;")


def test_a_1_0_0_ally_uses_a_castle_of_six_spaces() -> None:
    g = _ally_castle_game(latest=False)
    assert len(g.view(RED)["allies"][0]["castle"]) == 6
    g.play(RED, "ally knight 2 to castle 3")
    assert g.said("Yellow (Red's ally) places knight 2 on castle space 3.")


def test_an_ally_in_dorset_passes_to_france() -> None:
    g = _rewards((RED, "ally knight 2 to H"), players=2)
    assert g.head == ("county", 7) and g.to_act == {RED}
    g.play(RED, "reward to conflict 5")
    assert g.said("Yellow (Red's ally)'s knight 2 moves from Dorset (H) to conflict 5.")
    assert [(sp.colour, sp.knights) for sp in g.card(5).spaces] == [(YELLOW, (2,))]


def test_a_1_0_0_ally_in_dorset_cannot_pass_to_france() -> None:
    g = _rewards((RED, "ally knight 2 to H"), players=2, latest=False)
    assert g.head == ("county", 7)
    assert all("conflict" not in move for move in g.legal(RED))


def test_the_log_names_counties_by_their_printed_names() -> None:
    g = _rewards((RED, "ally knight 2 to I"), players=2)
    assert g.said("Yellow (Red's ally) places knight 2 in Surrey (I).")
