"""The ``disputes`` read model: each dispute, where it stands (open, dismissed, upheld) and
the other seats' answers so far. Whatever must know a game's open disputes (the mails'
notices, who may open another) asks this table, through its ``(game_id, status)`` index."""

from __future__ import annotations

import json
from collections.abc import Sequence

from sqlmodel import Session, col, select

from pbem.core import events as ev
from pbem.core.models import Dispute
from pbem.core.projections.runner import ReadModel
from pbem.disputes import events as dispute_events


def project(
    session: Session, game_id: str, events: Sequence[ev.StoredEvent], to_act: frozenset[int]
) -> None:
    for e in events:
        p = e.payload
        if isinstance(p, dispute_events.DisputeOpened):
            session.add(
                Dispute(
                    game_id=game_id,
                    dispute=e.version,
                    seat=p.seat,
                    versions=ev.canonical_json(list(p.versions)),
                    text=p.text,
                    status="open",
                    answers="{}",
                    opened_at=e.recorded_at,
                )
            )
            session.flush()  # an answer later in the same events finds it
        elif isinstance(p, dispute_events.DisputeAnswered | dispute_events.DisputeResolved):
            row = session.get(Dispute, (game_id, p.dispute))
            if row is None:
                continue
            if isinstance(p, dispute_events.DisputeAnswered):
                answers = json.loads(row.answers)
                answers[str(p.seat)] = p.agree
                row.answers = ev.canonical_json(answers)
            else:
                row.status = p.outcome
                row.resolved = e.version
            session.add(row)


def open_disputes(session: Session, game_id: str) -> list[Dispute]:
    """The game's open disputes, oldest first (through the ``(game_id, status)`` index)."""
    return list(
        session.exec(
            select(Dispute)
            .where(Dispute.game_id == game_id, Dispute.status == "open")
            .order_by(col(Dispute.dispute))
        ).all()
    )


def answerable(rows: Sequence[Dispute], seat: int | None) -> list[Dispute]:
    """The open disputes ``seat`` may still answer: another seat's, not answered by it yet
    (``seat`` None: every open one)."""
    if seat is None:
        return list(rows)
    return [r for r in rows if r.seat != seat and str(seat) not in json.loads(r.answers)]


#: registered by the composition root (``pbem.app.bootstrap.register_features``)
READ_MODEL = ReadModel(Dispute, "game_id", ("dispute",), project)
