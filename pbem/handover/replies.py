"""The reply words of substitutes, in a reply to any mail of the game (docs/mail.md,
"Substitutes"):

- ``substitute Red with Dan <dan@example.org>`` — propose a newcomer for a seat (by its
  colour, its player's name or its number) that missed its deadlines;
- ``agree substitute`` / ``refuse substitute`` — answer the proposal waiting.

Each is read before moves (a move never begins with these words), and applied through
``pbem.handover.commands.Handovers``."""

from __future__ import annotations

from pbem.handover.commands import Handovers
from pbem.handover.rules import read_proposal
from pbem.handover.texts import AGREE, REFUSE
from pbem.mail.inbound.reply_words import CHANNEL, Done, ReplyLine, ReplyWords
from pbem.play.queries import GameQueries


def _said(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".!")


def register_reply_words(words: ReplyWords, handovers: Handovers, queries: GameQueries) -> None:
    def propose(line: ReplyLine) -> Done:
        names = queries.load(line.game_id).names
        seat, name, email = read_proposal(line.text, names)
        result = handovers.propose(
            line.game_id, line.seat, seat, name, email, channel=CHANNEL, channel_ref=line.key
        )
        return Done(result.version, f"substitute proposed for seat {seat}")

    def decide(line: ReplyLine) -> Done:
        agree = _said(line.text) == AGREE
        result = handovers.decide(
            line.game_id, line.seat, agree, channel=CHANNEL, channel_ref=line.key
        )
        return Done(result.version, AGREE if agree else REFUSE)

    words.first_word("substitute", propose)
    # Patterns, so that they are read before the disputes' first word ``agree``.
    words.pattern("agree substitute", lambda text: _said(text) == AGREE, decide)
    words.pattern("refuse substitute", lambda text: _said(text) == REFUSE, decide)
