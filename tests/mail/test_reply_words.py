"""The reply words' table (``pbem.mail.inbound.reply_words``): every feature's words, as the
composition root fills it, and how a reply's lines are read and grouped by it."""

from __future__ import annotations

import pytest

from pbem.app.bootstrap import reply_words
from pbem.mail.inbound.reply_words import Done, ReplyLine, ReplyWords
from tests.mail.helpers import MailWorld


def _nothing(line: ReplyLine) -> Done:
    return Done()


def test_the_composition_root_registers_every_features_reply_words(world: MailWorld) -> None:
    assert list(reply_words(world.service)) == [
        *("help", "show"),  # the answers (pbem.mail.inbound.reply_answers)
        "join",  # the invitation (pbem.create.invitation_replies)
        *("undo", "accept", "decline"),  # undo (pbem.undo.commands)
        "resign",  # leaving (pbem.play.resignation)
        *("dispute", "agree", "disagree"),  # disputes (pbem.disputes.replies)
        *("default", "away until", "back", "extend, pause, resume"),  # the clock
        *("agree/disagree extend, pause, resume", "time zone", "digest"),
        *("substitute", "agree substitute", "refuse substitute"),  # pbem.handover.replies
        *("webhooks", "webhook"),  # webhooks (pbem.webhooks.replies)
        *("rematch", "no rematch"),  # rematch (pbem.rematch.replies)
        *("say", "to"),  # table talk (pbem.talk.replies)
    ]


@pytest.mark.parametrize(
    ("line", "word"),
    [
        ("Undo.", "undo"),
        ("  ACCEPT! ", "accept"),
        ("agree 45", "agree"),
        ("agree extend", "agree/disagree extend, pause, resume"),  # the clock's, not a dispute's
        ("dispute: 41 that was not my move", "dispute"),
        ("away until 2026-12-24", "away until"),
        ("back", "back"),
        ("time zone Europe/Paris", "time zone"),
        ("default E5", "default"),
        ("webhook https://discord.com/api/webhooks/1/x discord", "webhook"),
        ("webhook remove 3", "webhook"),
        ("Webhooks", "webhooks"),
        ("say Good luck, all!", "say"),
        ("To Bob and Cy: shall we?", "to"),
        ("to E5", None),  # a move: "to" is the names' word only before a colon
        ("to extension 1", None),
        ("E5", None),
        ("undo E5", None),  # a word is a whole line, or a first word registered as one
        ("I agree", None),
        ("substitute Yellow with Dan <dan@example.org>", "substitute"),
        ("Agree substitute.", "agree substitute"),  # the substitutes', not a dispute's
        ("refuse  substitute", "refuse substitute"),
    ],
)
def test_a_line_is_read_as_the_most_specific_word_it_fits(
    world: MailWorld, line: str, word: str | None
) -> None:
    assert reply_words(world.service).read(line) == word


def test_moves_go_together_and_repeated_answers_are_asked_once(world: MailWorld) -> None:
    commands = (
        "help",
        "E5",
        "F6",
        "help",
        "G7",
        "default E5",
        "default E5",
        "show",
        "undo",
        "undo",
    )
    assert reply_words(world.service).groups(commands) == [
        ("help", ["help"]),
        (None, ["E5", "F6"]),
        (None, ["G7"]),  # the second help passed over: the moves around it stay apart
        ("default", ["default E5"]),
        ("show", ["show"]),
        ("undo", ["undo"]),
        ("undo", ["undo"]),  # two undo lines take back two moves
    ]


def test_a_word_claimed_twice_is_refused_when_the_table_is_filled() -> None:
    words = ReplyWords()
    words.line("undo", _nothing)
    with pytest.raises(ValueError, match="'undo' is registered twice"):
        words.line("undo", _nothing)
    with pytest.raises(ValueError, match="'undo' is registered twice"):
        words.first_word("undo", _nothing)
    with pytest.raises(ValueError, match="lower case"):
        words.line("Help", _nothing)
