"""Lancaster on the seat page: the seat's legal actions as grouped choices (place knight →
where → squires), and the names people read for players and places.

The page shows every legal action (never a cut-off list): the canonical texts are split into
the steps a player decides one after another, and each step is a group the page folds.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: Where a canonical action text moves on to its next decision.
_STEP = re.compile(r" (?=to |with |upgrade )")

#: Headings of the groups, by the action's first word (Lancaster notation,
#: docs/lancaster-notation.md).
HEADINGS = {
    "knight": "Place a knight",
    "ally": "Place your ally's knight",
    "extension": "Castle extension",
    "castle": "Castle space reward",
    "favor": "King's favor",
    "vote": "Vote on the law",
    "buy": "Buy",
    "ransom": "Ransom",
    "reward": "County reward",
    "both": "Nobleman and reward",
    "noble": "Nobleman",
    "upgrade": "Upgrade a knight",
    "trade": "Trade",
    "swap": "Swap",
}


@dataclass
class Choice:
    label: str  # what the button says
    action: str  # the canonical text it plays


@dataclass
class Group:
    label: str
    choices: list[Choice] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)

    def size(self) -> int:
        return len(self.choices) + sum(g.size() for g in self.groups)


def _label(segment: str) -> str:
    knight = re.fullmatch(r"knight (\d+)", segment)
    if knight:
        return f"Knight of strength {knight.group(1)}"
    return segment[:1].upper() + segment[1:]


def _insert(node: Group, steps: list[str], action: str) -> None:
    if len(steps) == 1:
        node.choices.append(Choice(_label(steps[0]), action))
        return
    label = _label(steps[0])
    child = next((g for g in node.groups if g.label == label), None)
    if child is None:
        child = Group(label)
        node.groups.append(child)
    _insert(child, steps[1:], action)


def _fold(node: Group) -> None:
    """A step with a single choice is not a step: lift it into its parent."""
    for g in node.groups:
        _fold(g)
    kept = []
    for g in node.groups:
        if g.size() == 1 and g.choices:
            only = g.choices[0]
            node.choices.append(
                Choice(f"{g.label} {only.label[:1].lower()}{only.label[1:]}", only.action)
            )
        elif not g.choices and len(g.groups) == 1:
            inner = g.groups[0]
            kept.append(
                Group(
                    f"{g.label} {inner.label[:1].lower()}{inner.label[1:]}",
                    inner.choices,
                    inner.groups,
                )
            )
        else:
            kept.append(g)
    node.groups = kept


def group_actions(legal: Sequence[str]) -> list[Group]:
    """The legal actions by kind (first word), then by each decision step.

    A knight "to A" beside "to A with 1 squire" becomes the choice "no squires" inside the
    group "to A", so every action is one button at the end of its path.
    """
    by_kind: dict[str, Group] = {}
    for text in legal:
        kind = text.split()[0]
        group = by_kind.setdefault(kind, Group(HEADINGS.get(kind, _label(kind))))
        steps = _STEP.split(text)
        if len(steps) == 1:
            # One word of kind and the rest as the choice ("vote yes 1" → "yes 1").
            rest = text[len(kind) :].strip()
            group.choices.append(Choice(_label(rest) if rest else _label(text), text))
        else:
            _insert(group, steps, text)
    groups = list(by_kind.values())
    for g in groups:
        _mark_bare(g)
        _fold(g)
    return groups


def _mark_bare(node: Group) -> None:
    """A choice whose label is also a group's label (a knight "to A" without squires) moves
    into that group as "no squires"."""
    for g in node.groups:
        _mark_bare(g)
    for choice in list(node.choices):
        same = next((g for g in node.groups if g.label == choice.label), None)
        if same is not None:
            node.choices.remove(choice)
            same.choices.insert(0, Choice("No squires", choice.action))


def player_names(view: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    """Each seat as people read it: "Ann (Red)"."""
    return [f"{names[p['seat']]} ({p['colour']})" for p in view["players"]]
