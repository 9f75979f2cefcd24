"""The ``seat_handovers`` read model: each proposal to hand a seat to a substitute and where
it stands (open, agreed and waiting for the newcomer, refused, superseded, handed over),
with the seats that agreed so far. The seat's new player in ``seats`` is the core's to
project (``SeatHandedOver`` is a ``SeatPlayerChanged``)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from sqlmodel import Session, col, select

from pbem.core import events as ev
from pbem.core.models import Seat, SeatHandover
from pbem.core.projections.runner import ReadModel
from pbem.core.repository import seat_infos
from pbem.handover import events as he
from pbem.handover.rules import WAITING, awaited


def project(
    session: Session, game_id: str, events: Sequence[ev.StoredEvent], to_act: frozenset[int]
) -> None:
    for e in events:
        if e.type not in _TYPES:
            continue
        p = e.payload
        if isinstance(p, he.SubstituteProposed):
            _supersede(session, game_id)
            row = SeatHandover(
                game_id=game_id,
                proposal=e.version,
                seat=p.seat,
                by_seat=p.by_seat,
                new_name=p.name,
                new_email=p.email,
                status="open",
                agreed_by=ev.canonical_json([] if p.by_seat is None else [p.by_seat]),
            )
            _settle(session, game_id, row, by_administrator=p.by_seat is None)
            session.add(row)
            session.flush()
        elif isinstance(p, he.SubstituteDecided):
            found = session.get(SeatHandover, (game_id, p.proposal))
            if found is None or found.status != "open":
                continue
            if not p.agree:
                found.status = "refused"
            else:
                agreed = set(json.loads(found.agreed_by)) | {p.seat}
                found.agreed_by = ev.canonical_json(sorted(agreed))
                _settle(session, game_id, found, by_administrator=False)
            session.add(found)
        elif isinstance(p, he.SeatHandedOver):
            found = session.get(SeatHandover, (game_id, p.proposal))
            if found is not None:
                found.status = "handed_over"
                found.handed_over = e.version
                session.add(found)


def _settle(session: Session, game_id: str, row: SeatHandover, *, by_administrator: bool) -> None:
    """An open proposal every decider agreed to (or the administrator's) waits for the
    newcomer."""
    if by_administrator:
        row.status = "agreed"
        return
    seats = seat_infos(list(session.exec(select(Seat).where(Seat.game_id == game_id)).all()))
    if not awaited(row, seats):
        row.status = "agreed"


def _supersede(session: Session, game_id: str) -> None:
    """A new proposal (only the administrator's can come while one waits) replaces it."""
    for row in session.exec(
        select(SeatHandover).where(
            SeatHandover.game_id == game_id, col(SeatHandover.status).in_(WAITING)
        )
    ).all():
        row.status = "superseded"
        session.add(row)


_TYPES = {he.SUBSTITUTE_PROPOSED, he.SUBSTITUTE_DECIDED, he.SEAT_HANDED_OVER}

#: registered by the composition root (``pbem.app.bootstrap.register_features``), after
#: ``seats``, which it reads (the old player, and who still decides)
READ_MODEL = ReadModel(SeatHandover, "game_id", ("proposal",), project)
