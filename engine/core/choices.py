"""Building ``Choices`` (``protocol.py``) from each option and the steps that lead to it.

A game words each legal action as an option (a whole sentence, read alone) and the path of
steps a player decides on the way to it ("Place a knight" → "Knight 2" → "York (C)"); ``tree``
makes the nested groups: options with the same step share its group, in the order first met,
and a step that leaves a single option is no step (the option stands in its place).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from engine.core.protocol import ChoiceGroup, ChoiceOption

#: One step of a decision: the group's label and where on the board it is made (or None).
Step = tuple[str, str | None]


@dataclass
class _Node:
    label: str
    place: str | None
    options: list[ChoiceOption] = field(default_factory=list)
    children: dict[str, _Node] = field(default_factory=dict)

    def size(self) -> int:
        return len(self.options) + sum(c.size() for c in self.children.values())


def _freeze(node: _Node, lift: bool) -> ChoiceGroup:
    options = list(node.options)
    groups: list[ChoiceGroup] = []
    for child in node.children.values():
        if lift and child.size() == 1:
            # a step with one option is no step: the option's sentence says it all
            options.extend(_only(child))
            continue
        frozen = _freeze(child, lift)
        if lift and not frozen.options and len(frozen.groups) == 1:
            # a step with a single way on goes straight on to it, under its own label
            inner = frozen.groups[0]
            frozen = ChoiceGroup(frozen.label, inner.options, inner.groups, frozen.place)
        groups.append(frozen)
    return ChoiceGroup(node.label, tuple(options), tuple(groups), node.place)


def _only(node: _Node) -> list[ChoiceOption]:
    if node.options:
        return list(node.options)
    return [o for c in node.children.values() for o in _only(c)]


def tree(
    entries: Iterable[tuple[Sequence[Step], ChoiceOption]], *, lift: bool = True
) -> tuple[ChoiceGroup, ...]:
    """The groups of ``entries`` (each an option and its path of steps, outermost first; every
    path has at least one step, the top group). Top groups are kept even with one option: they
    say what the decision is about. ``lift=False`` keeps every step, even one with a single
    way on (a page that asks for each step in its own list needs each step's place)."""
    top: dict[str, _Node] = {}
    for path, option in entries:
        if not path:
            raise ValueError(f"option {option.label!r} has no group")
        label, place = path[0]
        node = top.setdefault(label, _Node(label, place))
        for label, place in path[1:]:
            node = node.children.setdefault(label, _Node(label, place))
        node.options.append(option)
    return tuple(_freeze(node, lift) for node in top.values())
