"""The reply words of disputes, each the first word of a line in a reply to any mail of the
game: ``dispute 41: what went wrong`` (or a range, ``dispute 41-43: …``) opens one;
``agree 45`` / ``disagree 45`` answer one (``agree`` / ``disagree`` alone: the one waiting for
the seat's answer). Each is applied through ``pbem.disputes.commands.Disputes``."""

from __future__ import annotations

import re

from pbem.core.errors import BadRequest, Conflict
from pbem.core.numbers import NumberError, read_int
from pbem.disputes.commands import Disputes
from pbem.disputes.rules import parse_versions
from pbem.mail.inbound.reply_words import Done, ReplyLine, ReplyWords

#: A mail line: ``dispute 41: I wrote knight 2, not knight 1``, ``agree 45``, ``disagree``.
_MAIL_LINE = re.compile(
    r"^(?P<word>dispute|agree|disagree)\b\s*(?P<what>[^:]*?)\s*(?::\s*(?P<text>.*))?$",
    re.IGNORECASE,
)
#: The words a mail line may begin with to open or answer a dispute.
MAIL_WORDS = ("dispute", "agree", "disagree")


def apply_mail_line(
    disputes: Disputes, game_id: str, seat: int, line: str, channel_ref: str
) -> tuple[int, str]:
    """A mail's dispute line (``dispute 41: …``, ``agree 45``, ``disagree``): the game's
    version after it, and what was done, in a few words."""
    match = _MAIL_LINE.match(" ".join(line.split()))
    if match is None:
        raise BadRequest(
            "Write a dispute as 'dispute 41: what went wrong' (the version, a colon, then "
            "your words), or answer one with 'agree 45' or 'disagree 45'."
        )
    word, what, text = match.group("word").lower(), match.group("what"), match.group("text")
    if word == "dispute":
        if not what:
            raise BadRequest(
                "Name the version you dispute: 'dispute 41: what went wrong' (the versions "
                "are in the log of your mails and on the game page)."
            )
        try:
            first, last = parse_versions(what)
        except BadRequest:
            raise BadRequest(
                "Write a dispute as 'dispute 41: what went wrong': the version (or a range "
                "such as 41-43), a colon, then your words."
            ) from None
        result = disputes.open(
            game_id, seat, first, last, text or "", channel="email", channel_ref=channel_ref
        )
        return result.version, f"dispute {result.dispute} opened"
    if what:
        number = re.sub(r"^dispute\s*", "", what, flags=re.IGNORECASE)
        try:
            dispute = read_int(number, what="the dispute's number")
        except NumberError:
            raise BadRequest(
                f"'{word} 45' names the dispute by its number (not {what[:20]!r})."
            ) from None
    else:
        found = disputes.open_one(game_id, seat)
        if found is None:
            raise Conflict("There is no dispute waiting for an answer.")
        dispute = found
    result = disputes.answer(
        game_id, seat, dispute, word == "agree", channel="email", channel_ref=channel_ref
    )
    return result.version, f"{word} {dispute}"


def register_reply_words(words: ReplyWords, disputes: Disputes) -> None:
    """The reply words of disputes, each the first word of its line: ``dispute 41: …``
    opens one, ``agree 45`` / ``disagree 45`` answer one (``apply_mail_line``)."""

    def answer(line: ReplyLine) -> Done:
        version, did = apply_mail_line(disputes, line.game_id, line.seat, line.text, line.key)
        return Done(version, did)

    for word in MAIL_WORDS:
        words.first_word(word, answer)
