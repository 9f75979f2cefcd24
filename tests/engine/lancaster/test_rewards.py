"""Phase 3: county rewards (decision: rules/README.md, Lancaster 6) and castle rewards
(decision 7); upgrades and new knights (decision 9)."""

from __future__ import annotations

import pytest

from engine.core.protocol import ActionSyntaxError, IllegalActionError
from tests.engine.lancaster.helpers import BLUE, RED, YELLOW, Game

NEUTRAL = ("strength_1_power", "noblemen_knights", "extensions_power")


def to_rewards(
    *moves: tuple[int, str],
    start: int = RED,
    before: object = None,
    stop: tuple[object, ...] | None = ("county", 8),
) -> Game:
    """3 players, the given placements, the rest in castles, new laws rejected; by default
    the game stops after the county rewards, so castles don't blur what they gave."""
    g = Game(3, start=start, cards=(1, 4), laws=NEUTRAL)
    g.setup(1, 1, 1)
    if callable(before):
        before(g)
        g.rerun()
    if stop is not None:
        g.stop_after(*stop)
    g.moves(*moves)
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    return g


def test_counties_are_rewarded_from_A_to_I() -> None:
    g = to_rewards((RED, "knight 1 to I"), (BLUE, "knight 1 to C"), (YELLOW, "knight 1 to A"))
    assert g.head == ("county", 0) and g.to_act == {YELLOW}
    g.play(YELLOW, "reward")
    assert g.head == ("county", 2) and g.to_act == {BLUE}
    g.play(BLUE, "reward")
    assert g.head == ("county", 8) and g.to_act == {RED}


def test_the_occupant_takes_the_nobleman_or_the_reward() -> None:
    g = to_rewards((RED, "knight 1 to A"))
    assert g.legal(RED) == ["noble", "reward"]  # 2 gold: not enough for both
    g.play(RED, "nobleman")
    assert g.c(RED).nobles == ("A",) and g.state.nobles[0] == 1
    assert (g.c(RED).gold, g.c(RED).squires) == (2, 2)  # no reward with the nobleman
    g2 = to_rewards((RED, "knight 1 to A"))
    g2.play(RED, "reward")
    assert g2.c(RED).nobles == () and (g2.c(RED).gold, g2.c(RED).squires) == (3, 3)


def test_paying_3_gold_takes_both_the_nobleman_and_the_reward() -> None:
    g = to_rewards((RED, "knight 1 to A"), before=lambda g: g.edit_colour(RED, gold=3))
    assert g.legal(RED) == ["both", "noble", "reward"]
    g.play(RED, "both")
    assert g.c(RED).nobles == ("A",)
    assert (g.c(RED).gold, g.c(RED).squires) == (3 - 3 + 1, 3)
    assert g.said("Red pays 3 gold for both the nobleman and the reward of A.")


def test_no_nobleman_of_a_letter_you_hold_or_from_an_empty_stack() -> None:
    g = to_rewards((RED, "knight 1 to A"), before=lambda g: g.edit_colour(RED, nobles=("A",)))
    # Only the reward is left: taken automatically, and the log says so.
    assert g.said("Red has one choice, taken automatically: reward.")
    assert g.c(RED).nobles == ("A",)
    g2 = to_rewards((RED, "knight 1 to C"), before=lambda g: g.edit(nobles=(2, 2, 0) + (2,) * 6))
    assert g2.said("Red has one choice, taken automatically: reward.")


def test_both_is_offered_only_when_the_nobleman_can_be_taken() -> None:
    # decision (engine/lancaster/README.md, 4): paying for "both" without a nobleman to take
    # would buy nothing more than the reward.
    def rich_with_a(g: Game) -> None:
        g.edit_colour(RED, gold=9, nobles=("A",))

    g = to_rewards((RED, "knight 1 to A"), before=rich_with_a)
    assert g.said("Red has one choice, taken automatically: reward.")
    assert g.c(RED).gold == 9 + 1


def test_the_knight_returns_to_court_and_its_squires_to_the_supply() -> None:
    g = to_rewards((RED, "knight 1 to A with 2 squires"))
    g.play(RED, "reward")
    assert g.county("A") is None
    assert g.said("Red's knight 1 returns to court from A.")
    assert g.c(RED).squires == 1  # 0 left after placing, +1 from the reward; none come back
    assert g.c(RED).court == (1,)


def test_a_county_upgrade_swaps_a_knight_for_a_reserve_knight_one_stronger() -> None:
    g = to_rewards((RED, "knight 2 to B"))
    assert "reward upgrade knight 2 in county B" in g.legal(RED)
    g.play(RED, "reward upgrade knight 2 in county B")
    assert g.c(RED).reserve == (1, 1, 2, 2, 4)
    assert g.said("Red's knight 3 returns to court from B.")


def test_gloucester_upgrades_a_knight_and_gives_2_voting_markers() -> None:
    def with_three(g: Game) -> None:
        g.edit_colour(RED, court=(1, 3), reserve=(1, 1, 2, 2, 4))

    g = to_rewards((RED, "knight 3 to D"), before=with_three)
    g.play(RED, "reward knight 1 in castle 2")
    assert g.c(RED).voting_markers == 2
    assert g.c(RED).castle[1] == 2 and g.c(RED).court == (3,)


def test_an_upgrade_is_impossible_for_strength_4_or_without_the_next_knight_in_reserve() -> None:
    def only_fours(g: Game) -> None:
        g.edit_colour(RED, court=(2, 4), reserve=(1, 1, 1, 2, 3))

    g = to_rewards((RED, "knight 2 to B"), before=only_fours)
    # The strength-2 knight: a 3 is in reserve. The 4 at court cannot be upgraded.
    assert [t for t in g.legal(RED) if "upgrade" in t] == ["reward upgrade knight 2 in county B"]

    def no_threes(g: Game) -> None:
        g.edit_colour(RED, court=(2, 3), reserve=(1, 1, 1, 2, 4))

    g2 = to_rewards((RED, "knight 3 to D"), before=no_threes)
    assert "reward upgrade knight 3 in county D" in g2.legal(RED)
    # Red's knight 2 stands on castle space 2; a 4 is in the reserve, but no 3: exactly one
    # strength higher, so it cannot be upgraded.
    assert g2.c(RED).castle[1] == 2
    assert [t for t in g2.legal(RED) if "upgrade" in t] == ["reward upgrade knight 3 in county D"]


def test_an_upgrade_at_a_conflict_swaps_one_knight_of_a_stacked_space() -> None:
    def one_one(g: Game) -> None:
        g.edit_colour(RED, court=(1, 1, 2), reserve=(1, 2, 3, 4))

    g = to_rewards(
        (RED, "knight 1 to conflict 4"),
        (RED, "favor gold"),
        (BLUE, "knight 1 to A"),
        (YELLOW, "knight 1 to C"),
        (RED, "knight 1 to conflict 4"),
        (RED, "favor squires"),
        (BLUE, "knight 2 to E"),
        (YELLOW, "knight 2 to I"),
        (RED, "knight 2 to B"),
        before=one_one,
    )
    g.auto_until("county")
    while g.head != ("county", 1):
        g.play(next(iter(g.to_act)), "reward")
    g.play(RED, "reward upgrade knight 1 at conflict 4")
    assert g.spaces(4) == [(RED, (1, 2))]
    assert g.c(RED).reserve == (1, 1, 3, 4)


def test_a_new_knight_comes_from_the_reserve_and_is_lost_without_a_strength_1_there() -> None:
    g = to_rewards((RED, "knight 1 to C"))
    g.play(RED, "reward")
    assert g.c(RED).reserve == (1, 2, 3, 4)

    def no_ones(g: Game) -> None:
        g.edit_colour(RED, court=(1, 1, 1, 2), reserve=(2, 3, 4))

    g2 = to_rewards((RED, "knight 1 to C"), before=no_ones)
    g2.play(RED, "reward")
    assert g2.said("Red has no strength-1 knight in the reserve; the new knight is lost.")


def test_dorset_moves_its_knight_to_a_conflict_without_a_favor() -> None:
    g = to_rewards((RED, "knight 2 to H with 1 squire"))
    assert "reward to conflict 1" in g.legal(RED) and "reward to conflict 4" in g.legal(RED)
    g.play(RED, "reward conflict 4")
    assert g.spaces(4) == [(RED, (2,))]
    assert g.county("H") is None and 2 not in g.c(RED).court
    assert g.state.favors == g.state.favors_in_game  # no favor tile taken
    assert g.c(RED).squires == 1


def test_dorset_stacks_the_knight_on_its_own_knight_at_the_conflict() -> None:
    g = to_rewards(
        (RED, "knight 1 to conflict 4"),
        (RED, "favor gold"),
        (BLUE, "knight 1 to conflict 4"),
        (BLUE, "favor squires"),
        (YELLOW, "knight 1 to A"),
        (RED, "knight 2 to H"),
    )
    g.auto_until("county")
    while g.head != ("county", 7):
        g.play(next(iter(g.to_act)), "reward")
    g.play(RED, "reward conflict 4")
    assert g.spaces(4) == [(RED, (1, 2)), (BLUE, (1,))]  # on Red's own space, not a new one


def test_surreys_holder_names_the_next_start_player_and_takes_the_nobleman() -> None:
    # decision: rules/README.md, Lancaster 6 — Surrey offers the nobleman only (its printed
    # reward is unknown), and its holder names the next start player whatever they take.
    g = to_rewards((RED, "knight 1 to I"), stop=None)
    assert g.legal(RED) == [
        "noble start player Red",
        "noble start player Blue",
        "noble start player Yellow",
    ]
    g.play(RED, "noble start player Yellow")
    assert g.c(RED).nobles == ("I",) and g.said("Red names Yellow the next start player.")
    g.auto_until("place")
    assert g.state.round == 2 and g.state.start_player == YELLOW
    assert g.head[:2] == ("place", YELLOW)


def test_surreys_holder_without_a_nobleman_to_take_still_names_the_start_player() -> None:
    g = to_rewards((RED, "knight 1 to I"), stop=None)
    g.edit_colour(RED, nobles=("I",))
    assert g.legal(RED) == [
        "start player Red",
        "start player Blue",
        "start player Yellow",
    ]
    with pytest.raises(ActionSyntaxError, match="name the next start player"):
        g.play(RED, "nothing")
    g.play(RED, "Blue starts")
    assert g.said("Red takes nothing at I") and g.said("Red names Blue the next start player.")


def test_an_unoccupied_surrey_keeps_the_start_player() -> None:
    g = to_rewards(start=BLUE, stop=None)
    g.auto_until("place")
    assert g.state.round == 2 and g.state.start_player == BLUE


def test_county_g_places_an_extension_on_a_free_uncovered_space() -> None:
    def four(g: Game) -> None:
        g.edit_colour(RED, court=(2, 4), reserve=(1, 1, 1, 2, 3))

    g = to_rewards((RED, "knight 4 to G"), before=four)
    # Space 1 is covered, Red's knight 2 stands on space 2: neither can take the tile.
    assert [t for t in g.legal(RED) if t.startswith("reward")] == [
        "reward extension 3",
        "reward extension 4",
        "reward extension 5",
        "reward extension 6",
    ]
    g.play(RED, "reward extension 6")
    assert g.c(RED).extensions == (1, 6)


def test_castle_free_spaces_pay_out_then_company_at_table_then_knights_return() -> None:
    g = to_rewards(before=lambda g: g.edit_colour(RED, nobles=("B", "C")), stop=("castle", RED))
    g.auto_until()
    # Red: extension on 1 (2 squires), knights on 2 (2 gold) and 3 (2 voting markers);
    # company at table: 1 + 2 noblemen.
    assert (g.c(RED).squires, g.c(RED).gold, g.c(RED).voting_markers) == (4, 4, 5)
    assert g.c(RED).castle == (None,) * 6 and g.c(RED).court == (1, 2)
    assert g.said("Red takes 3 voting markers for company at table.")


def test_castles_are_rewarded_in_player_order_from_the_start_player() -> None:
    g = to_rewards(start=YELLOW, stop=("castle", BLUE))
    g.auto_until()
    lines = [line for line in g.log if "company at table" in line]
    assert [line.split()[0] for line in lines] == ["Yellow", "Red", "Blue"]


def test_a_paid_castle_space_is_optional_and_free_rewards_can_pay_for_it() -> None:
    def squire_poor(g: Game) -> None:
        g.edit_colour(RED, squires=1)

    g = Game(3, start=RED, cards=(1, 4), laws=NEUTRAL)
    g.setup(1, 1, 1)
    squire_poor(g)
    g.moves((RED, "knight 1 to castle 6"), (BLUE, "knight 1 to A"), (YELLOW, "knight 1 to C"))
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    g.auto_until("castle_paid")
    # Space 1 (an extension: 2 squires) paid out first, so Red can afford space 6 (3 squires).
    assert g.head == ("castle_paid", RED, (6,))
    assert g.legal(RED) == ["castle 6", "done"]
    g.play(RED, "castle 6")
    assert g.c(RED).squires == 0 and 1 in g.c(RED).court


def test_a_paid_castle_space_is_asked_even_when_you_cannot_pay() -> None:
    # Squires are hidden: being skipped would tell everyone you have fewer than 3.
    g = Game(3, start=RED, cards=(1, 4), laws=NEUTRAL)
    g.setup(2, 2, 2)
    g.edit_colour(RED, squires=0)
    g.moves((RED, "knight 1 to castle 6"))
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    g.auto_until("castle_paid")
    assert g.legal(RED) == ["done"] and g.to_act == {RED}
    with pytest.raises(IllegalActionError):
        g.play(RED, "castle 6")


def test_company_at_table_is_given_in_every_round_but_the_last() -> None:
    for rnd, given in ((4, True), (5, False)):
        g = Game(3, start=RED, cards=(1, 4), laws=NEUTRAL)
        g.setup(1, 1, 1)
        g.edit(round=rnd)
        g.place_rest_in_castles()
        g.reject_all_new_laws()
        g.auto_until("conflict")
        assert g.said("Red takes 1 voting marker for company at table.") is given


def test_castle_space_5_upgrade_and_no_company_at_table_in_round_5() -> None:
    g = Game(3, start=RED, cards=(1, 4), laws=NEUTRAL)
    g.setup(5, 1, 1)
    g.edit(round=5)
    g.place_rest_in_castles()
    g.reject_all_new_laws()
    g.auto_until("castle_paid")
    g.play(RED, "castle 5 upgrade knight 1 in castle 1")
    assert g.c(RED).squires == 2 + 2 - 2  # space 1 (a knight) gave 2, space 5 cost 2
    g.auto_until()
    assert not g.said("company at table")
    assert g.state.finished
