"""The read models of rematches: ``rematch_proposals`` from the finished game's rematch
events, ``rematch_origins`` from the new game's ``RematchOf``."""

from __future__ import annotations

import json
from collections.abc import Sequence

from sqlmodel import Session, col, select

from pbem.core import events as ev
from pbem.core.models import Seat
from pbem.core.projections.runner import ReadModel
from pbem.rematch import events as re
from pbem.rematch.models import RematchOrigin, RematchProposal

#: where a proposal stands
OPEN = "open"
DECLINED = "declined"
AGREED = "agreed"
STARTED = "started"


def project_proposals(
    session: Session, game_id: str, events: Sequence[ev.StoredEvent], to_act: frozenset[int]
) -> None:
    for e in events:
        p = e.payload
        if isinstance(p, re.RematchProposed):
            session.add(
                RematchProposal(
                    game_id=game_id,
                    proposal=e.version,
                    seat=p.seat,
                    seating=p.seating,
                    status=OPEN,
                    agreed_by=ev.canonical_json([p.seat]),
                )
            )
            session.flush()  # an agreement later in the same events finds it
            continue
        if not isinstance(p, re.RematchAgreed | re.RematchDeclined | re.RematchStarted):
            continue
        row = session.get(RematchProposal, (game_id, p.proposal))
        if row is None:
            continue
        if isinstance(p, re.RematchAgreed):
            agreed = [*json.loads(row.agreed_by), p.seat]
            row.agreed_by = ev.canonical_json(sorted(set(agreed)))
            # Every seat agreed: the new game is being created (``RematchStarted`` follows).
            if len(set(agreed)) == len(_seats(session, game_id)):
                row.status = AGREED
        elif isinstance(p, re.RematchDeclined):
            row.status = DECLINED
            row.declined_by = p.seat
        else:
            row.status = STARTED
            row.new_game_id = p.game_id
        session.add(row)


def _seats(session: Session, game_id: str) -> list[int]:
    return list(session.exec(select(Seat.seat).where(col(Seat.game_id) == game_id)).all())


def project_origin(
    session: Session, game_id: str, events: Sequence[ev.StoredEvent], to_act: frozenset[int]
) -> None:
    for e in events:
        if isinstance(p := e.payload, re.RematchOf):
            session.add(RematchOrigin(game_id=game_id, of_game_id=p.game_id, proposal=p.proposal))


#: registered by the composition root (``pbem.app.bootstrap.register_features``), after the
#: core's ``seats`` (a proposal counts the game's seats)
READ_MODELS = (
    ReadModel(RematchProposal, "game_id", ("proposal",), project_proposals),
    ReadModel(RematchOrigin, "game_id", ("of_game_id",), project_origin),
)
