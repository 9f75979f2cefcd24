"""Where on the drawn Lancaster board the seat can act: the engine's structured choices
(``Rules.choices``) sorted by the spot of the board they are made at.

A spot is named as the engine names its places ("county C", "castle 2", "conflict 7",
"office chamberlain", "treasury", "tower", "court"), with what the engine leaves placeless
given the spot a player would reach for: a vote goes to the law being voted ("vote"), a choice
a law in force asks for to that law ("law <key>"), a king's favor to its tile ("favor 3"), a
ransom to France ("france"), a reward's nobleman or "take nothing" to the county of the
decision (the enclosing step's place). A castle space of the seat's ally is "ally castle N".
What has no spot at all ("Done: use no more castle spaces") is listed beside the board as
"other". Nothing here reads notation: only the options' actions (typed tuples) and places.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.core.protocol import ChoiceGroup, ChoiceOption

#: The key of the options that belong to no spot of the board.
OTHER = "other"


@dataclass
class Step:
    """Options of one spot that share the steps above them ("Place a knight · Knight 2")."""

    label: str
    options: list[ChoiceOption] = field(default_factory=list)


@dataclass
class Target:
    """One spot of the board the seat may click, and the sub-choices it opens."""

    key: str  # "county C"
    anchor: str  # the id of its panel ("at-county-c")
    steps: list[Step] = field(default_factory=list)

    @property
    def size(self) -> int:
        return sum(len(s.options) for s in self.steps)

    def add(self, step: str, option: ChoiceOption) -> None:
        for s in self.steps:
            if s.label == step:
                s.options.append(option)
                return
        self.steps.append(Step(step, [option]))


def anchor(key: str) -> str:
    """The id of a spot's panel: the place in lower case, letters and digits only."""
    return "at-" + re.sub(r"[^a-z0-9]+", "-", key.lower()).strip("-")


def _walk(
    groups: tuple[ChoiceGroup, ...], path: tuple[ChoiceGroup, ...] = ()
) -> Iterator[tuple[tuple[ChoiceGroup, ...], ChoiceOption]]:
    for g in groups:
        for o in g.options:
            yield (*path, g), o
        yield from _walk(g.groups, (*path, g))


def _ally(action: tuple[Any, ...]) -> bool:
    """Whether a placement is of the seat's ally's knight (``Place`` and the privilege and
    lord actions carry the flag)."""
    verb = action[0]
    if verb in ("place", "lord") and len(action) > 1:
        return bool(action[1])
    if verb == "privilege" and len(action) > 2:
        return bool(action[2])
    return False


def spot(path: tuple[ChoiceGroup, ...], option: ChoiceOption, frame: str | None) -> str:
    """The spot of the board an option is made at (see the module's docstring)."""
    action = option.action
    verb = action[0]
    if verb == "vote":
        return "vote"
    if verb == "favor" and len(action) > 1:
        return f"favor {action[1]}"
    if verb == "ransom":
        return "france"
    place = option.place
    if place is None:
        # the nearest enclosing step's place: a county's reward decision is made at it
        place = next((g.place for g in reversed(path) if g.place), None)
    if place is None and frame is not None and frame.startswith("law "):
        return frame
    if place is None:
        return OTHER
    if place.startswith("castle ") and _ally(action):
        return f"ally {place}"
    return place


def targets(
    groups: tuple[ChoiceGroup, ...] | list[ChoiceGroup], law_frame: str | None
) -> dict[str, Target]:
    """The seat's options by spot, in the engine's order; ``law_frame`` is the spot of a law
    in force asking for a choice now ("law <key>"), else None."""
    found: dict[str, Target] = {}
    for path, option in _walk(tuple(groups)):
        key = spot(path, option, law_frame)
        target = found.setdefault(key, Target(key, anchor(key)))
        # the steps above the option that are not the spot itself ("Place a knight ·
        # Knight 2"), so a spot's panel groups its options by knight
        step = " · ".join(g.label for g in path if not g.place) or "Choose"
        target.add(step, option)
    return found


def law_frame(
    view: Mapping[str, Any], groups: tuple[ChoiceGroup, ...] | list[ChoiceGroup]
) -> str | None:
    """The law in force a "Law: <title>" step names, as its spot ("law <key>")."""
    titles = {law["title"]: law["key"] for law in view["laws"]["current"]}
    for g in groups:
        if g.label.startswith("Law: "):
            key = titles.get(g.label.removeprefix("Law: "))
            if key is not None:
                return f"law {key}"
    return None
