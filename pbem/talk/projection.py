"""The ``table_talk`` read model: each message of a game's table talk, whom it is for and
whether the administrator hid it. The conversation panel, the API and the limits on how
much a seat may write read it (by game and seat, through its indexes); like every read
model it is rebuilt from the log alone (``pbem db rebuild-projections``).

The table is this feature's own (migration ``0014_table_talk``); Alembic finds it here, as
it finds every model under ``pbem`` (``pbem.core.migrate.table_models``).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Index, Text
from sqlmodel import Field, Session, SQLModel

from pbem.core import events as ev
from pbem.core.projections.runner import ReadModel
from pbem.talk import events as talk_events


class TableTalk(SQLModel, table=True):
    """One message (``TableTalkSent``), with its hiding (``TableTalkHidden``) if any."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "table_talk"
    __table_args__ = (Index("ix_table_talk_sender", "game_id", "seat", "sent_at"),)

    game_id: str = Field(primary_key=True, max_length=32)
    #: the version of its TableTalkSent event
    version: int = Field(primary_key=True)
    #: the seat that wrote it
    seat: int
    #: canonical JSON list of the seats it is for; ``[]``: every seat
    recipients: str = Field(sa_type=Text)
    text: str = Field(sa_type=Text)
    channel: str = Field(max_length=10)
    #: e.g. the reply's Message-ID: the same words from the same reply are sent once
    channel_ref: str | None = Field(default=None, sa_type=Text)
    sent_at: str = Field(max_length=32)
    #: the administrator's reason, once hidden
    hidden_reason: str | None = Field(default=None, sa_type=Text)
    #: the version of its TableTalkHidden event, once hidden
    hidden_at: int | None = None


def project(
    session: Session, game_id: str, events: Sequence[ev.StoredEvent], to_act: frozenset[int]
) -> None:
    for e in events:
        if e.type not in talk_events.TALK_TYPES:
            continue  # by type first: no other event's payload is loaded for this
        p = e.payload
        if isinstance(p, talk_events.TableTalkSent):
            session.add(
                TableTalk(
                    game_id=game_id,
                    version=e.version,
                    seat=p.seat,
                    recipients=ev.canonical_json(list(p.recipients)),
                    text=p.text,
                    channel=p.channel,
                    channel_ref=p.channel_ref,
                    sent_at=e.recorded_at,
                )
            )
            session.flush()  # a hiding later in the same events finds it
        elif isinstance(p, talk_events.TableTalkHidden):
            row = session.get(TableTalk, (game_id, p.message))
            if row is None:
                continue
            row.hidden_reason = p.reason
            row.hidden_at = e.version
            session.add(row)


#: registered by the composition root (``pbem.app.bootstrap.register_features``)
READ_MODEL = ReadModel(TableTalk, "game_id", ("version",), project)
