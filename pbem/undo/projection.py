"""The ``undo_requests`` read model: each request for a consented undo and where it stands
(open, accepted, declined, lapsed), with the seats that accepted so far; and the request
waiting for answers, as a write transaction on the game sees it (``waiting_request``)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from sqlmodel import Session

from pbem.core import events as ev
from pbem.core.models import UndoRequest
from pbem.core.projections.runner import ReadModel
from pbem.undo import events as undo_events


def project(
    session: Session, game_id: str, events: Sequence[ev.StoredEvent], to_act: frozenset[int]
) -> None:
    for e in events:
        if e.type not in _TYPES:
            continue
        p = e.payload
        if isinstance(p, undo_events.UndoRequested):
            made = UndoRequest(
                game_id=game_id,
                request=e.version,
                seat=p.seat,
                to_version=p.to_version,
                status="open",
                accepted_by="[]",
            )
            session.add(made)
            session.flush()  # a decision later in the same events finds it
            _remember_waiting(session, game_id, made)
            continue
        request = (
            p.request if isinstance(p, undo_events.UndoDecided | undo_events.UndoLapsed) else None
        )
        if isinstance(p, ev.ActionsRetracted):
            request = p.request
        row = session.get(UndoRequest, (game_id, request)) if request is not None else None
        if row is None:
            continue
        if isinstance(p, undo_events.UndoDecided):
            if p.accept:
                row.accepted_by = ev.canonical_json(sorted({*json.loads(row.accepted_by), p.seat}))
            else:
                row.status = "declined"
        elif isinstance(p, ev.ActionsRetracted):
            row.status = "accepted"
        else:
            row.status = "lapsed"
        session.add(row)
        if row.status != "open" and _known(session).get(game_id) is row:
            _remember_waiting(session, game_id, None)


_TYPES = {
    undo_events.UNDO_REQUESTED,
    undo_events.UNDO_DECIDED,
    undo_events.UNDO_LAPSED,
    ev.ACTIONS_RETRACTED,
}


#: ``session.info`` key: game id -> its undo request waiting for answers (None: none), as this
#: write transaction read it with the game's lock and its appends changed it since
_WAITING = "pbem.undo_requests.waiting"


def _known(session: Session) -> dict[str, UndoRequest | None]:
    known: dict[str, UndoRequest | None] = session.info.setdefault(_WAITING, {})
    return known


def waiting_request(session: Session, game_id: str) -> UndoRequest | None:
    """The game's undo request waiting for answers, in a write transaction on it: the one read
    with the game's lock (``ReadModel.preload``), or the one its appends made since (None when
    they decided it or let it lapse). A transaction creating the game has none; outside a
    write transaction, ``rules.open_request`` reads it."""
    return _known(session).get(game_id)


def _remember_waiting(session: Session, game_id: str, row: UndoRequest | None) -> None:
    """What this transaction knows of the game's request waiting (read with the game, or made
    or ended by its appends). The row is the session's own object: the identity map gives
    the projection's later reads of it that very object."""
    _known(session)[game_id] = row


def _forget_waiting(session: Session) -> None:
    """Forget the requests read (their table is about to be rewritten)."""
    session.info.pop(_WAITING, None)


#: registered by the composition root (``pbem.app.bootstrap.register_features``); its open
#: row is read with the game's when a write transaction locks it, since every append asks
#: for it (its lapse rule, ``rules.lapse_waiting_request``, and its mails).
READ_MODEL = ReadModel(
    UndoRequest,
    "game_id",
    ("request",),
    project,
    preload=_remember_waiting,
    preload_where=(("status", "open"),),
    forget=_forget_waiting,
)
