"""How much a seat may write at the table, the same through every door (mail, page, API),
so that table talk cannot flood the players' mailboxes (docs/mail.md, "Table talk"):

- a message holds 1 to ``MAX_TEXT`` (1,000) characters, whitespace runs read as one space,
  no control character, and no web or e-mail address (the service mails it to the other
  players: it must not relay links for whoever holds a seat without an address);
- a seat sends at most ``PER_SEAT_PER_HOUR`` (20) messages in any hour;
- a game carries at most ``PER_GAME_PER_DAY`` (200) messages in any 24 hours, all seats
  together;
- a seat that resigned writes no more while the game goes on; a finished game takes
  messages from every seat for ``AFTER_THE_END`` (24 hours) after it ended ("good game"),
  then none.

Each refusal says which limit and when it frees up.
"""

from __future__ import annotations

import unicodedata
from datetime import datetime, timedelta

from sqlalchemy import func
from sqlmodel import col, select

from pbem.clock.display import when_text
from pbem.core import events as ev
from pbem.core.errors import BadRequest, Conflict, Forbidden, TooManyRequests
from pbem.core.time_source import format_time, parse_time
from pbem.core.unit_of_work import UnitOfWork
from pbem.create.player_names import link_in_name
from pbem.talk.events import MAX_TEXT
from pbem.talk.projection import TableTalk

PER_SEAT_PER_HOUR = 20
PER_GAME_PER_DAY = 200
AFTER_THE_END = timedelta(hours=24)
HOUR = timedelta(hours=1)
DAY = timedelta(hours=24)


def clean_text(text: str) -> str:
    """The message's words, whitespace runs read as one space; BadRequest when it is empty,
    too long or holds an address."""
    text = " ".join(text.replace("\x00", " ").split())
    if not text:
        raise BadRequest("Write a few words: the message is empty.")
    if any(unicodedata.category(c) == "Cc" for c in text):
        # A bell or a terminal's escape would reach the others' mails and the CLI's log.
        raise BadRequest(
            "A message may not hold a control character (an escape, a bell): write it as text."
        )
    if len(text) > MAX_TEXT:
        raise BadRequest(
            f"A message has at most {MAX_TEXT} characters; this one has {len(text)}. "
            "Split it, or say it shorter."
        )
    if (found := link_in_name(text)) is not None:
        raise BadRequest(
            f"A message may not hold a web or e-mail address ({found!r}): the service mails "
            "it to the other players. Write it without '@', '//', 'www.' or a word.word "
            "domain (write 'E5. It', not 'E5.It')."
        )
    return text


def check_may_write(txn: UnitOfWork, seat: int, now: datetime) -> None:
    """Refused, saying why and until when, unless ``seat`` may send a message now."""
    if not 0 <= seat < len(txn.seats):
        raise Forbidden(f"There is no seat {seat} in this game.")
    if txn.finished:
        # Every seat may say "good game" for a day, those that resigned too (ending a game
        # by the administrator resigns every seat).
        ended = _ended_at(txn)
        if ended is not None and now >= ended + AFTER_THE_END:
            raise Conflict(
                f"The game is over (it finished at version {txn.version}): the table takes "
                "messages for a day after the end, and that day has passed."
            )
    elif txn.seats[seat].resigned:
        raise Forbidden("You resigned from this game: you no longer write at its table.")
    mine = _count(txn, now - HOUR, seat)
    if mine >= PER_SEAT_PER_HOUR:
        frees = _nth_latest(txn, now - HOUR, PER_SEAT_PER_HOUR, seat) + HOUR
        raise TooManyRequests(
            f"You sent {PER_SEAT_PER_HOUR} messages in the last hour, as many as a seat may: "
            f"you may write again from {when_text(frees)}."
        )
    if _count(txn, now - DAY, None) >= PER_GAME_PER_DAY:
        frees = _nth_latest(txn, now - DAY, PER_GAME_PER_DAY, None) + DAY
        raise TooManyRequests(
            f"This game's table had {PER_GAME_PER_DAY} messages in the last 24 hours, as many "
            f"as a game may: the next may be sent from {when_text(frees)}."
        )


def _count(txn: UnitOfWork, since: datetime, seat: int | None) -> int:
    query = select(func.count()).where(
        TableTalk.game_id == txn.game_id, col(TableTalk.sent_at) > format_time(since)
    )
    if seat is not None:
        query = query.where(TableTalk.seat == seat)
    return int(txn.session.exec(query).one())


def _nth_latest(txn: UnitOfWork, since: datetime, n: int, seat: int | None) -> datetime:
    """When the oldest of the ``n`` latest messages in the window was sent: the window
    frees a place when it leaves it."""
    query = select(TableTalk.sent_at).where(
        TableTalk.game_id == txn.game_id, col(TableTalk.sent_at) > format_time(since)
    )
    if seat is not None:
        query = query.where(TableTalk.seat == seat)
    times = sorted(txn.session.exec(query).all())
    return parse_time(times[-n])


def _ended_at(txn: UnitOfWork) -> datetime | None:
    finished = [e for e in txn.read() if e.type == ev.GAME_FINISHED]
    return parse_time(finished[-1].recorded_at) if finished else None
