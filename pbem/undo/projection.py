"""The ``undo_requests`` read model: each request for a consented undo and where it stands
(open, accepted, declined, lapsed), with the seats that accepted so far."""

from __future__ import annotations

import json
from collections.abc import Sequence

from sqlmodel import Session

from pbem.core import events as ev
from pbem.core.models import UndoRequest
from pbem.core.projections.runner import ReadModel


def project(
    session: Session, game_id: str, events: Sequence[ev.StoredEvent], to_act: frozenset[int]
) -> None:
    for e in events:
        if e.type not in _TYPES:
            continue
        p = e.payload
        if isinstance(p, ev.UndoRequested):
            session.add(
                UndoRequest(
                    game_id=game_id,
                    request=e.version,
                    seat=p.seat,
                    to_version=p.to_version,
                    status="open",
                    accepted_by="[]",
                )
            )
            session.flush()  # a decision later in the same events finds it
            continue
        request = p.request if isinstance(p, ev.UndoDecided | ev.UndoLapsed) else None
        if isinstance(p, ev.ActionsRetracted):
            request = p.request
        row = session.get(UndoRequest, (game_id, request)) if request is not None else None
        if row is None:
            continue
        if isinstance(p, ev.UndoDecided):
            if p.accept:
                row.accepted_by = ev.canonical_json(sorted({*json.loads(row.accepted_by), p.seat}))
            else:
                row.status = "declined"
        elif isinstance(p, ev.ActionsRetracted):
            row.status = "accepted"
        else:
            row.status = "lapsed"
        session.add(row)


_TYPES = {ev.UNDO_REQUESTED, ev.UNDO_DECIDED, ev.UNDO_LAPSED, ev.ACTIONS_RETRACTED}


#: registered by the composition root (``pbem.app.bootstrap.register_features``)
READ_MODEL = ReadModel(UndoRequest, "game_id", ("request",), project)
