"""The read side of the application service: a game at a version, its log as a seat (or the
administrator) may see it, its seats, who a token belongs to, who may see a private game,
and the list of public games. Each query reads in a transaction of its own."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import and_, bindparam
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from engine.core import ActionSyntaxError, EngineError, NotYourTurnError
from pbem.clock import events as ce
from pbem.core import store
from pbem.core.db import Database
from pbem.core.errors import Forbidden, Unauthorized
from pbem.core.events import StoredEvent
from pbem.core.hot_path import fetch_rows
from pbem.core.models import Game, GameSecret, Seat, SeatToken
from pbem.core.repository import GameHead, Loaded, Repository, SeatInfo, game_or_404
from pbem.create import invitations
from pbem.play import seat_acts
from pbem.play.command_checks import hidden_from, no_such_game
from pbem.play.results import OpenUndoRequest
from pbem.play.views import describe, visible_events
from pbem.seats import credentials
from pbem.undo import rules as undo_rules


@dataclass(frozen=True)
class Viewer:
    """Who sent a request on a game, and the game's row and seats as read with it: what a door
    that authenticates by bearer token asks of every request, answered by one read."""

    game: GameHead
    seats: tuple[SeatInfo, ...]
    #: the bearer token sent, if any
    token: str | None
    #: the seat ``token`` opens (None: no token, the admin's, or none of this game's)
    seat: int | None
    #: whether ``token`` is the game's admin token
    admin: bool


#: The one read of ``GameQueries.viewer``: the game's row, each of its seats, the seat the
#: token's hash opens and the admin token's hash. Every move over the API reads it (the GET
#: and the POST), so it runs on the driver (``hot_path.fetch_rows``): through the ORM, the
#: loading of its rows cost more than the rest of a GET.
_VIEWER = (
    # SQLAlchemy's select: SQLModel's is typed for at most four columns
    sa_select(
        col(Game.id),
        col(Game.game),
        col(Game.rules_version),
        col(Game.version),
        col(Game.head_hash),
        col(Game.private),
        col(Game.finished),
        col(Game.outcome),
        col(Seat.seat),
        col(Seat.name),
        col(Seat.email),
        col(Seat.resigned),
        col(SeatToken.seat),
        col(GameSecret.admin_token_hash),
        col(Game.open_seats),
    )
    .outerjoin(Seat, col(Seat.game_id) == col(Game.id))
    .outerjoin(
        SeatToken,
        and_(
            col(SeatToken.game_id) == col(Game.id),
            col(SeatToken.token_hash) == bindparam("token_hash"),
        ),
    )
    .outerjoin(GameSecret, col(GameSecret.game_id) == col(Game.id))
    .where(col(Game.id) == bindparam("game_id"))
    .order_by(col(Seat.seat))
)


class GameQueries:
    """The queries on games (part of ``pbem.app.service.GameService``)."""

    def __init__(self, db: Database, repository: Repository) -> None:
        self.db = db
        self.repository = repository

    def load(self, game_id: str, at: int | None = None) -> Loaded:
        with self.db.read() as session:
            game = game_or_404(session, game_id)
            return self.loaded(session, game, at)

    def loaded(self, session: Session, game: Game, at: int | None) -> Loaded:
        return self.repository.loaded(session, game, at)

    def events(
        self, game_id: str, after: int = 0, viewer_seat: int | None = None
    ) -> list[dict[str, Any]]:
        """The log after version ``after`` as ``viewer_seat`` may see it."""
        with self.db.read() as session:
            game = game_or_404(session, game_id)
            names = self.loaded(session, game, None).names
            return visible_events(store.read(session, game_id), viewer_seat, after, names=names)

    def raw_events(self, game_id: str) -> list[StoredEvent]:
        """Every event in full (operators: export, audit). Never send this to a player."""
        with self.db.read() as session:
            game_or_404(session, game_id)
            return store.read(session, game_id)

    def admin_log(self, game_id: str, admin_token: str | None) -> list[dict[str, Any]]:
        """The whole log with nothing hidden (secret actions, addresses, message ids): what
        an operator sees, for the game's administrator."""
        with self.db.read() as session:
            game = game_or_404(session, game_id)
            if not credentials.is_admin_token(session, game_id, admin_token):
                if hidden_from(session, game, admin_token):
                    raise no_such_game(game_id)  # a 403 would confirm the game exists
                raise Forbidden("This needs the game's admin token.")
            names = self.loaded(session, game, None).names
            return visible_events(store.read(session, game_id), None, everything=True, names=names)

    def has_event_from(self, game_id: str, channel_ref: str) -> bool:
        """Whether an event of this game came through ``channel_ref`` (e.g. a Message-ID)."""
        with self.db.read() as session:
            return any(
                isinstance(p := e.payload, (*seat_acts.SEAT_ACTS, *ce.CLOCK_FROM_CHANNEL))
                and p.channel_ref == channel_ref
                for e in store.read(session, game_id)
            )

    def seat_info(self, game_id: str, seat: int) -> SeatInfo | None:
        with self.db.read() as session:
            row = session.get(Seat, (game_id, seat))
        return None if row is None else SeatInfo(row.seat, row.name, row.email, row.resigned)

    def has_seat(self, game_id: str, seat: int) -> bool:
        return self.seat_info(game_id, seat) is not None

    def plays_somewhere(self, email: str) -> bool:
        """Whether ``email`` is the address of a seat, in some game, that is not waiting on
        an invitation (an address only invited gets nothing but its invitations)."""
        with self.db.read() as session:
            return invitations.has_played(session, email)

    def invitation_waiting(self, game_id: str, seat: int) -> bool:
        with self.db.read() as session:
            return invitations.is_waiting(session, game_id, seat)

    def was_invited(self, game_id: str, seat: int) -> bool:
        with self.db.read() as session:
            return invitations.was_invited(session, game_id, seat)

    def reads_as_action(self, game_id: str, seat: int, line: str) -> bool:
        """Whether the game's rules read ``line`` as an action of this seat, allowed now or
        not (an illegal move is still a move the player meant; prose is not)."""
        loaded = self.load(game_id)
        return reads_as_action(loaded.rules, loaded.state, seat, loaded.to_act, line)

    def open_undo_request(self, game_id: str) -> int | None:
        """The undo request of this game waiting for answers (its version), if any."""
        with self.db.read() as session:
            row = undo_rules.open_request(session, game_id)
        return None if row is None else row.request

    def undo_request(self, game_id: str) -> OpenUndoRequest | None:
        """The undo request waiting for answers, with who agreed and who is still awaited
        (every seat that has not resigned, but the asker, must agree)."""
        with self.db.read() as session:
            row = undo_rules.open_request(session, game_id)
            if row is None:
                return None
            seats = session.exec(select(Seat).where(Seat.game_id == game_id)).all()
        accepted = tuple(sorted(json.loads(row.accepted_by)))
        waiting = tuple(sorted(undo_rules.awaited(row, seats)))
        return OpenUndoRequest(row.request, row.seat, row.to_version, accepted, waiting)

    def seat_for_token(self, game_id: str, token: str | None) -> int:
        """The seat a bearer token belongs to in this game, or Forbidden."""
        if not token:
            raise Forbidden("This needs your seat token: send 'Authorization: Bearer <token>'.")
        with self.db.read() as session:
            seat = credentials.seat_of_token(session, game_id, token)
            if seat is None:
                game = game_or_404(session, game_id)  # a 404 says more than a 403 then
                replaced = credentials.revoked_seat_token(session, game_id, token)
                if replaced is not None:
                    raise Unauthorized(
                        f"This seat token was replaced on {replaced.revoked_at[:10]} at "
                        f"{replaced.revoked_at[11:16]} UTC and "
                        "no longer opens the seat. Use the new seat link mailed to the seat's "
                        "address (or ask the game's organiser for it)."
                    )
                if hidden_from(session, game, token):
                    raise no_such_game(game_id)  # a 403 would confirm the game exists
                raise Forbidden("This token is not a seat token of this game.")
        return seat

    def can_see(self, game_id: str, *, seat: int | None = None, token: str | None = None) -> bool:
        """Whether a viewer may see this game at all: anyone a public one; a private one
        only its seats (``seat``, already authenticated by the caller, or a seat ``token``)
        and its admin (the admin ``token``). False when there is no such game."""
        with self.db.read() as session:
            game = session.get(Game, game_id)
            if game is None:
                return False
            return seat is not None or not hidden_from(session, game, token)

    def check_can_see(
        self, game_id: str, *, seat: int | None = None, token: str | None = None
    ) -> None:
        """GameNotFound unless ``can_see``: a private game is not confirmed to exist."""
        if not self.can_see(game_id, seat=seat, token=token):
            raise no_such_game(game_id)

    def viewer(self, game_id: str, token: str | None) -> Viewer:
        """Who holds ``token`` (or none) in this game, with the game's row and seats, in one
        read. GameNotFound when there is no such game, and when it is private and the token
        is neither one of its seats' nor its admin's (a 403 would confirm it exists)."""
        params = {
            "game_id": game_id,
            "token_hash": credentials.token_hash(token) if token else "",
        }
        with self.db.read() as session:
            rows = fetch_rows(session, _VIEWER, params)
        if not rows:
            raise no_such_game(game_id)
        first = rows[0]
        game = GameHead(
            id=first[0], game=first[1], rules_version=first[2], version=first[3],
            head_hash=first[4], private=bool(first[5]), finished=bool(first[6]),
            outcome=first[7], open_seats=int(first[14]),
        )  # fmt: skip
        token_seat, admin_hash = first[12], first[13]
        admin = bool(token and admin_hash) and secrets.compare_digest(
            admin_hash, credentials.token_hash(cast(str, token))
        )
        if game.private and token_seat is None and not admin:
            raise no_such_game(game_id)
        seats = tuple(
            SeatInfo(row[8], row[9], row[10], bool(row[11])) for row in rows if row[8] is not None
        )
        return Viewer(game, seats, token, token_seat, admin)

    def viewer_seat(self, viewer: Viewer, *, required: bool) -> int | None:
        """The seat ``viewer`` acts as. ``required``: a seat token must have been sent (else
        Forbidden); otherwise no token and the admin's token give None (the public view).
        Any other token is refused, not ignored, with ``seat_for_token``'s words (a replaced
        token is told so)."""
        if viewer.seat is not None:
            return viewer.seat
        if not required and (viewer.token is None or viewer.admin):
            return None
        return self.seat_for_token(viewer.game.id, viewer.token)

    def loaded_for(self, viewer: Viewer) -> Loaded:
        """The game at its head as ``viewer``'s read found it: from the state cache, without
        another read, when it holds that version on the same chain; else read again."""
        loaded = self.repository.cached_head(viewer.game, viewer.seats)
        return loaded if loaded is not None else self.load(viewer.game.id)

    def described(self, loaded: Loaded, seat: int | None) -> dict[str, Any]:
        """``describe(loaded, seat)``, worked out once per version and seat: asked again (a
        seat looking again, a client polling) it is a copy of the answer already made. Keyed
        by the version's hash, the seat and everything else of ``loaded`` it reads (a
        resignation, the end), never shared between seats."""
        key = ("describe", seat, loaded.at_head, loaded.finished, loaded.seats)
        where = (loaded.game_id, loaded.version, loaded.head_hash, key)
        found = self.repository.answers.get(*where)
        if found is not None:
            return cast(dict[str, Any], found)
        described = describe(loaded, seat)
        self.repository.answers.put(*where, described)
        return described

    def is_admin(self, game_id: str, token: str | None) -> bool:
        with self.db.read() as session:
            game_or_404(session, game_id)
            return credentials.is_admin_token(session, game_id, token)

    def list_games(self, limit: int = 100) -> list[dict[str, Any]]:
        with self.db.read() as session:
            # A private game is listed nowhere: only its seats and admin know it exists.
            games = session.exec(
                select(Game)
                .where(col(Game.private).is_(False))
                .order_by(col(Game.updated_at).desc())
                .limit(limit)
            ).all()
            seats = session.exec(
                select(Seat).where(col(Seat.game_id).in_([g.id for g in games]))
            ).all()
        names: dict[str, list[str]] = {}
        for s in sorted(seats, key=lambda s: s.seat):
            names.setdefault(s.game_id, []).append(s.name)
        return [
            {
                "id": g.id,
                "game": g.game,
                "version": g.version,
                "to_act": json.loads(g.to_act),
                "finished": g.finished,
                # seats still open: the game waits for players (``pbem.create.open_seats``)
                "open_seats": g.open_seats,
                "players": names.get(g.id, []),
                "updated_at": g.updated_at,
            }
            for g in games
        ]


def reads_as_action(rules: Any, state: Any, seat: int, to_act: Any, line: str) -> bool:
    """Whether ``rules`` read ``line`` as an action of ``seat``, allowed now or not. A seat
    not to act gets "not your turn" whatever it wrote (Lancaster reads nothing for it), so
    its line is a move when the rules read it as one for a seat to act: "E5" is a move
    played too early, "I'll pass, thanks" or an out-of-office note is no move at all."""
    try:
        rules.parse_action(state, seat, line)
    except NotYourTurnError:
        return any(_reads(rules, state, other, line) for other in sorted(to_act))
    except ActionSyntaxError:
        return False
    except EngineError:
        return True
    return True


def _reads(rules: Any, state: Any, seat: int, line: str) -> bool:
    try:
        rules.parse_action(state, seat, line)
    except (ActionSyntaxError, NotYourTurnError):
        return False
    except EngineError:
        return True
    return True
