"""The seat's choices on its page: the engine's ``Choices`` (``Rules.choices``: labelled
groups of options, each with the canonical text its button submits) with the players named
as every page names them ("Bob (Blue) starts"). The pages read no notation: what a button
says and plays is the engine's."""

from __future__ import annotations

from dataclasses import replace

from engine.core.protocol import ChoiceGroup, ChoiceOption, Choices
from pbem.core.naming import Names


def _named_option(option: ChoiceOption, names: Names) -> ChoiceOption:
    return replace(option, label=names.text(option.label))


def _named_group(group: ChoiceGroup, names: Names) -> ChoiceGroup:
    return replace(
        group,
        label=names.text(group.label),
        options=tuple(_named_option(o, names) for o in group.options),
        groups=tuple(_named_group(g, names) for g in group.groups),
    )


def for_people(choices: Choices, names: Names) -> list[ChoiceGroup]:
    """The groups of ``choices`` with each seat's colour named as people read it."""
    return [_named_group(g, names) for g in choices.groups]
