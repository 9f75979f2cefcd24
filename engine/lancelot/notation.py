"""Lancelot notation (rules/lancelot.md, Notation): ``E5``, ``king F7 E5``, ``excalibur G9``,
``pass``, and the reading of moves as people write them in mail replies.

A reply is applied as the player meant it or refused, never guessed. Reading is forgiving
only where the meaning stays certain: case, punctuation, spaces inside a square ("e 5"),
a row written as a word ("E five"), "column E row 5", plurals, and a listed set of filler
words ("please", "I", "my", "play", "place", "knight", "on", ...). Every other word makes
the text a syntax error that names the word; a question is not a move; a text that names
two squares for a plain placement, or one square for the force of the King, is refused
rather than half-read. Whether the action read is allowed is decided by the rules
(``rules.py``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from engine.core.notation import (
    COLUMN_LETTERS,
    COMMON_FILLER,
    format_square,
    parse_square,
    quote,
)
from engine.core.protocol import Action, ActionSyntaxError, IllegalActionError
from engine.lancelot.lines import Geometry

GENERIC_EXAMPLES = ("E5", "king F7 E5", "excalibur G9", "pass")

# -- the words a reply may contain ------------------------------------------------------------
# decision (ours, issue 8 "Replies are never guessed"): these lists are the whole vocabulary.
# A word that is in none of them is not skipped: the text is refused and the word quoted.

PASS_WORDS = frozenset({"pass", "passes", "passing"})
#: The force of the King is spent with the white shield: any of these words asks for it.
KING_WORDS = frozenset({"king", "king's", "kings", "force", "shield", "shields"})
EXCALIBUR_WORDS = frozenset({"excalibur", "excalibur's", "sword"})
KNIGHT_WORDS = frozenset({"knight", "knights", "knight's"})
#: "move Excalibur from G9 to F7": the square after "from" is Excalibur's current square.
FROM_WORDS = frozenset({"from"})
#: "G9 for Excalibur", "E5 for my knight": a role word after "for" names the square before.
FOR_WORDS = frozenset({"for"})
#: Words that carry no meaning of their own in a Lancelot move: the words common to every
#: game (``COMMON_FILLER``: politeness, greetings, the writer, "the") and Lancelot's own —
#: more of the writer, articles, prepositions and the verbs of placing and moving.
#: Negations ("not", "don't", "instead"), hedges ("maybe", "or", "if") and counts above one
#: are deliberately absent.
FILLER_WORDS = COMMON_FILLER | frozenset(
    {
        # the writer
        "shall", "have", "must", "need", "here", "here's", "is", "it", "this",
        # articles and the count one
        "a", "an", "one", "single", "another",
        # verbs of placing and moving
        "place", "places", "placing", "play", "plays", "playing", "put", "puts", "putting",
        "set", "sets", "setting", "go", "goes", "going", "move", "moves", "moving",
        "use", "uses", "using", "spend", "spends", "spending", "invoke", "invokes", "invoking",
        # choosing a square: "I'll take G8" (a knight on a taken square is refused as such)
        "take", "takes", "taking",
        # prepositions and joiners
        "on", "onto", "to", "at", "in", "into", "of", "with", "and", "then", "also",
        # nouns that only restate the move
        "square", "squares", "turn", "new", "white", "piece", "power", "stone",
    }
)  # fmt: skip
NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14,
}  # fmt: skip
#: Counts of knights other than one: a turn places exactly one knight.
COUNT_WORDS = frozenset({"two", "three", "four", "five", "both", "several", "all"})
COLUMN_WORDS = frozenset({"column", "col", "file"})
ROW_WORDS = frozenset({"row", "rank", "line"})

_SQUARE = re.compile(r"^[a-z]\d{1,2}$")
_ROW_FIRST = re.compile(r"^(\d{1,2})([a-z])$")
#: A word, or a symbol that is not plain punctuation ("?", ">", "=", "/", ...): such a
#: symbol is a token of its own, so it is refused rather than skipped.
_WORD = re.compile(r"[\w']+|[^\w\s'.,;:!()\"*\-\u2013\u2014\u2026]")

#: Roles a square can be given by the word before it.
EXCALIBUR, KNIGHT, ORIGIN = "excalibur", "knight", "origin"


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


def describe_area(geo: Geometry) -> str:
    first_column = COLUMN_LETTERS[geo.offset]
    last_column = COLUMN_LETTERS[geo.offset + geo.size - 1]
    return (
        f"with {geo.players} players the area is {geo.area_name} (columns {first_column} to "
        f"{last_column}, rows {geo.offset + 1} to {geo.offset + geo.size})"
    )


@dataclass(frozen=True)
class Situation:
    """What the reader needs to know about the game and the seat writing."""

    geo: Geometry
    #: the game is played with the Excalibur variant
    excalibur_variant: bool
    #: Excalibur still has to be set (the opening action)
    opening: bool
    #: the seat may use the force of the King now
    king: bool
    #: Excalibur's square ("G9"), None when it is not on the board
    excalibur_at: str | None
    #: the writer's own colour and every seat's colour (lower case)
    own_colour: str
    colours: tuple[str, ...]


def _row_number(token: str) -> int | None:
    # isdecimal, not isdigit: digits such as "᧚" or "𐩀" (left as they are by NFKC) are
    # refused by int(); every decimal digit it reads
    if token.isdecimal() and len(token) <= 2:
        return int(token)
    return NUMBER_WORDS.get(token)


def _spelled_square(raw: list[str], i: int) -> tuple[str, int] | None:
    """A square written over several words from ``raw[i]`` on: its token and the number of
    words it took, or None."""
    word = raw[i]
    nxt = raw[i + 1] if i + 1 < len(raw) else ""
    row_first = _ROW_FIRST.match(word)
    if row_first:  # "5e": the row, then the column
        return f"{row_first.group(2)}{int(row_first.group(1))}", 1
    letter = len(nxt) == 1 and nxt.isalpha()
    if len(raw) >= i + 4:
        third, fourth = raw[i + 2], raw[i + 3]
        row = _row_number(fourth)
        if word in COLUMN_WORDS and letter and third in ROW_WORDS and row is not None:
            return f"{nxt}{row}", 4  # "column E row 5"
        row = _row_number(nxt)
        if word in ROW_WORDS and row is not None and third in COLUMN_WORDS and len(fourth) == 1:
            return (f"{fourth}{row}", 4) if fourth.isalpha() else None  # "row 5 column E"
    if len(word) == 1 and word.isalpha() and word.isascii():
        if nxt.isdecimal() and len(nxt) <= 2:  # "e 5"
            return word + str(int(nxt)), 2
        # "E five"; not after "a" or "i", which are the article and the pronoun.
        if word not in ("a", "i") and nxt in NUMBER_WORDS:
            return f"{word}{NUMBER_WORDS[nxt]}", 2
    return None


def tokens(text: str) -> list[str]:
    """The words of ``text``, lower case, with every way of writing a square joined into one
    token ("e5"): "E5", "e 5", "E-5", "5E", "E five", "column E row 5", "row 5 column E"."""
    flat = unicodedata.normalize("NFKC", text).lower().replace("\u2019", "'")
    raw = [w.strip("'") for w in _WORD.findall(flat)]
    raw = [w for w in raw if w]
    result: list[str] = []
    i = 0
    while i < len(raw):
        spelled = _spelled_square(raw, i)
        if spelled is None:
            result.append(raw[i])
            i += 1
        else:
            result.append(spelled[0])
            i += spelled[1]
    return result


@dataclass
class _Reading:
    squares: list[tuple[str, str | None]]  # (token, role) in the order written
    pass_words: list[str]
    king_words: list[str]
    excalibur_words: list[str]
    knight_words: list[str]
    dangling: list[str]  # role words that name no square
    unknown: list[str]
    other_colours: list[str]
    counts: list[str]
    question: bool


def _read(words: list[str], situation: Situation) -> _Reading:
    r = _Reading([], [], [], [], [], [], [], [], [], False)
    pending: tuple[str, str] | None = None  # (role, the word that gave it)
    after_for = False  # "for" seen since the last square
    for word in words:
        role: str | None = None
        if word == "?":
            r.question = True
        elif _SQUARE.match(word):
            r.squares.append((word, pending[0] if pending else None))
            pending = None
            after_for = False
        elif word in PASS_WORDS:
            r.pass_words.append(word)
        elif word in KING_WORDS:
            r.king_words.append(word)
        elif word in EXCALIBUR_WORDS:
            r.excalibur_words.append(word)
            role = EXCALIBUR
        elif word in KNIGHT_WORDS:
            r.knight_words.append(word)
            role = KNIGHT
        elif word in FROM_WORDS:
            role = ORIGIN
        elif word in FOR_WORDS:
            after_for = bool(r.squares)
        elif word == situation.own_colour:
            pass  # "Red: E5" from Red
        elif word in situation.colours:
            r.other_colours.append(word)
        elif word in COUNT_WORDS:
            r.counts.append(word)
        elif word in FILLER_WORDS:
            pass
        else:
            r.unknown.append(word)
        if role is None:
            continue
        last, last_role = r.squares[-1] if r.squares else ("", None)
        if after_for and last_role is None and role != ORIGIN:
            r.squares[-1] = (last, role)  # "G9 for Excalibur"
            after_for = False
            continue
        if pending is not None and pending[0] != KNIGHT:
            r.dangling.append(pending[1])
        pending = (role, word)
    if pending is not None and pending[0] != KNIGHT:
        r.dangling.append(pending[1])
    return r


def _kind_of_move(r: _Reading, situation: Situation) -> str:
    """The kind of move a reply was making, as its error names it."""
    if situation.opening:
        return "setting Excalibur (e.g. 'excalibur G9')"
    if r.king_words or r.excalibur_words:
        return "the force of the King (Excalibur's square, then your knight's: 'king F7 E5')"
    if r.pass_words:
        return "a pass ('pass')"
    return "a knight's placement (a square, e.g. 'E5')"


def _and(items: Iterable[str]) -> str:
    """ "'a'", "'a' and 'b'", "'a', 'b' and 'c'"."""
    listed = list(items)
    return listed[0] if len(listed) == 1 else f"{', '.join(listed[:-1])} and {listed[-1]}"


def parse(text: str, situation: Situation, can_type: Callable[[], Sequence[str]]) -> Action:
    """Read ``text`` as an action; raise ActionSyntaxError saying what was not understood,
    with ``can_type()`` as the examples of what can be typed now."""
    geo = situation.geo

    def fail(message: str) -> ActionSyntaxError:
        examples = tuple(can_type()) or GENERIC_EXAMPLES
        return ActionSyntaxError(
            f"{message} You can type, for example: {', '.join(examples)}.", examples
        )

    def square(token: str) -> tuple[int, int]:
        found = parse_square(token)
        assert found is not None
        column, row = found
        if column >= len(COLUMN_LETTERS) or geo.square(column, row) is None:
            raise fail(f"{token.upper()} is not a square of this board: {describe_area(geo)}.")
        return column, row

    shown = quote(text)
    words = tokens(text)
    r = _read(words, situation)
    if not words:
        raise fail("I found no move in your text.")
    if r.question:
        raise fail(
            f"{shown!r} is a question, not a move; nothing was played. To move, write only "
            "the move."
        )
    if r.unknown:
        listed = _and(repr(w) for w in dict.fromkeys(r.unknown))
        square_like = any((len(w) == 1 and w.isalpha()) or w.isdigit() for w in r.unknown)
        hint = " A square is a column letter and a row number, like E5." if square_like else ""
        what = _kind_of_move(r, situation)
        raise fail(
            f"I could not understand {listed} in {shown!r} as {what}, so nothing was played.{hint}"
        )
    if r.other_colours:
        mine = situation.own_colour.capitalize()
        theirs = ", ".join(w.capitalize() for w in dict.fromkeys(r.other_colours))
        raise fail(f"You play {mine}; {theirs} is another player's colour. Write only your move.")
    if r.counts:
        counts = _and(repr(w) for w in dict.fromkeys(r.counts))
        raise fail(f"I could not read {counts} in {shown!r}: you place one knight per turn.")
    if (r.king_words or r.excalibur_words) and not situation.excalibur_variant:
        word = (r.king_words or r.excalibur_words)[0]
        # The rules, not the wording, forbid it: the same error as ``king F7 E5`` would get.
        raise IllegalActionError(
            f"This game is played without Excalibur, so there is no Excalibur to set or move "
            f"and no shield to spend ({word!r}). Type only the square for your knight, "
            "like E5."
        )
    for token, _role in r.squares:
        square(token)  # every square named must exist, whatever else is wrong

    main = [(t, role) for t, role in r.squares if role != ORIGIN]
    origins = [t for t, role in r.squares if role == ORIGIN]
    named = ", ".join(t.upper() for t, _ in r.squares)

    if r.pass_words:
        if r.squares or r.king_words or r.excalibur_words:
            raise fail(f"{shown!r} says 'pass' and names a move; type pass alone, or the move.")
        return ("pass",)
    if r.king_words and len(main) != 2:
        word = r.king_words[0]
        lead = "'king' needs" if word == "king" else f"{word!r} is the force of the King: it needs"
        raise fail(
            f"{lead} two squares: where Excalibur goes, then where your knight goes "
            f"(king F7 E5){'; you named ' + named if named else ''}."
        )
    if len(main) == 0:
        if origins:
            raise fail(f"{shown!r} says where Excalibur is, but not where it goes.")
        if r.excalibur_words:
            raise fail("'excalibur' needs the square for Excalibur (excalibur G9).")
        raise fail(f"I found no move in {shown!r}: no square is named.")
    if len(main) > 2:
        raise fail(f"{shown!r} names {len(main)} squares ({named}); a turn places one knight.")
    if origins:
        if len(origins) > 1 or len(main) != 2 or not (r.excalibur_words or r.king_words):
            raise fail(
                f"I could not read {shown!r}: 'from' names the square Excalibur leaves, as in "
                "'move Excalibur from G9 to F7 and place on E5'."
            )
        origin = origins[0].upper()
        if situation.excalibur_at != origin:
            where = situation.excalibur_at
            raise fail(
                f"Excalibur is not on {origin}"
                + (f": it stands on {where}." if where else ": it is not on the board yet.")
            )
    if len(main) == 1:
        column_row = square(main[0][0])
        if r.excalibur_words:
            if r.knight_words:
                raise fail(f"{shown!r} names Excalibur and a knight but only one square ({named}).")
            return ("excalibur", *column_row)
        return ("place", *column_row)

    # Two squares: the force of the King, or a refusal.
    (first, first_role), (second, second_role) = main
    if not (r.king_words or r.excalibur_words):
        also = ", or use the force of the King: king F7 E5" if situation.king else ""
        raise fail(
            f"{shown!r} names two squares ({first.upper()}, {second.upper()}); a turn places "
            f"one knight: type one square{also}."
        )
    if first_role is None and second_role is None:
        # The notation's order (king F7 E5: Excalibur first) holds only after "king", and
        # only when no role word is left over to say otherwise.
        if not r.king_words or r.dangling:
            raise fail(
                f"In {shown!r} I cannot tell which square is for Excalibur and which for "
                "your knight: write king, Excalibur's square, then your knight's (king F7 E5)."
            )
        first_role, second_role = EXCALIBUR, KNIGHT
    elif first_role is None:
        first_role = KNIGHT if second_role == EXCALIBUR else EXCALIBUR
    elif second_role is None:
        second_role = KNIGHT if first_role == EXCALIBUR else EXCALIBUR
    if first_role == second_role:
        raise fail(
            f"{shown!r} gives both squares ({first.upper()}, {second.upper()}) to the "
            f"{first_role}; the force of the King moves Excalibur to one and places a knight "
            "on the other (king F7 E5)."
        )
    sword, knight = (first, second) if first_role == EXCALIBUR else (second, first)
    return ("king", *square(sword), *square(knight))
