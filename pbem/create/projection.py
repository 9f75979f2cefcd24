"""The ``invitations`` read model: each seat whose address had never played when its game was
created (GameCreated's ``invited``) or when it took an open seat (SeatTaken's ``invited``), and
when its player accepted (InvitationAccepted)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import Session

from pbem.core import events as ev
from pbem.core.models import Invitation
from pbem.core.projections.runner import ReadModel
from pbem.create import events as creation_events


def project(
    session: Session, game_id: str, events: Sequence[ev.StoredEvent], to_act: frozenset[int]
) -> None:
    for e in events:
        if e.type not in _TYPES and e.type not in ev.SEAT_PLAYER_CHANGES:
            continue
        p = e.payload
        if isinstance(p, ev.GameCreated):
            emails = {s.seat: s.email for s in p.seats}
            session.add_all(
                Invitation(
                    game_id=game_id,
                    seat=seat,
                    address=(emails.get(seat) or "").lower(),
                    invited_at=e.recorded_at,
                )
                for seat in p.invited
            )
            session.flush()  # an acceptance later in the same events finds them
        elif isinstance(p, ev.SeatPlayerChanged):
            # A substitute took the seat over (``pbem.handover``): they accepted by taking
            # it, so an invitation its old player never answered no longer holds its mails.
            row = session.get(Invitation, (game_id, p.seat))
            if row is not None and row.accepted_at is None:
                row.accepted_at = e.recorded_at
                row.accepted_version = e.version
                session.add(row)
        elif isinstance(p, ev.SeatTaken) and p.invited:
            # An open seat taken by an address that never played: invited as at creation.
            session.add(
                Invitation(
                    game_id=game_id, seat=p.seat, address=p.email.lower(), invited_at=e.recorded_at
                )
            )
            session.flush()
        elif isinstance(p, creation_events.InvitationAccepted):
            row = session.get(Invitation, (game_id, p.seat))
            if row is not None and row.accepted_at is None:
                row.accepted_at = e.recorded_at
                row.accepted_version = e.version
                session.add(row)


_TYPES = {ev.GAME_CREATED, ev.SEAT_TAKEN, creation_events.INVITATION_ACCEPTED}


#: registered by the composition root (``pbem.app.bootstrap.register_features``)
READ_MODEL = ReadModel(Invitation, "game_id", ("seat",), project)
