"""Henry V, At the King's Court (rules text 001; decision 13): lords, offices, the treasury,
seals, bishops and the privileges (shield, archer, Tudor knight)."""

from __future__ import annotations

import pytest

from engine.core.protocol import ConfigError, IllegalActionError
from engine.lancaster.henry_v.court import seals_scoring
from engine.lancaster.state import Applicant
from tests.engine.lancaster.helpers import BLUE, RED, YELLOW, Game, R

COURT = {"expansions": {"kings_court": True}}
NEUTRAL_LAWS = ("strength_1_power", "noblemen_knights", "extensions_power")


def game(players: int = 3, **kw: object) -> Game:
    g = Game(players, cards=(1, 4), laws=NEUTRAL_LAWS, config=COURT, **kw)  # type: ignore[arg-type]
    g.setup(*([1] * players))
    return g


def place_all(g: Game) -> None:
    """Every knight still at court to its colour's first free castle space, in turn; a lord
    left at court enters the treasury and claims its gold."""
    while g.state.agenda and g.head[0] == "place":
        seat = g.head[1]
        colours = [c for c in g.state.colours_of(seat) if g.c(c).court]
        if colours:
            col = g.c(colours[0])
            free = next(
                n for n in range(1, 7) if n not in col.extensions and col.castle[n - 1] is None
            )
            who = "ally knight" if g.state.is_ally(colours[0]) else "knight"
            g.play(seat, f"{who} {col.court[0]} to castle {free}")
        else:
            lord = next(c for c in g.state.colours_of(seat) if g.c(c).lord == "court")
            g.play(seat, f"{'ally ' if g.state.is_ally(lord) else ''}lord to treasury gold")


def to_phase_3(g: Game) -> None:
    place_all(g)
    g.reject_all_new_laws()


@pytest.mark.parametrize(("players", "bishops"), [(2, 5), (3, 5), (4, 7), (5, 9)])
def test_a_lord_at_court_2_voting_markers_bishops_by_player_count_and_24_seals(
    players: int, bishops: int
) -> None:
    s = R.initial_state({"players": players, **COURT}, 1)
    assert all(c.lord == "court" for c in s.colours)
    assert all(s.colours[p].voting_markers == 2 for p in range(players))
    assert s.bishop_supply == bishops and s.seal_supply == 24
    assert s.privilege_supply == (2, 3, 3) and s.treasury == (0, 0, 0)


def test_a_lord_applying_for_an_office_pays_its_tribute_into_the_treasury() -> None:
    g = game()
    g.play(RED, "lord to chancellor")
    assert g.c(RED).voting_markers == 1 and g.state.treasury == (1, 0, 0)
    g.play(BLUE, "lord to constable")
    g.play(YELLOW, "lord to chamberlain")
    assert g.state.treasury == (1, 1, 1)
    assert (g.c(BLUE).squires, g.c(YELLOW).gold) == (1, 1)
    assert g.said("Red's lord applies for the Lord High Chancellor, paying 1 voting marker")


def test_a_lord_is_supported_by_knights_and_bishops_placed_with_it_in_the_same_turn() -> None:
    g = game()
    g.edit_colour(RED, bishops=2)
    g.play(RED, "lord to constable with knight 2 and a bishop")
    assert g.state.applicants[1] == Applicant(RED, (2,), 1)
    assert g.state.applicants[1].stack == 4  # lord 1 + knight 2 + bishop 1
    assert g.c(RED).court == (1,) and g.c(RED).lord == "office"
    g.play(BLUE, "knight 1 to A")
    g.play(YELLOW, "knight 1 to C")
    with pytest.raises(IllegalActionError, match="not at court"):
        g.play(RED, "lord to chancellor")  # no boosting or moving the lord later


def test_a_strictly_higher_stack_expels_an_applicant_and_the_tribute_stays() -> None:
    g = game()
    g.play(RED, "lord to chancellor with knight 1")  # stack 2
    with pytest.raises(IllegalActionError, match="must be higher; it is 2"):
        g.play(BLUE, "lord to chancellor with knight 1")
    g.play(BLUE, "lord to chancellor with knight 2")  # stack 3
    assert g.said("Red's lord is expelled back to court with its supporters.")
    assert g.c(RED).lord == "court" and g.c(RED).court == (1, 2)
    assert g.state.treasury == (2, 0, 0)  # both tributes stay in the treasury
    assert g.state.applicants[0] == Applicant(BLUE, (2,), 0)


def test_a_lord_in_the_treasury_claims_all_of_one_kind_and_is_never_expelled() -> None:
    g = game()
    g.play(RED, "lord to chancellor")
    g.play(BLUE, "lord to constable")
    g.play(YELLOW, "lord to treasury voting markers")
    assert g.c(YELLOW).voting_markers == 3 and g.state.treasury == (0, 1, 0)
    assert g.c(YELLOW).lord == "treasury"
    assert not any(a.startswith("lord") for a in g.legal(RED))  # Red's lord is placed


def test_the_lord_must_be_placed_and_the_phase_waits_for_it() -> None:
    g = game()
    g.play(RED, "knight 1 to castle 2")
    g.play(BLUE, "knight 1 to castle 2")
    g.play(YELLOW, "knight 1 to castle 2")
    g.play(RED, "knight 2 to castle 3")
    g.play(BLUE, "knight 2 to castle 3")
    g.play(YELLOW, "knight 2 to castle 3")
    assert g.head[:2] == ("place", RED)  # no knight left, but the lord
    assert g.legal(RED)[:3] == ["lord to chamberlain", "lord to chancellor", "lord to constable"]


def _offices_filled() -> Game:
    g = game()
    g.play(RED, "lord to chancellor")
    g.play(BLUE, "lord to constable")
    to_phase_3(g)
    return g


def test_offices_are_filled_first_in_phase_3_with_their_grants() -> None:
    g = game()
    g.play(RED, "lord to chancellor")
    g.play(BLUE, "lord to constable")
    place_all(g)
    g.stop_after("offices")  # look at the state just after the offices are filled
    g.reject_all_new_laws()
    appointed = g.log.index("Red is appointed: Lord High Chancellor; receives 2 regal seals.")
    assert g.said("Red receives the shield for the next round.")
    assert g.said("Blue is appointed: Lord High Constable; receives 1 regal seal.")
    assert g.said("Blue receives the archer for the next round.")
    assert g.state.office_holders[:2] == (RED, BLUE) and g.state.office_holders[2] is None
    assert (g.c(RED).seals, g.c(BLUE).seals, g.state.seal_supply) == (2, 1, 21)
    assert g.c(RED).granted == ("shield",) and g.c(RED).privileges == ()
    assert all(c.lord == "court" for c in g.state.colours)
    assert appointed > g.log.index("Unused voting markers go back to the supply.")


def _round_2(g: Game) -> None:
    assert g.state.round == 2 and g.head[0] == "place"  # phase 3 ran on by itself


def test_an_office_with_no_applicant_stays_with_its_holder_who_is_granted_again() -> None:
    g = _offices_filled()
    _round_2(g)
    assert g.c(RED).privileges == ("shield",)  # usable in this round only
    place_all(g)
    g.reject_all_new_laws()
    assert g.said("Red keeps the office, granted again: Lord High Chancellor; receives 2")
    assert g.c(RED).seals == 4


def test_privileges_are_usable_only_in_the_next_round_and_return_unused() -> None:
    g = _offices_filled()
    _round_2(g)
    place_all(g)
    g.reject_all_new_laws()
    g.next_round()
    assert g.said("Red returns the shield unused.")
    assert g.c(RED).privileges == ("shield",)  # granted again in round 2, for round 3


def test_the_shield_keeps_its_knight_from_being_expelled_and_goes_back_after_the_county() -> None:
    g = _offices_filled()
    _round_2(g)
    start = g.head[1]
    while g.head[1] != RED:
        g.play(g.head[1], f"knight 1 to castle {g.c(g.head[1]).extensions[0] + 1}")
    g.play(RED, "knight 1 to A with shield")
    assert g.county("A") is not None and g.county("A").shield
    nxt = g.head[1]
    with pytest.raises(IllegalActionError, match="with the shield: it cannot be expelled"):
        g.play(nxt, "knight 2 to A with 2 squires")
    assert start is not None
    place_all(g)
    g.reject_all_new_laws()
    g.auto_until("castle")
    assert g.said("The shield goes back to the regal board.")
    assert g.state.privilege_supply[0] == 1  # one given to Red again for round 3


def test_the_archer_takes_the_space_below_its_knight_with_strength_2_and_its_own_rank() -> None:
    g = _offices_filled()
    _round_2(g)
    while g.head[1] != BLUE:
        g.play(g.head[1], f"knight 1 to castle {g.c(g.head[1]).extensions[0] + 1}")
    card = g.state.upper[0]
    assert card is not None
    g.play(BLUE, f"knight 1 to conflict {card.card} with archer")
    spaces = g.card(card.card).spaces
    assert [(sp.colour, sp.knights, sp.archer, sp.strength) for sp in spaces] == [
        (BLUE, (1,), False, 1),
        (BLUE, (), True, 2),
    ]
    assert g.head == ("favor", BLUE)  # the knight takes a king's favor; the archer none
    g.play(BLUE, "favor gold")
    assert g.head[0] == "place"


def test_the_tudor_knight_counts_toward_a_county_minimum_and_goes_back_with_its_knight() -> None:
    g = game()
    g.edit_colour(RED, privileges=("tudor",))
    g.edit_colour(BLUE, court=(1, 3), reserve=(1, 1, 2, 2, 4))
    g.edit(privilege_supply=(2, 3, 2))  # the Tudor knight Red holds came from the board
    with pytest.raises(IllegalActionError, match="needs a knight of strength 3"):
        g.play(RED, "knight 1 to D")
    g.play(RED, "knight 1 to D with tudor")  # 1 + 2 meets Gloucester's minimum 3
    occ = g.county("D")
    assert occ is not None and occ.tudor and occ.total == 3
    with pytest.raises(IllegalActionError, match="must exceed it; you offer 3"):
        g.play(BLUE, "knight 3 to D")
    g.play(BLUE, "knight 3 to D with 1 squire")  # expels Red's knight: its Tudor goes back
    assert g.said("The Tudor knight goes back to the regal board.")
    assert g.state.privilege_supply[2] == 3 and g.c(RED).court == (1, 2)


def test_a_bishop_may_be_taken_instead_of_an_upgrade_at_most_3() -> None:
    g = game()
    g.play(RED, "knight 2 to B")
    to_phase_3(g)
    assert "reward bishop" in g.legal(RED)
    g.play(RED, "reward bishop")
    assert g.c(RED).bishops == 1 and g.state.bishop_supply == 4
    g2 = game()
    g2.edit_colour(RED, bishops=3)
    g2.play(RED, "knight 2 to B")
    to_phase_3(g2)
    assert "reward bishop" not in g2.legal(RED)  # at most 3 per player
    g3 = game()
    g3.edit(bishop_supply=0)
    g3.play(RED, "knight 2 to B")
    to_phase_3(g3)
    assert "reward bishop" not in g3.legal(RED)  # none when the supply is empty


def test_seals_score_lord_plus_bishops_times_seals() -> None:
    g = game()
    g.edit_colour(BLUE, bishops=2, seals=8)  # 001's example: (1 + 2) x 8 = 24
    g.edit_colour(RED, seals=3)
    assert seals_scoring(g.state)["seals"] == [3, 24, 0]


def test_round_5_grants_no_shield_and_no_archer_and_its_tudor_counts_in_knighthood() -> None:
    g = game()
    g.edit(round=5)
    g.play(RED, "lord to chancellor")
    g.play(BLUE, "lord to constable")
    g.play(YELLOW, "lord to chamberlain")
    to_phase_3(g)
    g.auto_until()
    assert not g.said("receives the shield") and not g.said("receives the archer")
    assert g.said("Yellow receives the Tudor knight for the next round.")
    outcome = R.outcome(g.state)
    assert outcome is not None
    strength = [b["knighthood_strength"] for b in outcome.breakdown]
    assert strength[YELLOW] == strength[RED] + 2


def test_two_players_place_the_allys_lord_too_without_tribute_and_without_expelling() -> None:
    g = game(2)
    g.play(RED, "ally lord to chancellor")
    assert g.state.treasury == (0, 0, 0) and g.c(RED).voting_markers == 2  # no tribute
    g.play(BLUE, "lord to constable")
    legal = g.legal(RED)
    assert not any(a.startswith("lord to chancellor") for a in legal)  # own cannot expel ally
    g.play(RED, "lord to treasury squires")
    assert g.c(RED).squires == 3
    g.play(BLUE, "ally lord to treasury gold")
    assert g.said("returns its gold (0) to the supply")
    to_phase_3(g)
    assert g.said("Yellow (Red's ally) is appointed: Lord High Chancellor.")  # no seals
    assert g.c(2).seals == 0 and g.c(2).privileges == ("shield",)  # usable in round 2
    assert "ally knight 2 to A with shield" in g.legal(RED)
    assert not any(a.startswith("knight") and "shield" in a for a in g.legal(RED))


def test_an_allys_upgrade_may_remove_a_bishop_from_the_game() -> None:
    g = game(2)
    g.play(RED, "ally knight 2 to B")
    to_phase_3(g)
    g.play(RED, "reward bishop")
    assert g.said("removes a bishop from the game") and g.state.bishop_supply == 4
    assert g.c(2).bishops == 0


def test_the_court_is_read_and_written_in_the_notation() -> None:
    g = game()
    g.edit_colour(RED, bishops=2, privileges=("tudor",))
    for text, action in [
        ("lord to chancellor with knight 2 and bishop", ("lord", False, "chancellor", (2,), 1)),
        ("Lord to the Lord High Chancellor", ("lord", False, "chancellor", (), 0)),
        ("lord to treasury gold", ("lord", False, "treasury", "gold")),
        ("lord enters the treasury, voting markers", ("lord", False, "treasury", "voting_markers")),
        (
            "lord to constable with knights 1 and 2, 2 bishops and tudor",
            ("lord", False, "constable", (1, 2), 2, True),
        ),
        ("knight 2 to B with tudor", ("privilege", "tudor", False, 2, ("county", "B"), 0)),
        ("knight 1 to conflict 1 with tudor", ("privilege", "tudor", False, 1, ("conflict", 1), 0)),
    ]:
        assert R.parse_action(g.state, RED, text) == action, text
        assert R.format_action(g.state, action) in g.legal(RED)
    assert R.format_action(g.state, ("lord", False, "chancellor", (2,), 1)) == (
        "lord to chancellor with knight 2 and 1 bishop"
    )


def test_the_archer_ranks_on_its_own_moves_down_with_the_card_and_stays_its_players() -> None:
    g = game()
    g.edit_colour(BLUE, privileges=("archer",))
    g.edit(privilege_supply=(2, 2, 3))
    g.play(RED, "knight 1 to conflict 4")  # conflict 4: France 5, points 6/3/1
    g.play(RED, "favor gold")
    g.play(BLUE, "knight 1 to conflict 4 with archer")
    g.play(BLUE, "favor squires")
    assert [(sp.colour, sp.archer) for sp in g.card(4).spaces] == [
        (RED, False),
        (BLUE, False),
        (BLUE, True),
    ]
    place_all(g)
    g.reject_all_new_laws()
    # England 1 + 1 + 2 = 4 < 5: France wins; the archer (2) ranks first, Blue's knight and
    # Red's knight (1 each, the lower space first) after it: 3 and 1 to Blue, 0 to Red.
    assert g.said("  1st: Blue, 3 power points.")
    assert g.said("  2nd: Blue, 1 power point.")
    assert g.c(BLUE).power == 4 and g.c(RED).power == 0
    card = g.state.lower[1]
    assert card is not None and card.card == 4
    assert any(sp.archer and sp.colour == BLUE for sp in card.spaces)  # Blue's next round too
    assert g.c(BLUE).privileges == ()


def test_the_tudor_knight_joins_its_knight_at_a_conflict_and_goes_back_when_england_wins() -> None:
    g = game()
    g.edit_colour(RED, privileges=("tudor",))
    g.edit(privilege_supply=(2, 3, 2))
    g.play(RED, "knight 1 to conflict 1 with tudor")  # conflict 1: France 3
    assert g.card(1).spaces[0].tudor == 1 and g.card(1).spaces[0].strength == 3
    g.play(RED, "favor gold")
    place_all(g)
    g.reject_all_new_laws()
    assert g.said("Conflict 1 (upper row): England 3 against France 3: England wins.")
    assert g.said("The Tudor knight goes back to the regal board.")
    assert g.state.privilege_supply[2] == 3


def test_from_dorset_the_tudor_knight_joins_its_knight_in_the_conflict() -> None:
    g = game()
    g.edit_colour(RED, privileges=("tudor",))
    g.edit(privilege_supply=(2, 3, 2))
    g.play(RED, "knight 1 to H with tudor")  # Dorset's minimum 2: 1 + the Tudor knight
    to_phase_3(g)
    g.play(RED, "reward to conflict 4")
    assert g.said("The Tudor knight goes with it.")
    found = g.state.find_card(4) or (None, None, None)
    card = found[2]
    assert card is not None and card.spaces[-1].tudor == 1


def test_the_courts_numbers_are_data_overridable_in_the_config() -> None:
    config = R.validate_config(
        {
            "players": 3,
            **COURT,
            "data": {
                "kings_court": {
                    "seals": 30,
                    "bishops": {"3": 6},
                    "privileges": {"shields": 1},
                    "offices": {"constable": {"seals": 2}},
                    "start_voting_markers": 3,
                }
            },
        }
    )
    s = R.initial_state(config, 1)
    assert (s.seal_supply, s.bishop_supply, s.privilege_supply) == (30, 6, (1, 3, 3))
    assert s.colours[RED].voting_markers == 3 and s.data.offices[1].seals == 2
    with pytest.raises(ConfigError, match=r'"kings_court\.offices\.constable\.seals"'):
        R.validate_config(
            {"players": 3, "data": {"kings_court": {"offices": {"constable": {"seals": -1}}}}}
        )


def test_the_deadline_default_upgrades_a_knight_before_taking_a_bishop() -> None:
    g = game()
    g.play(RED, "knight 2 to B")
    to_phase_3(g)
    assert "reward bishop" in g.legal(RED)
    auto = R.auto_action(g.state, RED)
    assert auto in R.legal_actions(g.state, RED) and "bishop" not in auto


def test_the_text_rendering_counts_in_the_singular_for_one() -> None:
    g = game()
    g.edit(treasury=(1, 1, 2))
    lines = R.render_text(g.view(None)).splitlines()
    for line in (
        "  Lord High Chancellor (tribute 1 voting marker; 2 seals + shield): "
        "held by nobody; no applicant",
        "  Lord High Constable (tribute 1 squire; 1 seal + archer): held by nobody; no applicant",
        "  Lord Great Chamberlain (tribute 1 gold; tudor): held by nobody; no applicant",
        "  Treasury: 1 voting marker, 1 squire, 2 gold; lords inside: none",
        "  Supply: 5 bishops, 24 regal seals",
    ):
        assert line in lines, line


def test_an_office_grants_no_seal_once_the_supply_is_empty() -> None:
    """An office grants its seals while the supply lasts (the random playouts reach an empty
    supply only in their ``-m slow`` batch, so a plain run checks it here)."""
    g = game()
    g.edit(seal_supply=0)
    g.play(RED, "lord to chancellor")
    g.play(BLUE, "lord to constable")
    place_all(g)
    g.stop_after("offices")
    g.reject_all_new_laws()
    assert g.said("Red is appointed: Lord High Chancellor.")
    assert (g.c(RED).seals, g.c(BLUE).seals, g.state.seal_supply) == (0, 0, 0)
