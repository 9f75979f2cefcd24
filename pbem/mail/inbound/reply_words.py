"""The reply words: the table the inbound pipeline dispatches a reply's lines by.

A line of a reply is a move, handed to the game's rules, unless it is a word some feature
answers: ``undo``, ``accept``, ``resign``, ``help``, ``dispute 41: …``, ``away until …``.
Each feature registers its words with a handler, beside its commands; the composition root
(``pbem.app.bootstrap.reply_words``) fills one table with all of them, and the pipeline
(``pbem.mail.inbound.pipeline``) knows none: it groups a reply's lines by the table, hands each
word's line to its handler, and the moves between them to the game service.

A line is read as the most specific entry it fits:

1. a whole line (``undo``, ``help``: any case, without a final ``.`` or ``!``);
2. a line pattern (the clock's ``agree extend``, before the dispute's ``agree 45``);
3. its first word (``dispute 41: …``, ``agree 45``).

Two entries of one name, or two features claiming one whole line or first word, is an error
when the table is filled, not a silent choice.

A handler gets the line (:class:`ReplyLine`) and answers what it did (:class:`Done`); when it
cannot, it raises a ``ServiceError`` (whose fields the error reply is written from), and the
reply stops there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

#: The channel of everything a reply does (the events' ``channel``).
CHANNEL = "email"

#: A group of a reply's lines: its word (None for moves) and its lines.
Group = tuple[str | None, list[str]]


@dataclass(frozen=True)
class ReplyLine:
    """One line of a reply, as its handler gets it."""

    game_id: str
    seat: int
    #: the seat's address (a command across the address's games acts for it)
    email: str
    #: the reply's key (its Message-ID): the ``channel_ref`` of what the line does
    key: str
    #: the name of the entry the line was read as (``accept``, ``agree``, ``away`` …)
    word: str
    #: the line as written
    text: str
    #: the seat's invitation was waiting when the reply came (the reply accepted it)
    invited: bool


@dataclass(frozen=True)
class Done:
    """What a line did."""

    #: the game's version after it; None when it did not change the game
    version: int | None = None
    #: what was done, in a few words (the inbound log); None when the line was passed over
    did: str | None = None
    #: what to tell in the reply's one answer mail (``pbem.mail.inbound.reply_answers``): its kind
    #: (``help``, ``show``, ``clock``) and text
    tell: tuple[str, str] | None = None


Handler = Callable[[ReplyLine], Done]
#: A line's (command, value): a line is passed over when the latest line kept for the same
#: command had the same value (None: never passed over).
Repeat = Callable[[str], tuple[str, str] | None]


@dataclass(frozen=True)
class _Entry:
    name: str
    handler: Handler
    repeat: Repeat | None


def _said(line: str) -> str:
    return line.strip().lower().rstrip(".!")


class ReplyWords:
    """The table: each reply word with its handler."""

    def __init__(self) -> None:
        self._entries: dict[str, _Entry] = {}
        self._lines: dict[str, _Entry] = {}
        self._patterns: list[tuple[Callable[[str], bool], _Entry]] = []
        self._first_words: dict[str, _Entry] = {}

    def line(self, word: str, handler: Handler, *, once: bool = False) -> None:
        """``word`` alone on its line; ``once``: answered once per reply, however many times
        the reply says it (``help``)."""
        repeat: Repeat | None = (lambda _line: (word, "")) if once else None
        self._lines[self._claim(self._lines, word)] = self._add(word, handler, repeat)

    def pattern(
        self,
        name: str,
        reads: Callable[[str], bool],
        handler: Handler,
        *,
        repeat: Repeat | None = None,
    ) -> None:
        """Every line ``reads`` accepts (``away until 2026-12-24``)."""
        self._patterns.append((reads, self._add(name, handler, repeat)))

    def first_word(self, word: str, handler: Handler) -> None:
        """Every line whose first word (a colon after it allowed) is ``word``."""
        self._first_words[self._claim(self._first_words, word)] = self._add(word, handler, None)

    def _claim(self, kind: dict[str, _Entry], word: str) -> str:
        if word != _said(word) or not word:
            raise ValueError(f"reply word {word!r}: write it in lower case, as a reply is read")
        if word in kind:
            raise ValueError(f"reply word {word!r} is registered twice")
        return word

    def _add(self, name: str, handler: Handler, repeat: Repeat | None) -> _Entry:
        if name in self._entries:
            raise ValueError(f"reply word {name!r} is registered twice")
        entry = _Entry(name, handler, repeat)
        self._entries[name] = entry
        return entry

    def __iter__(self) -> Iterator[str]:
        """The names of the entries, in the order they were registered."""
        return iter(self._entries)

    # -- reading a reply -------------------------------------------------------------------

    def read(self, line: str) -> str | None:
        """The name of the entry ``line`` is read as; None for a move."""
        said = _said(line)
        if said in self._lines:
            return self._lines[said].name
        for reads, entry in self._patterns:
            if reads(line):
                return entry.name
        first = said.split(maxsplit=1)[0].rstrip(":") if said else ""
        found = self._first_words.get(first)
        return found.name if found else None

    def groups(self, commands: tuple[str, ...]) -> list[Group]:
        """The reply's lines as they are applied: consecutive moves together (the game
        service applies them in one submission), each word's line alone; without the word
        lines that would only repeat (a second ``help``; a ``default E5`` right after the
        same one). Moves keep every line."""
        groups: list[Group] = []
        for line in commands:
            word = self.read(line)
            if word is None and groups and groups[-1][0] is None:
                groups[-1][1].append(line)
            else:
                groups.append((word, [line]))
        kept: list[Group] = []
        latest: dict[str, str] = {}
        for word, lines in groups:
            repeat = None if word is None else self._entries[word].repeat
            said = repeat(lines[0]) if repeat is not None else None
            if said is not None:
                command, value = said
                if latest.get(command) == value:
                    continue
                latest[command] = value
            kept.append((word, lines))
        return kept

    def handle(self, line: ReplyLine) -> Done:
        """Apply one word's line through its feature's handler."""
        return self._entries[line.word].handler(line)


def failed_and_after(
    lines: list[str], line: int | None, later: list[Group]
) -> tuple[str, list[str]]:
    """The line of ``lines`` that failed (``line``, 1-based, as the error says; else the
    first), and the reply's lines under it: the rest of its group, then the groups after it
    (none of them was applied)."""
    at = line - 1 if line is not None and 1 <= line <= len(lines) else 0
    return lines[at], [*lines[at + 1 :], *(text for _, group in later for text in group)]
