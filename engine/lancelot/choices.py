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
    for action in legal:
        text = notation.format_action(action)
        kind = action[0]
        if kind == "place":
            square = format_square(action[1], action[2])
            option = ChoiceOption(f"Place a knight on {square}", action, text, square)
            entries.append(([(PLACE, None)], option))
        elif kind == "excalibur":
            square = format_square(action[1], action[2])
            option = ChoiceOption(f"Set Excalibur on {square}", action, text, square)
            entries.append(([(EXCALIBUR, None)], option))
        elif kind == "king":
            sword = format_square(action[1], action[2])
            square = format_square(action[3], action[4])
            label = f"Move Excalibur to {sword}, then place a knight on {square}"
            step: Step = (f"Move Excalibur to {sword}", sword)
            entries.append(([(KING, None), step], ChoiceOption(label, action, text, square)))
        else:  # pass: the only move when no knight can be placed
            label = "Pass (no knight can be placed)" if kind == "pass" else text
            entries.append(([(PASS, None)], ChoiceOption(label, action, text)))
    # the placements first, as the board shows them; the force of the King after
    order = {PLACE: 0, EXCALIBUR: 0, KING: 1, PASS: 2}
    entries.sort(key=lambda e: order[e[0][0][0]])
    # every step kept: the page asks for Excalibur's square and the knight's in two lists
    return Choices(tree(entries, lift=False))
