"""A reply from an invited seat that has not accepted yet: is it a yes, a no, or neither?

A reply is applied as its player meant it or not at all, never guessed (docs/mail.md,
"Invitations"). It accepts when it says so — a line ``accept`` or ``join``, or an answer as
people write one: "Yes, I accept!", "Count me in", "I'm in", "Sure!" (``ACCEPT_PHRASES``) —
or holds a command the game understands (a move the rules read, ``undo``, ``resign``,
``help``, ``show``, a dispute word): then its other lines are applied as for any player, a
move after the acceptance too. It declines with a line ``decline`` or a no as people write
one: "No thanks", "Not this time, sorry", "I'll pass, thanks" (``DECLINE_PHRASES``): nothing
is recorded, and nothing more is sent about the game unless the player accepts later.
Anything else (an out-of-office reply, prose) changes nothing; its answer says how to accept
or decline.

decision (ours): a line of an answer is read whole: every word is an answer phrase or a
courtesy word (``COURTESY``); "Yes, I accept but only with diagonals" is no answer. A yes and
a no in one reply, or a yes the game also reads as a move of the seat ("yes" while it votes
in Lancaster), is refused: the answer says what to write. A reply whose only move is a
pass ("pass", "I pass") does not accept: to an invitation, "pass" says no in English.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from pbem.core.errors import Conflict
from pbem.mail.inbound.reply_words import Done, Group, ReplyLine, ReplyWords
from pbem.mail.outbound import compose as c
from pbem.play.queries import GameQueries

#: The lines that accept an invitation (besides a command for the game).
ACCEPT_WORDS = ("accept", "join")
Answer = Literal["accept", "decline", "unclear"]


def _phrases(*texts: str) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(text.split()) for text in texts)


#: A yes, as people write one to an invitation.
ACCEPT_PHRASES = _phrases(
    *("accept", "accepted", "i accept", "i'll accept", "join", "i'll join", "i will join"),
    *("happy to join", "happy to play", "glad to join", "i'd love to", "i would love to"),
    *("love to", "yes", "yes please", "yeah", "yep", "yup", "sure", "sure thing", "ok"),
    *("okay", "of course", "absolutely", "definitely", "count me in", "i'm in", "im in"),
    *("i am in", "i'm up for it", "i'm game", "let's play", "let's go", "sounds good"),
    *("sounds great", "sounds fun", "why not", "deal", "i'll play", "i will play"),
)
#: A no, as people write one to an invitation.
DECLINE_PHRASES = _phrases(
    *("decline", "i decline", "i'll decline", "i must decline", "no", "nope", "no thanks"),
    *("no thank you", "not this time", "not now", "not for me", "not interested"),
    *("i'm not interested", "i'll pass", "i will pass", "i'll have to pass", "i must pass"),
    *("i think i'll pass", "i'll sit this one out", "count me out", "i'm out", "im out"),
    *("i can't", "i cannot", "i can't make it", "can't make it", "i can't play"),
    *("maybe next time", "next time", "no can do", "unfortunately"),
)
#: Words an answer may be wrapped in that change nothing: greetings, thanks, apologies.
COURTESY = frozenset(
    {
        *("hi", "hello", "hey", "hiya", "dear", "all", "everyone", "there", "thanks", "thank"),
        *("you", "so", "much", "very", "for", "the", "invite", "invitation", "please", "oh"),
        *("well", "great", "cool", "awesome", "sorry", "really", "but", "and", "again"),
        *("lot", "cheers", "asking", "me", "this", "time", "round"),
    }
)
_WORD = re.compile(r"[a-z0-9']+")


def _said(line: str) -> str | None:
    """ "accept" or "decline" when ``line`` is wholly an answer phrase (and courtesy), else
    None; "unclear" when it holds both."""
    w = _WORD.findall(line.lower().replace("’", "'"))
    found: set[str] = set()
    i = 0
    while i < len(w):
        best, kind = 0, ""
        for phrases, name in ((ACCEPT_PHRASES, "accept"), (DECLINE_PHRASES, "decline")):
            for phrase in phrases:
                if len(phrase) > best and tuple(w[i : i + len(phrase)]) == phrase:
                    best, kind = len(phrase), name
        if best:
            found.add(kind)
            i += best
        elif w[i] in COURTESY:
            i += 1
        else:
            return None
    if len(found) > 1:
        return "unclear"
    return next(iter(found), None)


@dataclass(frozen=True)
class Reading:
    """What a reply says to the invitation, and the lines it leaves to apply (without the
    lines that were its answer: "Count me in!" is no move)."""

    said: Answer
    groups: list[Group]


def _regroup(groups: Sequence[tuple[str | None, Sequence[str]]], drop: set[str]) -> list[Group]:
    """``groups`` without the move lines in ``drop``, consecutive moves together again."""
    out: list[Group] = []
    for word, lines in groups:
        kept = [line for line in lines if word is not None or line not in drop]
        if not kept:
            continue
        if word is None and out and out[-1][0] is None:
            out[-1][1].extend(kept)
        else:
            out.append((word, list(kept)))
    return out


def read_answer(
    groups: Sequence[tuple[str | None, Sequence[str]]], reads_as_action: Callable[[str], bool]
) -> Reading:
    """What the reply says to the invitation. ``groups``: its lines as the inbound pipeline
    groups them (a command word, or None for move lines); ``reads_as_action``: whether the
    game's rules read a line as a move of this seat."""
    words = {word for word, _ in groups if word is not None}
    answers: dict[str, str] = {}
    for word, lines in groups:
        if word is None:
            for line in lines:
                said = _said(line)
                if said is not None:
                    answers[line] = said
    said_set = set(answers.values())
    if "decline" in words:
        said_set.add("decline")
    if "accept" in words or "join" in words:
        said_set.add("accept")
    moves = [line for word, lines in groups if word is None for line in lines]
    others = [line for line in moves if line not in answers]
    unclear = Reading("unclear", [])
    if "unclear" in said_set or {"accept", "decline"} <= said_set:
        return unclear  # a yes and a no: ask rather than pick one
    if "decline" in said_set:
        # "decline" with anything else is contradictory: ask rather than pick one.
        declined = not others and words <= {"decline"}
        return Reading("decline", []) if declined else unclear
    if any(said == "accept" and reads_as_action(line) for line, said in answers.items()):
        return unclear  # "yes" that is also a vote: which did the player mean?
    left = _regroup(groups, set(answers))
    if said_set or words:
        return Reading("accept", left)  # a yes, or a command for the game (undo, help, …)
    if any(reads_as_action(line) and not _passes(line) for line in others):
        return Reading("accept", left)
    return unclear


def _passes(line: str) -> bool:
    return "pass" in _WORD.findall(line.lower())


def answer(
    groups: Sequence[tuple[str | None, Sequence[str]]], reads_as_action: Callable[[str], bool]
) -> Answer:
    """What the reply says to the invitation (``read_answer``'s answer)."""
    return read_answer(groups, reads_as_action).said


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
