"""Replacing a seat's bearer token (a leaked seat link), with every link and reply address
handed out for the seat, or those links and addresses alone (a leaked mail); the seat's page
and invitation links read back to their seat. The CLI's ``pbem rotate-token`` and ``pbem mail
rotate-key`` and the invitation page call these through the service."""

from __future__ import annotations

from dataclasses import dataclass

from pbem.app.config import Settings
from pbem.core.db import Database
from pbem.core.errors import ServiceError
from pbem.core.models import Game, Seat
from pbem.core.time_source import Clock, format_time
from pbem.create.invitations import is_waiting
from pbem.create.mails import invitation_again
from pbem.mail.outbound.address import INVITATION
from pbem.mail.outbound.compose import (
    new_token_mail,
    rotate_key,
    seat_for_link,
    seat_link,
    seat_reply_address,
)
from pbem.play.queries import GameQueries
from pbem.seats.credentials import replace_seat_token


class NoSuchSeat(LookupError):
    """There is no such seat in such a game."""


@dataclass(frozen=True)
class Rotated:
    """What ``rotate_token`` did: the seat's new ``token``; ``mailed`` when it went to the
    seat's address (a seat whose invitation waits gets its invitation again instead)."""

    name: str
    email: str | None
    token: str
    mailed: bool


class SeatTokens:
    """A seat's token replaced, and its links read back, each in its own transaction."""

    def __init__(
        self, db: Database, settings: Settings, clock: Clock, queries: GameQueries
    ) -> None:
        self.db = db
        self.settings = settings
        self.clock = clock
        self.queries = queries

    def rotate_token(self, game_id: str, seat: int) -> Rotated:
        """Replace ``seat``'s bearer token and mail the seat its new link (or, while its
        invitation waits, the invitation again); every link and reply address handed out
        for the seat goes with it. NoSuchSeat when there is no such seat."""
        now = self.clock.now()
        try:
            loaded = self.queries.load(game_id)
        except ServiceError:  # no such game: NoSuchSeat below
            loaded = None
        with self.db.write() as session:
            game = session.get(Game, game_id)
            row = session.get(Seat, (game_id, seat)) if game is not None else None
            if game is None or row is None:
                raise NoSuchSeat(f"there is no seat {seat} in a game {game_id!r}")
            token = replace_seat_token(session, game_id, seat, format_time(now))
            # Every link and reply address handed out for the seat goes with the token: the
            # invitation's too, or whoever had it could still accept and play the seat.
            rotate_key(session, game_id, seat, now)
            # An invited address that has not accepted gets nothing but its invitation: the
            # invitation again, with the new link, and not the token (it is printed).
            waiting = is_waiting(session, game_id, seat)
            if waiting and row.email and loaded is not None:
                session.add(invitation_again(session, self.settings, loaded, seat, now))
            mailed = bool(row.email) and not waiting
            if mailed and row.email:
                session.add(
                    new_token_mail(
                        self.settings,
                        game=game.game,
                        game_id=game_id,
                        seat=seat,
                        to_name=row.name,
                        to_address=row.email,
                        token=token,
                        now=now,
                        reply_to=seat_reply_address(
                            session, self.settings, game_id, seat, game.version
                        ),
                    )
                )
            return Rotated(row.name, row.email, token, mailed)

    def rotate_reply_key(self, game_id: str, seat: int) -> int:
        """Revoke every reply address and page link handed out to ``seat`` (a leaked mail),
        leaving its token as it is; returns the seat's new key version."""
        with self.db.write() as session:
            return rotate_key(session, game_id, seat, self.clock.now())

    def seat_for_invitation_link(self, game_id: str, link: str) -> int:
        """The seat a signed invitation link opens; Forbidden otherwise."""
        with self.db.read() as session:
            return seat_for_link(session, self.settings, game_id, link, purpose=INVITATION)

    def seat_link(self, game_id: str, seat: int) -> str:
        """The seat's page link, as its mails give it."""
        with self.db.read() as session:
            return seat_link(session, self.settings, game_id, seat)
