"""The reply words of a rematch, each a line of its own in a reply to any mail of a finished
game (docs/mail.md, "Rematch"):

- ``rematch`` proposes a rematch with the seats rotated by one, or agrees to the one
  proposed;
- ``rematch same seats`` (or ``rematch rotate``) proposes one with that seating, or agrees
  to the one proposed when it has that seating;
- ``rematch no`` (or ``no rematch``, ``rematch decline``) declines the one proposed.

``rematch`` is no move of any game, so a line beginning with it is never read as one; while
the game is being played, it is refused with a clear answer (``pbem.rematch.commands``).
"""

from __future__ import annotations

from pbem.mail.inbound.reply_words import CHANNEL, Done, ReplyLine, ReplyWords
from pbem.rematch.commands import Rematches, RematchResult, read_seating

#: What may follow ``rematch`` to decline, or to agree without naming a seating.
DECLINE = ("no", "decline", "declined")
AGREE = ("yes", "agree", "agreed", "ok")


def apply_line(rematches: Rematches, line: ReplyLine) -> RematchResult:
    """One ``rematch …`` (or ``no rematch``) line applied for the replying seat."""
    said = " ".join(line.text.lower().rstrip(".!").split())
    rest = "no" if said == "no rematch" else said.removeprefix("rematch").lstrip(" :")
    if rest in DECLINE:
        return rematches.decline(line.game_id, line.seat, channel=CHANNEL, channel_ref=line.key)
    if rest in AGREE:
        return rematches.agree(line.game_id, line.seat, channel=CHANNEL, channel_ref=line.key)
    return rematches.propose(
        line.game_id, line.seat, read_seating(rest), channel=CHANNEL, channel_ref=line.key
    )


def did_text(result: RematchResult) -> str:
    """What a line did, in a few words (the inbound log)."""
    if result.status == "started":
        return f"rematch started: game {result.new_game_id}"
    return f"rematch {result.status}"


def register_reply_words(words: ReplyWords, rematches: Rematches) -> None:
    def answer(line: ReplyLine) -> Done:
        return Done(None, did_text(apply_line(rematches, line)))

    words.first_word("rematch", answer)
    words.line("no rematch", answer)
