"""The reply phrasing corpus (``corpus/phrasings.txt``): whole replies as players write them
— greetings, thanks and sign-offs on the command's own line, courtesy verbs, friendly marks,
signatures — read through the mail path (``strip_reply``, ``command_lines``) and then by the
game's rules for the seat to act, in positions of both games; and answers to an invitation.

Nothing outside the "moves" part is ever applied: each of its replies leaves no line, or
only lines the rules refuse.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.core.protocol import EngineError
from pbem.create.invitation_replies import read_answer
from pbem.mail.inbound.quotes import strip_reply
from pbem.mail.inbound.reading import command_lines
from pbem.mail.inbound.reply_words import ReplyWords
from pbem.play.queries import reads_as_action
from tests.engine.lancaster import test_phrasing_corpus as lancaster_corpus
from tests.engine.lancaster.helpers import R as LANCASTER
from tests.engine.lancelot import test_phrasing_corpus as lancelot_corpus
from tests.engine.lancelot.helpers import R as LANCELOT

CORPUS = Path(__file__).parent / "corpus" / "phrasings.txt"
SENDER = ("Ann Smith", "ann.smith@example.com")
PARTS = ("moves", "not moves", "invitations")


def _cases(part: str) -> list[tuple[str, str, str]]:
    cases: list[tuple[str, str, str]] = []
    current = None
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("["):
            current = line.strip("[]")
            assert current in PARTS, f"unknown corpus part {line!r}"  # else cases vanish
            continue
        assert current is not None, f"a corpus case before any part: {line!r}"
        if current == part:
            where, text, expected = (x.strip() for x in line.split(" | "))
            cases.append((where, text.replace("\\n", "\n"), expected))
    return cases


MOVES = _cases("moves")
NOT_MOVES = _cases("not moves")
INVITATIONS = _cases("invitations")


def _position(where: str) -> tuple[Any, Any, int]:
    """The rules, the state and the seat to act of ``game:position``."""
    game, _, name = where.partition(":")
    if game == "lancaster":
        state, seat = lancaster_corpus.position(name)
        return LANCASTER, state, seat
    assert game == "lancelot", where
    state = lancelot_corpus.position(name)
    return LANCELOT, state, state.current


def _read(text: str) -> tuple[str, ...]:
    return command_lines(strip_reply(text, *SENDER))


def test_the_corpus_is_large_and_covers_both_games() -> None:
    assert len(MOVES) + len(NOT_MOVES) + len(INVITATIONS) >= 200
    for part in (MOVES, NOT_MOVES):
        assert {where.partition(":")[0] for where, _, _ in part} == {"lancaster", "lancelot"}
    assert {said for _, _, said in INVITATIONS} == {"accept", "decline", "unclear"}


@pytest.mark.parametrize(("where", "text", "expected"), MOVES)
def test_a_reply_reads_as_the_player_meant(where: str, text: str, expected: str) -> None:
    rules, state, seat = _position(where)
    lines = _read(text)
    assert len(lines) == 1, lines
    action = rules.parse_action(state, seat, lines[0])
    assert rules.format_action(state, action) == expected
    assert action in rules.legal_actions(state, seat)


@pytest.mark.parametrize(("where", "text", "expected"), NOT_MOVES)
def test_a_reply_that_is_not_clearly_one_move_applies_nothing(
    where: str, text: str, expected: str
) -> None:
    rules, state, seat = _position(where)
    lines = _read(text)
    if expected == "no command":
        assert lines == ()
        return
    assert lines, "a refusal needs a line to refuse"
    for line in lines:
        with pytest.raises(EngineError) as refused:
            rules.parse_action(state, seat, line)
        if expected != "refused":
            assert expected in str(refused.value), str(refused.value)


def _words() -> ReplyWords:
    """The table's invitation words as the composition root registers them (their handlers
    are not run here)."""
    words = ReplyWords()
    for word in ("accept", "decline", "join", "help", "undo"):
        words.line(word, lambda line: pytest.fail("not run"))
    return words


@pytest.mark.parametrize(("game", "name"), [("lancelot", "plain2"), ("lancaster", "place")])
@pytest.mark.parametrize(("_where", "text", "expected"), INVITATIONS)
def test_an_invitation_answer_is_read_as_the_player_meant(
    game: str, name: str, _where: str, text: str, expected: str
) -> None:
    """Read for a seat that is not to act (where every move is still "a move"), and for the
    seat to act."""
    rules, state, to_act = _position(f"{game}:{name}")
    seats = sorted(rules.to_act(state))
    for seat in (to_act, next(s for s in range(len(state_seats(state))) if s not in seats)):
        groups = _words().groups(_read(text))
        reading = read_answer(
            groups, lambda line, seat=seat: reads_as_action(rules, state, seat, seats, line)
        )
        assert reading.said == expected, (seat, groups)
        if expected == "accept":
            # The lines that are a yes on their own are not applied as moves; the rest is.
            moves = [line for word, lines in groups if word is None for line in lines]
            left = [line for word, lines in reading.groups if word is None for line in lines]
            assert left == [line for line in moves if not _a_yes(line)]


def _a_yes(line: str) -> bool:
    return read_answer([(None, [line])], lambda _line: False).said == "accept"


def state_seats(state: Any) -> range:
    players = getattr(state, "players", None)
    if isinstance(players, int):
        return range(players)
    return range(len(state.colours))


def test_a_yes_that_is_also_a_vote_of_the_seat_is_asked_about_not_guessed() -> None:
    """In a Lancaster vote "yes" is the seat's vote and a yes to the invitation: refused as
    unclear (its answer says to write accept); "Yes, I accept!" is no vote, and accepts."""
    rules, state, seat = _position("lancaster:vote")
    seats = sorted(rules.to_act(state))

    def reads(line: str) -> bool:
        return reads_as_action(rules, state, seat, seats, line)

    assert reads("yes")
    assert read_answer(_words().groups(_read("yes")), reads).said == "unclear"
    assert read_answer(_words().groups(_read("Yes, I accept!")), reads).said == "accept"
    groups = _words().groups(_read("Count me in!\nvote yes 1"))
    reading = read_answer(groups, reads)
    assert (reading.said, reading.groups) == ("accept", [(None, ["vote yes 1"])])
