"""The moves a turn mail offers one click away (``pbem.play.quick_moves``): chosen as a
player would rank them, each legal, never more than ``MAX_QUICK``."""

from __future__ import annotations

import engine
from pbem.play.quick_moves import MAX_QUICK, quick_moves

LANCELOT = engine.REGISTRY["lancelot"]
LANCASTER = engine.REGISTRY["lancaster"]


def _play(rules: object, state: object, *moves: tuple[int, str]) -> object:
    for seat, text in moves:
        action = rules.parse_action(state, seat, text)  # type: ignore[attr-defined]
        state = rules.apply(state, seat, action).state  # type: ignore[attr-defined]
    return state


def test_lancelot_offers_the_capturing_square_first() -> None:
    # Two players, D4-K11. Red holds E5 and E6; Blue sits at E7: Red on E8 makes column E
    # +2 for Red (3 against 1) and captures Blue's knight (rules/lancelot.md, Capture).
    state = LANCELOT.initial_state({"players": 2}, 1)
    state = _play(LANCELOT, state, (0, "E5"), (1, "E7"), (0, "E6"), (1, "J10"))
    offered = quick_moves(LANCELOT, state, 0)
    assert offered[0].text == "E8" and "wins 1 knight" in offered[0].label
    legal = {LANCELOT.format_action(state, a) for a in LANCELOT.legal_actions(state, 0)}
    assert {m.text for m in offered} <= legal and len(offered) == MAX_QUICK


def test_lancelot_prefers_threats_then_the_centre_when_nothing_is_won() -> None:
    opening = quick_moves(LANCELOT, LANCELOT.initial_state({"players": 2}, 1), 0)
    # The empty board: nothing won or threatened; the four centre squares come first.
    assert {m.text for m in opening[:4]} == {"G7", "G8", "H7", "H8"}
    state = _play(LANCELOT, LANCELOT.initial_state({"players": 2}, 1), (0, "E5"), (1, "E9"))
    offered = quick_moves(LANCELOT, state, 0)
    assert not any("wins" in m.label for m in offered)
    # A second Red knight on column E or row 5 leaves Blue's E9 under threat on column E
    # only when it is on column E: E-squares threaten, and say so.
    assert "threatens" in offered[0].label and offered[0].text.startswith("E")


def test_lancaster_offers_one_move_of_each_kind_first() -> None:
    state = LANCASTER.initial_state({"players": 3}, 1)
    # Past the castle extensions, to the first knight's placement (deadline defaults).
    while not any(m.text.startswith("knight") for m in quick_moves(LANCASTER, state, 0)):
        seat = min(LANCASTER.to_act(state))
        state = LANCASTER.apply(state, seat, LANCASTER.auto_action(state, seat)).state
    offered = quick_moves(LANCASTER, state, 0)
    assert len(offered) == MAX_QUICK
    texts = [m.text for m in offered]
    assert len(set(texts)) == len(texts)
    legal = {LANCASTER.format_action(state, a) for a in LANCASTER.legal_actions(state, 0)}
    assert set(texts) <= legal
    # A castle space, a conflict and a county are each one click away, in the first three.
    kinds = {m.text.split(" to ")[1].split()[0] for m in offered[:3]}
    assert len(kinds) == 3 and {"castle", "conflict"} < kinds, kinds  # and a county's letter
    assert all(m.label.startswith("Place knight") and ": " in m.label for m in offered)


def test_a_seat_not_to_act_is_offered_nothing() -> None:
    state = LANCELOT.initial_state({"players": 2}, 1)
    assert quick_moves(LANCELOT, state, 1) == []


def test_the_typed_examples_show_every_kind_of_move_plain_placements_first() -> None:
    from pbem.mail.outbound.compose import MAX_EXAMPLES, can_type

    config = {"players": 4, "variants": {"diagonals": True, "excalibur": True}}
    state = LANCELOT.initial_state(config, 5)
    state = LANCELOT.apply(state, 3, LANCELOT.auto_action(state, 3)).state  # Excalibur set
    examples = can_type(LANCELOT, state, 0).split(" … ")[0].split(", ")
    assert len(examples) == MAX_EXAMPLES
    # 144 placements and 20,000 forces of the King: both kinds shown, the placements first
    # (before, all twelve were forces of the King: they sort first).
    kings = [e for e in examples if e.startswith("king ")]
    assert 0 < len(kings) < MAX_EXAMPLES and not examples[0].startswith("king ")
    legal = {LANCELOT.format_action(state, a) for a in LANCELOT.legal_actions(state, 0)}
    assert set(examples) <= legal
