"""The events of table talk: a seat writes to the table or to some seats
(``TableTalkSent``), and the game's administrator hides a message (``TableTalkHidden``).

Each is a frozen dataclass whose schema is derived from it (``pbem.core.event_base``); the
composition root registers them (``TALK_EVENTS``) with the other event types
(``pbem.app.bootstrap.register_features``). Neither changes the board nor anything a seat
decides on: they are ``PositionNeutral`` (an ``Epilogue``: a message may follow the
game's end, for a day) and in ``TALK_TYPES``, which the stale-submission
rule passes over even for the strict JSON API (``pbem.play.command_checks``): a message is
not a move.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar

from marshmallow import validate

from pbem.core.event_base import Channel, Epilogue, Ref, fields_of, upcaster

TABLE_TALK_SENT = "TableTalkSent"
TABLE_TALK_HIDDEN = "TableTalkHidden"

#: the longest message, in characters (docs/mail.md, "Table talk")
MAX_TEXT = 1000


@dataclass(frozen=True)
class TableTalkSentV1(Epilogue):
    """A message as first stored: without a salt, so a seat it was not for could confirm a
    guess of its words against the hash chain (its export carries the event's hash and
    time)."""

    TYPE: ClassVar[str] = TABLE_TALK_SENT
    seat: int
    recipients: tuple[int, ...]
    text: Annotated[str, validate.Length(min=1, max=MAX_TEXT)]
    channel: Channel
    channel_ref: Ref


@dataclass(frozen=True)
class TableTalkSent(Epilogue):
    TYPE: ClassVar[str] = TABLE_TALK_SENT
    VERSION: ClassVar[int] = 2
    #: the seat that wrote it
    seat: int
    #: the seats it is for, in order; empty: every seat (``say``)
    recipients: tuple[int, ...]
    #: the words as the seat wrote them (one line by mail)
    text: Annotated[str, validate.Length(min=1, max=MAX_TEXT)]
    #: web, api or email
    channel: Channel
    #: e.g. the email's Message-ID
    channel_ref: Ref
    #: random hex, read only with the words: the hash chain covers it, so a seat the message
    #: is not for cannot confirm a guess of "yes" against the event's hash (as a secret
    #: action's commitment is salted); "" for a message stored before it (``TableTalkSentV1``)
    salt: Annotated[str, validate.Length(max=64)]


@upcaster(TableTalkSentV1)
def _table_talk_sent_v1_to_v2(old: TableTalkSentV1) -> TableTalkSent:
    return TableTalkSent(**fields_of(old), salt="")


@dataclass(frozen=True)
class TableTalkHidden(Epilogue):
    TYPE: ClassVar[str] = TABLE_TALK_HIDDEN
    #: the version of the TableTalkSent hidden
    message: int
    #: who hid it: always the game's administrator (its admin token)
    by: Annotated[str, validate.OneOf(("administrator",))]
    #: why, shown in the message's place to those who could read it
    reason: Annotated[str, validate.Length(min=1, max=MAX_TEXT)]
    channel: Channel


TALK_EVENTS = (TableTalkSentV1, TableTalkSent, TableTalkHidden)
#: the event types of table talk: none of them is part of the game
TALK_TYPES = frozenset({TABLE_TALK_SENT, TABLE_TALK_HIDDEN})
