"""The reply words of table talk, each the first word of a line in a reply to any mail of
the game, alone or among moves:

- ``say <words>``: to every seat (``say: <words>`` too);
- ``to Bob: <words>``, ``to Bob and Cy: <words>``, ``to Blue, Cy: <words>``: only to those
  seats, named by player or colour (``pbem.talk.recipients``); the colon ends the names,
  and makes the line a message: without it, ``to E5`` is a move (Lancelot reads "to" as a
  filler word, Lancaster "to extension 1" too).

A message is one line: its words run to the end of that line, and the next line is read on
its own (a move, another word, or an error). Quoted text, signatures and closings are cut
from a reply before its lines are read (``pbem.mail.inbound.quotes``), so a quoted message
is never sent again. A line read as a talk word is never handed to the game's rules, and a
move is never read as talk: no move of any game begins with ``say``, and none holds a
colon after a leading ``to``.

Each line is applied through ``pbem.talk.commands.Talk``. It returns no version: a message
does not move the game, so the moves of the same reply are still judged against the mail
replied to (the stale-reply rule passes over the message).
"""

from __future__ import annotations

import re

from pbem.core.errors import BadRequest
from pbem.mail.inbound.reply_words import Done, ReplyLine, ReplyWords
from pbem.talk.commands import Talk
from pbem.talk.recipients import choices_text, seats_named

CHANNEL = "email"

_SAY = re.compile(r"^say\b\s*:?\s*(?P<text>.*)$", re.IGNORECASE)
_TO = re.compile(r"^to\s+(?P<names>[^:]+?)\s*:\s*(?P<text>.*)$", re.IGNORECASE)


def apply_mail_line(talk: Talk, game_id: str, seat: int, line: str, channel_ref: str) -> str:
    """A mail's talk line (``say …``, ``to Bob: …``) sent: what was done, in a few words."""
    line = " ".join(line.split())
    if (said := _SAY.match(line)) is not None:
        result = talk.send(
            game_id, seat, said.group("text"), (), channel=CHANNEL, channel_ref=channel_ref
        )
        return f"said at version {result.version}"
    names = talk.names(game_id)
    written = _TO.match(line)
    if written is None:
        raise BadRequest(
            "Write a message to some players as 'to Bob: your words' (their names, a colon, "
            f"then your words); the players are {choices_text(names, seat)}. "
            "'say your words' writes to everyone."
        )
    to = seats_named(names, seat, written.group("names"))
    result = talk.send(
        game_id, seat, written.group("text"), to, channel=CHANNEL, channel_ref=channel_ref
    )
    return f"message to {names.many(result.recipients, 'everyone')} at version {result.version}"


def register_reply_words(words: ReplyWords, talk: Talk) -> None:
    """``say …`` (the first word of its line) and ``to Bob: …`` (a line of that form), each
    applied by ``apply_mail_line``."""

    def answer(line: ReplyLine) -> Done:
        did = apply_mail_line(talk, line.game_id, line.seat, line.text, line.key)
        # No version: the game did not move, and the reply's moves keep the version of the
        # mail they answer.
        return Done(None, did)

    words.first_word("say", answer)
    # ``to`` needs its colon: "to E5" is a move in Lancelot, "to extension 1" in Lancaster.
    words.pattern("to", is_to_line, answer)


def is_to_line(line: str) -> bool:
    """A line of the ``to Bob: …`` form (the names, then a colon)."""
    return _TO.match(" ".join(line.split())) is not None
