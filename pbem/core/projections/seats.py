"""The ``seats`` read model: each seat's player, address and whether it resigned. An open seat
has no row until a player takes it (``SeatTaken``); a seat handed to a substitute (an event of
``SeatPlayerChanged``'s kind) names its new player."""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import Session

from pbem.core import events as ev
from pbem.core.models import Seat


def project(
    session: Session, game_id: str, events: Sequence[ev.StoredEvent], to_act: frozenset[int]
) -> None:
    for e in events:
        p = e.payload
        if isinstance(p, ev.GameCreated):
            session.add_all(
                Seat(game_id=game_id, seat=s.seat, name=s.name, email=s.email, resigned=False)
                for s in p.seats
            )
            session.flush()  # a resignation later in the same events finds them
        elif isinstance(p, ev.SeatTaken):
            session.add(
                Seat(game_id=game_id, seat=p.seat, name=p.name, email=p.email, resigned=False)
            )
            session.flush()
        elif isinstance(p, ev.PlayerResigned):
            seat = session.get(Seat, (game_id, p.seat))
            if seat is not None:
                seat.resigned = True
                session.add(seat)
        elif isinstance(p, ev.SeatPlayerChanged):
            seat = session.get(Seat, (game_id, p.seat))
            if seat is not None:
                seat.name = p.new_name
                seat.email = p.new_email
                session.add(seat)
