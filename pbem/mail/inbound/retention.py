"""How long the raw inbound mail is kept: it is the evidence of what a player sent (the
audit shows it for every mail that became an action), so a message tied to a game is kept
while the game runs and for ``mail.inbound_retention_days`` after it finished; a message
tied to no game (a stranger's, a bounce) for that many days after it arrived. Nothing else
ever deletes one; ``pbem mail purge-inbound`` runs this."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import delete, or_
from sqlmodel import col, select

from pbem.app.config import Settings
from pbem.core.db import Database
from pbem.core.models import Game
from pbem.core.time_source import format_time
from pbem.mail.models import InboundMail


def purge_inbound(db: Database, settings: Settings, now: datetime) -> int:
    """Delete the inbound messages past their retention; returns how many."""
    cutoff = format_time(now - timedelta(days=settings.mail.inbound_retention_days))
    # Times are fixed-width ISO text, so comparing them as text compares the times.
    finished_long_ago = select(Game.id).where(
        col(Game.finished).is_(True), col(Game.updated_at) < cutoff
    )
    with db.write() as session:
        result = session.exec(
            delete(InboundMail).where(
                col(InboundMail.received_at) < cutoff,
                col(InboundMail.status) == "done",
                or_(
                    col(InboundMail.game_id).is_(None),
                    col(InboundMail.game_id).in_(finished_long_ago),
                ),
            )
        )
        return int(result.rowcount or 0)
