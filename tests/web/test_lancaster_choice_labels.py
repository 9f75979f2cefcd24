"""The Lancaster seat page's buttons say what they play, as the engine words them
(``Rules.choices``): a decline is a button "No upgrade" first beside the upgrades (a group
"No" with a button "Upgrade" that played ``no upgrade`` was a player's complaint), a law's
choices are whole sentences in one group, counties are named as printed, and the page
renders exactly the engine's options, submitting each one's canonical text."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask import Flask

from engine import REGISTRY
from engine.core.contract import playout
from engine.core.protocol import ChoiceGroup, Choices
from pbem.app.service import GameService
from tests.web.helpers import sqlite_app

ALL_OF_HENRY_V = {
    "players": 3,
    "expansions": {"kings_court": True, "resentment": True, "laws_of_the_king": True},
    "new_laws": "replace",
}
#: The New Laws without Henry V: its random games reach the upgrade and upkeep choices.
NEW_LAWS = {"players": 4, "new_laws": "replace"}


def _find(
    config: dict[str, Any], wanted: Callable[[Any, int], bool], version: str | None = None
) -> tuple[Any, int, Choices]:
    """The first position of seeded random games where ``wanted(state, seat)``."""
    rules = REGISTRY.release("lancaster", version) if version else REGISTRY["lancaster"]
    normalised = rules.validate_config(config)
    for seed in range(1000, 1012):
        for state, seat, _ in playout(rules, normalised, seed):
            if wanted(state, seat):
                return state, seat, rules.choices(state, seat)
    raise AssertionError("no such position in the games played")


def _law_choice(verb: str) -> Callable[[Any, int], bool]:
    rules = REGISTRY["lancaster"]

    def wanted(state: Any, seat: int) -> bool:
        if state.agenda[0][0] != "law_choice":
            return False
        legal = rules.legal_actions(state, seat)
        return len(legal) > 1 and all(a[0] == verb for a in legal)

    return wanted


def _labels(group: ChoiceGroup) -> Iterator[str]:
    yield group.label
    yield from (o.label for o in group.options)
    for g in group.groups:
        yield from _labels(g)


def test_a_decline_says_no_first_beside_what_it_declines() -> None:
    _, _, choices = _find(NEW_LAWS, _law_choice("upgrade"))
    [law] = choices.groups
    assert law.label.startswith("Law: ")
    assert law.options[0].label == "No upgrade" and law.options[0].text == "no upgrade"
    assert all(o.label.startswith("Upgrade knight ") for o in law.options[1:])
    assert not {"No", "Upgrade"} & set(_labels(law))


def test_declining_the_batches_is_a_button_no_batches_first() -> None:
    _, _, choices = _find(NEW_LAWS, _law_choice("batches"))
    [law] = choices.groups
    assert law.options[0].label == "No batches" and law.options[0].text == "no batches"
    assert [o.label for o in law.options[1:]] == [
        f"Buy {n} batch{'es' if n > 1 else ''}" for n in range(1, len(law.options))
    ]


#: The counties as printed (rules 2.x), by letter.
PRINTED = dict(
    zip(
        "ABCDEFGHI",
        [
            "Northumberland",
            "Stafford",
            "York",
            "Gloucester",
            "Bedford",
            "Suffolk",
            "Somerset",
            "Dorset",
            "Surrey",
        ],
        strict=True,
    )
)


def test_the_favor_of_a_nobleman_names_the_county_as_printed() -> None:
    rules = REGISTRY["lancaster"]

    def wanted(state: Any, seat: int) -> bool:
        return any(
            rules.format_action(state, a).startswith("favor nobleman ")
            for a in rules.legal_actions(state, seat)
        )

    _, _, choices = _find({"players": 3}, wanted)
    favors = [o for o in choices.all_options() if o.text.startswith("favor nobleman ")]
    assert favors
    for option in favors:
        letter = option.text.removeprefix("favor nobleman ")
        assert option.label == f"Favor: the nobleman of {PRINTED[letter]} ({letter})"
        assert option.place == f"county {letter}"


def test_a_law_choice_is_one_group_of_whole_sentences_naming_the_counties() -> None:
    _, _, choices = _find(NEW_LAWS, _law_choice("recall"))
    [law] = choices.groups
    for option in law.options:
        if option.text == "pay for all":
            assert option.label == "Pay for all your counties"
        else:
            letters = option.text.removeprefix("recall ").split(" and ")
            assert option.label.startswith("Recall your knight"), option.label
            assert all(re.search(rf"\w+ \({x}\)", option.label) for x in letters), option


def test_placements_name_the_counties_as_printed_and_what_they_give() -> None:
    _, _, choices = _find({"players": 3}, lambda s, seat: s.agenda[0][0] == "place")
    by_text = {o.text: o for o in choices.all_options()}
    york = by_text["knight 1 to C"]
    assert york.label == "Place knight 1 in York (C): 1 new knight (strength 1) + 2 voting markers"
    assert york.place == "county C"
    assert by_text["knight 1 to C with 1 squire"].label.startswith(
        "Place knight 1 in York (C) with 1 squire: "
    )
    [knights] = choices.groups
    assert knights.label == "Place a knight"
    assert [g.label for g in knights.groups][:1] == ["Knight 1"]


def test_rules_1_0_0_placeholder_names_add_nothing_to_the_letter() -> None:
    _, _, choices = _find({"players": 3}, lambda s, seat: s.agenda[0][0] == "place", "1.0.0")
    labels = [o.label for o in choices.all_options() if o.text == "knight 1 to A"]
    assert labels == ["Place knight 1 in county A: " + labels[0].split(": ", 1)[1]]
    assert "County A" not in labels[0]


def test_a_vote_says_yes_or_no_and_the_markers_added() -> None:
    _, _, choices = _find({"players": 3}, lambda s, seat: s.agenda[0][0] == "vote")
    [vote] = choices.groups
    assert vote.label.startswith("Vote on the law: ")
    assert {"Vote yes", "Vote no", "Vote yes, adding 1 voting marker"} <= {
        o.label for o in vote.options
    }


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    with sqlite_app(tmp_path_factory.mktemp("labels")) as app:
        yield app


def test_the_page_shows_the_engines_options_and_plays_their_canonical_text(app: Flask) -> None:
    svc: GameService = app.extensions["pbem"]
    created = svc.create_game("lancaster", ALL_OF_HENRY_V, [{"name": n} for n in "ABC"])
    client = app.test_client()
    client.get(f"/games/{created.id}?token={created.seats[0].token}")
    page = client.get(f"/games/{created.id}").text
    loaded = svc.load(created.id)
    options = list(loaded.choices(0).all_options())
    # Every option once on the drawn board (in the panel of the spot it is made at, or among
    # those made at no spot) and once in the list of choices below it.
    board, listed = page.split('aria-labelledby="move-h"', 1)
    for part in (board, listed):
        buttons = re.findall(
            r'<button[^>]*name="choice" value="([^"]*)"[^>]*>([^<]*)</button>', part
        )
        assert sorted((html.unescape(v), html.unescape(label)) for v, label in buttons) == sorted(
            (o.text, o.label) for o in options
        )
    assert [o.text for o in options] and set(loaded.legal(0)) == {o.text for o in options}
