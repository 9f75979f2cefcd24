"""The read models of rematches (Alembic owns their schema: migration 0017). Written only by
``pbem.rematch.projection``; rebuilt from the log like every other read model."""

from __future__ import annotations

from sqlalchemy import Text
from sqlmodel import Field, SQLModel


class RematchProposal(SQLModel, table=True):
    """A rematch proposed at the end of a game, and where it stands."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "rematch_proposals"

    #: the finished game
    game_id: str = Field(primary_key=True, max_length=32)
    #: the version of its RematchProposed event
    proposal: int = Field(primary_key=True)
    #: the proposing seat
    seat: int
    #: rotate | same
    seating: str = Field(max_length=8)
    #: open | declined | agreed (every seat agreed; the new game is being created) | started
    status: str = Field(max_length=16)
    #: canonical JSON list of the seats that agreed so far (the proposer first of all)
    agreed_by: str = Field(sa_type=Text)
    #: the seat that declined, when one did
    declined_by: int | None = None
    #: the new game, once started
    new_game_id: str | None = Field(default=None, max_length=32)


class RematchOrigin(SQLModel, table=True):
    """A game that is a rematch: the finished game it is a rematch of."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "rematch_origins"

    game_id: str = Field(primary_key=True, max_length=32)
    of_game_id: str = Field(max_length=32)
    #: the proposal (its version in the finished game) it came from
    proposal: int
