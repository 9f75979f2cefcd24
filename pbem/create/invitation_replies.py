"""A reply from an invited seat that has not accepted yet: is it a yes, a no, or neither?

A reply is applied as its player meant it or not at all, never guessed (docs/mail.md,
"Invitations"). It accepts when it says so (a line ``accept`` or ``join``) or holds a command
the game understands (a move the rules read, ``undo``, ``resign``, ``help``, ``show``, a
dispute word): then the commands are applied as for any player. A line ``decline`` declines:
nothing is recorded, and nothing more is sent about the game unless the player accepts
later. Anything else ("no thanks", an out-of-office reply) changes nothing; its answer says
how to accept or decline.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from pbem.core.errors import Conflict
from pbem.mail.inbound.reply_words import Done, ReplyLine, ReplyWords
from pbem.mail.outbound import compose as c
from pbem.play.queries import GameQueries

#: The lines that accept an invitation (besides a command for the game).
ACCEPT_WORDS = ("accept", "join")
Answer = Literal["accept", "decline", "unclear"]


def answer(
    groups: Sequence[tuple[str | None, Sequence[str]]], reads_as_action: Callable[[str], bool]
) -> Answer:
    """What the reply says to the invitation. ``groups``: its lines as the inbound pipeline
    groups them (a command word, or None for move lines); ``reads_as_action``: whether the
    game's rules read a line as a move of this seat."""
    words = {word for word, _ in groups if word is not None}
    says_accept = bool(words & set(ACCEPT_WORDS))
    if "decline" in words:
        # "decline" with anything else is contradictory: ask rather than pick one.
        return "decline" if all(word == "decline" for word, _ in groups) else "unclear"
    if says_accept or words:
        return "accept"  # accept/join, or a command for the game (undo, resign, help, …)
    if any(reads_as_action(line) for _, lines in groups for line in lines):
        return "accept"
    return "unclear"


def answer_text(kind: Answer, title: str, name: str) -> str:
    """The reply to a decline, or to a reply that neither accepts nor declines."""
    if kind == "decline":
        body = (
            f"You declined this invitation, {name}. Nothing more is sent to this address about "
            "this game. If you change your mind, reply to the invitation with the word accept "
            "on a line of its own."
        )
        headline = "invitation declined"
    else:
        body = (
            f"Your reply did not accept this invitation, {name}, so nothing was changed and "
            "nothing more is sent to this address about this game. To join, reply with the "
            "word\n\n    accept\n\non a line of its own (or a move); to say no, reply\n\n"
            "    decline"
        )
        headline = "your reply did not accept the invitation"
    return c.render("invitation_answer", marker=c.MARKER, title=title, headline=headline, body=body)


def register_reply_words(words: ReplyWords, queries: GameQueries) -> None:
    """``join``: the invitation's other ``accept`` (which ``pbem.undo.commands`` registers,
    since it also answers an undo request). The pipeline answers the invitation before it
    applies a reply's lines, so the word itself has nothing left to do."""

    def join(line: ReplyLine) -> Done:
        if line.invited or queries.was_invited(line.game_id, line.seat):
            return Done()  # accepted with this reply, or by an earlier one
        raise Conflict("There is no invitation waiting for an answer.")

    words.line("join", join)
