"""A reply's command lines as the inbound pipeline applies them: consecutive moves go to
the game service together, each special word (undo, accept, a clock or dispute line …) on
its own; and, when one fails, which line it was and which lines under it were not reached."""

from __future__ import annotations

from pbem.disputes import MAIL_WORDS
from pbem.errors import ServiceError
from pbem.mail import clock_replies

#: The words a reply may hold besides moves (case-insensitive, a line on its own).
SPECIAL = ("undo", "accept", "join", "decline", "resign", "help", "show")
#: A group: its special word (None for moves) and its lines.
Group = tuple[str | None, list[str]]


def command_groups(commands: tuple[str, ...]) -> list[Group]:
    """Consecutive move lines go to the game service together; each special word alone."""
    groups: list[Group] = []
    for line in commands:
        word = line.strip().lower().rstrip(".!")
        first = word.split(maxsplit=1)[0].rstrip(":") if word else ""
        if clock_replies.is_clock_line(line):  # before "agree 45": "agree extend" is ours
            groups.append(("clock", [line]))
        elif word in SPECIAL:
            groups.append((word, [line]))
        elif first in MAIL_WORDS:
            groups.append((first, [line]))
        elif groups and groups[-1][0] is None:
            groups[-1][1].append(line)
        else:
            groups.append((None, [line]))
    return groups


def failed_and_after(
    error: ServiceError, lines: list[str], later: list[Group]
) -> tuple[str, list[str]]:
    """The line of ``lines`` that failed (the error's line number, else the first), and the
    reply's lines under it: the rest of its group, then the groups after it (none of them
    was applied)."""
    number = error.line
    at = number - 1 if number is not None and 1 <= number <= len(lines) else 0
    return lines[at], [*lines[at + 1 :], *(line for _, group in later for line in group)]
