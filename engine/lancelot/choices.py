"""The seat's decision as the pages and mails show it (``Rules.choices``): a square to place a
knight on (each option's ``place`` is the square, so a drawn board makes it clickable), the
opening square of Excalibur, the force of the King in two steps (Excalibur's new square,
then the knight's), or a pass."""

from __future__ import annotations

from collections.abc import Sequence

from engine.core.choices import Step, tree
from engine.core.notation import format_square
from engine.core.protocol import Action, ChoiceOption, Choices
from engine.lancelot import notation

#: The top groups, by the kind of action.
EXCALIBUR = "Set Excalibur on the board"
PLACE = "Place a knight"
KING = "Use the force of the King (once per game)"
PASS = "Pass"


def choices(legal: Sequence[Action]) -> Choices:
    entries: list[tuple[Sequence[Step], ChoiceOption]] = []
    # the force of the King offers up to ~38,000 pairs of squares: each square's name and
    # each of Excalibur's steps are made once
    names: dict[tuple[int, int], str] = {}
    king_steps: dict[str, list[Step]] = {}

    def square(column: int, row: int) -> str:
        name = names.get((column, row))
        if name is None:
            name = names[(column, row)] = format_square(column, row)
        return name

    for action in legal:
        kind = action[0]
        if kind == "place":
            at = square(action[1], action[2])
            option = ChoiceOption(f"Place a knight on {at}", action, at, at)
            entries.append(([(PLACE, None)], option))
        elif kind == "excalibur":
            at = square(action[1], action[2])
            text = notation.format_action(action)
            entries.append(
                ([(EXCALIBUR, None)], ChoiceOption(f"Set Excalibur on {at}", action, text, at))
            )
        elif kind == "king":
            sword = square(action[1], action[2])
            at = square(action[3], action[4])
            path = king_steps.get(sword)
            if path is None:
                path = king_steps[sword] = [(KING, None), (f"Move Excalibur to {sword}", sword)]
            label = f"Move Excalibur to {sword}, then place a knight on {at}"
            # the canonical text (notation.format_action), composed from the cached names
            entries.append((path, ChoiceOption(label, action, f"king {sword} {at}", at)))
        else:  # pass: the only move when no knight can be placed
            text = notation.format_action(action)
            label = "Pass (no knight can be placed)" if kind == "pass" else text
            entries.append(([(PASS, None)], ChoiceOption(label, action, text)))
    # the placements first, as the board shows them; the force of the King after
    order = {PLACE: 0, EXCALIBUR: 0, KING: 1, PASS: 2}
    entries.sort(key=lambda e: order[e[0][0][0]])
    # every step kept: the page asks for Excalibur's square and the knight's in two lists
    return Choices(tree(entries, lift=False))
