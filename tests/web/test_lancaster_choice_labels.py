"""The Lancaster seat page's buttons say what they play: a decline is a button "No upgrade"
beside the upgrades (a group "No" with a button "Upgrade" that played ``no upgrade`` was a
player's complaint), a law's choices are whole sentences, and counties are named as printed."""

from __future__ import annotations

from typing import Any

from web.board_lancaster import Group, group_actions

VIEW: dict[str, Any] = {
    "phase": "placement",
    "counties": [
        {"letter": "A", "name": "Northumberland"},
        {"letter": "B", "name": "Stafford"},
        {"letter": "I", "name": "Surrey"},
    ],
}


def _buttons(groups: list[Group], path: tuple[str, ...] = ()) -> dict[str, tuple[str, ...]]:
    """Each action and the labels a player reads on the way to its button."""
    out: dict[str, tuple[str, ...]] = {}
    for g in groups:
        for c in g.choices:
            out[c.action] = (*path, g.label, c.label)
        out.update(_buttons(g.groups, (*path, g.label)))
    return out


def test_a_decline_says_no_beside_what_it_declines() -> None:
    buttons = _buttons(group_actions(["no upgrade", "upgrade knight 2 at court"], VIEW))
    assert buttons["no upgrade"] == ("Upgrade a knight", "No upgrade")
    assert not any(label == "No" for path in buttons.values() for label in path)


def test_a_decline_beside_several_kinds_of_choice_is_its_own_button() -> None:
    buttons = _buttons(group_actions(["no batches", "buy 1 batch", "trade 1"], VIEW))
    assert buttons["no batches"][-1] == "No batches"


def test_a_law_choice_is_one_group_of_whole_sentences_naming_the_counties() -> None:
    legal = ["pay for all", "recall B", "recall A and B"]
    buttons = _buttons(group_actions(legal, {**VIEW, "phase": "laws"}))
    assert buttons == {
        "pay for all": ("Your choice", "Pay for all"),
        "recall B": ("Your choice", "Recall Stafford (B)"),
        "recall A and B": ("Your choice", "Recall Northumberland (A) and Stafford (B)"),
    }


def test_placements_and_favors_name_the_counties_as_printed() -> None:
    legal = ["knight 1 to I", "knight 2 to A", "knight 2 to A with 1 squire"]
    buttons = _buttons(group_actions(legal, VIEW))
    assert buttons["knight 1 to I"][-1] == "Knight of strength 1 to Surrey (I)"
    assert (
        buttons["knight 2 to A with 1 squire"][-2] == "Knight of strength 2 to Northumberland (A)"
    )
    favor = _buttons(group_actions(["favor nobleman B", "favor gold"], VIEW))
    assert favor["favor nobleman B"][-1] == "Nobleman of Stafford (B)"


def test_rules_1_0_0_placeholder_names_add_nothing_to_the_letter() -> None:
    old = {"phase": "placement", "counties": [{"letter": "A", "name": "County A"}]}
    assert _buttons(group_actions(["knight 1 to A"], old))["knight 1 to A"][-1] == (
        "Knight of strength 1 to A"
    )
