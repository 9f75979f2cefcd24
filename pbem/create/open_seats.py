"""Open seats: a game created with seats for players to join (docs/web.md, "Open seats").

- The organiser names some players or none; the other seats are *open* (GameCreated's
  ``open_seats``, after the named ones). A public game with open seats is listed on the open
  games page (``/games/open``) and in the API (``GET /api/v1/games/open``); a private one
  only through its join link, whose key the organiser is shown once at creation and may
  replace (``revoke_join_link``: the old link stops working).
- Anyone joins by giving a name and an address (``join``): a ``SeatTaken`` event, and the
  seat's token, shown once to the joiner. The address gets the game's mail as any seat's: an
  invitation first when it never played here (``pbem.create.invitations``). The name must
  differ from every other seat's (compared without case, accents' forms or spacing:
  ``same_name``), and an address may hold one seat of a game (compared as the limits compare
  addresses: ``pbem.create.limits.limit_key``) — decided here: a player with two seats would
  see both seats' secrets, and two seats on one address cannot be told apart by mail.
- When the last open seat is taken the game starts: ``GameStarted`` in the same append. The
  organiser (the admin token) may start it before with the players who joined, when the
  rules allow that many (``start_now``): ``SeatsClosed`` (the fold re-initialises the
  state there from the same seed, with the config for that many players) and ``GameStarted``.
- Until it starts, nobody acts, no deadline runs and no turn is mailed (the unit of work
  gives the projections and mails nobody to act: ``pbem.core.projections.games.open_after``).
- Joins are limited (``pbem.create.limits.check_join``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlmodel import col, select

from engine.core import ConfigError
from pbem.app.config import Settings
from pbem.core import events as ev
from pbem.core import store
from pbem.core.db import Database
from pbem.core.errors import AgainstTheRules, BadRequest, Conflict
from pbem.core.fold import fewer_players_config
from pbem.core.models import Game, Seat
from pbem.core.naming import names_for
from pbem.core.time_source import Clock
from pbem.core.unit_of_work import Transactions, UnitOfWork
from pbem.create import events as creation_events
from pbem.create import invitations
from pbem.create import limits as creation_limits
from pbem.create.player_names import same_name
from pbem.play.actions import checked_player
from pbem.play.command_checks import check_admin, no_such_game
from pbem.play.results import Joined
from pbem.seats import credentials

#: Open games listed at most (the newest first).
LISTED = 100


@dataclass(frozen=True)
class OpenGame:
    """A game waiting for players, as the open games page and the join page show it."""

    id: str
    game: str
    #: the players who have a seat so far, in seat order
    players: tuple[str, ...]
    #: the seats in all, and those still open
    seats: int
    open_seats: int
    private: bool
    created_at: str

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "game": self.game,
            "players": list(self.players),
            "seats": self.seats,
            "open_seats": self.open_seats,
            "created_at": self.created_at,
        }


def _seat_count(game: Game) -> int:
    players = json.loads(game.config).get("players")
    return int(players) if isinstance(players, int) else 0


class OpenSeats:
    """Joining open seats and starting a waiting game (part of
    ``pbem.app.service.GameService``)."""

    def __init__(
        self, db: Database, settings: Settings, clock: Clock, transactions: Transactions
    ) -> None:
        self.db = db
        self.settings = settings
        self.clock = clock
        self.transactions = transactions

    # -- reads -----------------------------------------------------------------------------

    def open_games(self, limit: int = LISTED) -> list[OpenGame]:
        """The public games waiting for players, newest first: never a private one, nor one
        that has started or finished."""
        with self.db.read() as session:
            games = session.exec(
                select(Game)
                .where(
                    col(Game.private).is_(False),
                    col(Game.finished).is_(False),
                    col(Game.open_seats) > 0,
                )
                .order_by(col(Game.created_at).desc())
                .limit(limit)
            ).all()
            seats = session.exec(
                select(Seat).where(col(Seat.game_id).in_([g.id for g in games]))
            ).all()
        names: dict[str, list[str]] = {}
        for s in sorted(seats, key=lambda s: s.seat):
            names.setdefault(s.game_id, []).append(s.name)
        return [
            OpenGame(
                g.id,
                g.game,
                tuple(names.get(g.id, [])),
                _seat_count(g),
                g.open_seats,
                g.private,
                g.created_at,
            )
            for g in games
        ]

    def join_info(self, game_id: str, join_key: str | None = None) -> OpenGame:
        """The game as its join page shows it (started or not: the page says so). A private
        game exists only for its join link's key (else GameNotFound, as for any outsider)."""
        with self.db.read() as session:
            game = session.get(Game, game_id)
            if game is None or (
                game.private and not credentials.is_join_key(session, game_id, join_key)
            ):
                raise no_such_game(game_id)
            seats = session.exec(
                select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.seat))
            ).all()
            return OpenGame(
                game.id,
                game.game,
                tuple(s.name for s in seats),
                _seat_count(game),
                0 if game.finished else game.open_seats,
                game.private,
                game.created_at,
            )

    # -- commands --------------------------------------------------------------------------

    def join(
        self,
        game_id: str,
        name: str,
        email: str,
        *,
        channel: str,
        requester: str,
        join_key: str | None = None,
    ) -> Joined:
        """Take the first open seat of ``game_id`` as ``name`` at ``email``. A private game
        needs its join link's ``key`` (without it, GameNotFound: it is not confirmed to
        exist). Conflict when the game has no open seat (full, started or finished), when the
        name is another seat's or the address holds a seat already; TooManyRequests past a
        limit; BadRequest for a name or address the service cannot mail."""
        who = checked_player(name, email, "The player")
        if not who["email"]:
            raise BadRequest(
                "Give an e-mail address: the game's mails (and an invitation, the first time "
                "you play here) go to it."
            )
        name, address = who["name"], who["email"]
        with self.transactions.on(game_id) as txn:
            session = txn.session
            game = txn.game
            assert game is not None
            if game.private and not credentials.is_join_key(session, game_id, join_key):
                raise no_such_game(game_id)  # a 403 would confirm the game exists
            if game.finished:
                raise Conflict("This game is over: its seats can no longer be taken.")
            if not game.open_seats:
                raise Conflict("This game has no open seat left: it is full and has started.")
            for seat in txn.seats:
                if same_name(seat.name, name):
                    raise Conflict(
                        f"{seat.name!r} already plays in this game: choose another name, "
                        "so that the others can tell you apart."
                    )
                if seat.email and creation_limits.limit_key(
                    seat.email
                ) == creation_limits.limit_key(address):
                    raise Conflict(
                        "This address already has a seat in this game: one seat per address."
                    )
            labels = names_for(txn.rules, txn.state, [s.name for s in txn.seats]).labels
            for label in labels:
                if label and same_name(label, name):
                    # "to Red: …" and the mails' "Ann (Red)" would name two seats.
                    raise Conflict(
                        f"{label!r} is a seat's colour in this game: choose another name, "
                        "so that the others can tell you apart."
                    )
            seat_number = len(txn.seats)  # the seats taken are always the first ones
            invited = not invitations.has_played(session, address)
            creation_limits.serialise(session, requester, [address])
            creation_limits.check_join(
                session, self.settings, self.clock.now(), requester, address, invited
            )
            token = credentials.add_seat_token(session, game_id, seat_number)
            new_events: list[ev.Payload] = [
                ev.SeatTaken(
                    seat=seat_number, name=name, email=address, invited=invited, channel=channel
                )
            ]
            started = game.open_seats == 1
            if started:
                new_events.append(_started(txn, txn.state))
            stored = txn.append(new_events, txn.state, lapse=False)
            creation_limits.record_join(
                session, game_id, seat_number, requester, address, invited, stored[-1].recorded_at
            )
            left = game.open_seats
        return Joined(game_id, seat_number, name, address, token, invited, started, left)

    def start_now(self, game_id: str, admin_token: str | None, *, channel: str) -> int:
        """The organiser starts a waiting game with the players who joined (the admin token
        only): ``SeatsClosed`` and ``GameStarted``, when the rules allow that many players
        (AgainstTheRules otherwise). Returns the number of players."""
        with self.transactions.on(game_id) as txn:
            check_admin(txn, admin_token)
            game = txn.game
            assert game is not None
            if game.finished:
                raise Conflict("This game is over.")
            if not game.open_seats:
                raise Conflict("This game has started already: every seat is taken.")
            rules = txn.rules
            players = len(txn.seats)
            if players not in rules.player_counts:
                counts = ", ".join(map(str, rules.player_counts))
                raise AgainstTheRules(
                    f"{rules.name.title()} is played by {counts} players, and {players} "
                    f"{'has' if players == 1 else 'have'} joined: wait for more players."
                )
            created = store.read(txn.session, game_id, upto=1)[0].payload
            assert isinstance(created, ev.GameCreated)
            try:
                config = fewer_players_config(rules, created.config, players)
            except ConfigError as e:
                raise AgainstTheRules(
                    f"The game's options do not allow {players} players: {e}"
                ) from None
            state = rules.initial_state(config, int(credentials.seed(txn.session, game_id)))
            txn.append(
                [
                    ev.SeatsClosed(players=players, config=config, channel=channel),
                    _started(txn, state),
                ],
                state,
            )
            return players

    def revoke_join_link(self, game_id: str, admin_token: str | None) -> str:
        """A new key for the game's join link (the admin token only): the old link no longer
        opens a private game's join page. Returns the new key (its only copy)."""
        with self.transactions.on(game_id) as txn:
            check_admin(txn, admin_token)
            game = txn.game
            assert game is not None
            if not game.open_seats:
                raise Conflict("This game has no open seat: it has no join link to replace.")
            return credentials.replace_join_key(txn.session, game_id)


def _started(txn: UnitOfWork, state: Any) -> creation_events.GameStarted:
    return creation_events.GameStarted(to_act=tuple(sorted(txn.rules.to_act(state))))
