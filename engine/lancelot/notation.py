"""Lancelot notation (rules/lancelot.md, Notation): ``E5``, ``king F7 E5``, ``excalibur G9``,
``pass``. Reading is case-insensitive and forgiving of extra spaces, commas and a leading
``place``; it only checks the shape of the text and that squares exist in the area. Whether
the action is allowed is decided by the rules (``rules.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engine.core.notation import COLUMN_LETTERS, format_square, parse_square, quote, words
from engine.core.protocol import Action, ActionSyntaxError
from engine.lancelot.lines import Geometry

PLACE_WORDS = ("place", "play")
KING_WORDS = ("king",)
EXCALIBUR_WORDS = ("excalibur",)
PASS_WORDS = ("pass",)

GENERIC_EXAMPLES = ("E5", "king F7 E5", "excalibur G9", "pass")


def format_action(action: Action) -> str:
    kind = action[0]
    if kind == "place":
        return format_square(action[1], action[2])
    if kind == "king":
        return f"king {format_square(action[1], action[2])} {format_square(action[3], action[4])}"
    if kind == "excalibur":
        return f"excalibur {format_square(action[1], action[2])}"
    if kind == "pass":
        return "pass"
    raise ValueError(f"not a Lancelot action: {action!r}")


def _tokens(text: str) -> list[str]:
    """Words, with a square split by spaces ("e 5") joined back together."""
    result: list[str] = []
    for word in words(text):
        if word.isdigit() and result and len(result[-1]) == 1 and result[-1].isalpha():
            result[-1] += word
        else:
            result.append(word)
    return result


def describe_area(geo: Geometry) -> str:
    first_column = COLUMN_LETTERS[geo.offset]
    last_column = COLUMN_LETTERS[geo.offset + geo.size - 1]
    return (
        f"with {geo.players} players the area is {geo.area_name} (columns {first_column} to "
        f"{last_column}, rows {geo.offset + 1} to {geo.offset + geo.size})"
    )


def parse(
    geo: Geometry,
    text: str,
    can_type: Callable[[], Sequence[str]],
    king: bool = False,
    opening: bool = False,
) -> Action:
    """Read ``text`` as an action of the area ``geo``; raise ActionSyntaxError saying what was
    not understood, with ``can_type()`` as the examples of what can be typed now. ``king``
    and ``opening`` say which forms to suggest: the force of the King, the Excalibur opening.
    """

    def fail(message: str) -> ActionSyntaxError:
        examples = tuple(can_type()) or GENERIC_EXAMPLES
        return ActionSyntaxError(
            f"{message} You can type, for example: {', '.join(examples)}.", examples
        )

    def square(token: str) -> tuple[int, int]:
        found = parse_square(token)
        if found is None:
            raise fail(
                f"I could not read {quote(token)!r} as a square: a square is a column letter "
                f"and a row number, like E5."
            )
        column, row = found
        if column >= len(COLUMN_LETTERS) or geo.square(column, row) is None:
            raise fail(f"{token.upper()} is not a square of this board: {describe_area(geo)}.")
        return column, row

    def arguments(
        rest: list[str], count: int, understood: str, usage: str
    ) -> list[tuple[int, int]]:
        if len(rest) < count:
            raise fail(f"{understood!r} needs {usage}.")
        if len(rest) > count:
            raise fail(
                f"I understood {understood!r} but not the extra {quote(' '.join(rest[count:]))!r}."
            )
        return [square(token) for token in rest]

    tokens = _tokens(text)
    if not tokens:
        raise fail("I found no move in your text.")
    head, rest = tokens[0], tokens[1:]
    if head in PASS_WORDS:
        if rest:
            raise fail(f"I understood 'pass' but not the extra {quote(' '.join(rest))!r}.")
        return ("pass",)
    if head in KING_WORDS:
        (ec, er), (kc, kr) = arguments(
            rest,
            2,
            "king",
            "two squares: where Excalibur goes, then where your knight goes (king F7 E5)",
        )
        return ("king", ec, er, kc, kr)
    if head in EXCALIBUR_WORDS:
        ((c, r),) = arguments(rest, 1, "excalibur", "the square for Excalibur (excalibur G9)")
        return ("excalibur", c, r)
    if head in PLACE_WORDS:
        ((c, r),) = arguments(rest, 1, "place", "the square for your knight (place E5)")
        return ("place", c, r)
    if parse_square(head) is not None:
        arguments(rest, 0, head.upper(), "")  # nothing may follow a bare square
        c, r = square(head)
        return ("place", c, r)
    if opening:
        forms = "'excalibur' and the square to set Excalibur on (excalibur G9)"
    else:
        forms = "a square to place a knight (E5)"
        if king:
            forms += ", 'king' and two squares to use the force of the King (king F7 E5)"
        forms += ", or 'pass'"
    raise fail(f"I could not understand {quote(head)!r}: type {forms}.")
