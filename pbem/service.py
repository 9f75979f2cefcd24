"""The application service: one method per command (create a game, submit actions, undo,
decide an undo request, resign, and the administrator's resign-a-seat and end-the-game), and
the queries every entry point asks (a game at a version, its log as a seat may see it).

Each command opens a unit of work (``pbem.unit_of_work``) on the game, asks the engine, and
appends the events; the projections and listeners run in that same transaction. Built by
``pbem.bootstrap``.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from sqlalchemy import insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from engine.core import (
    ActionSyntaxError,
    ConfigError,
    EngineError,
    IllegalActionError,
    NotYourTurnError,
    Rules,
    action_from_json,
)
from pbem import credentials, game_requests, invitations, store
from pbem import events as ev
from pbem import undo as undo_rules
from pbem.actions import action_event, auto_moves, check_players
from pbem.cache import StateCache
from pbem.clock import Clock, format_time
from pbem.db import Database
from pbem.disputes import Disputes
from pbem.errors import (
    AgainstTheRules,
    BadRequest,
    Conflict,
    Forbidden,
    GameNotFound,
    ServiceError,
    StaleVersion,
    Unauthorized,
    Unreadable,
    error_from_json,
)
from pbem.events import StoredEvent
from pbem.models import Game, IdempotencyKey, Seat
from pbem.naming import names_for
from pbem.repository import Loaded, Repository, SeatInfo, game_or_404
from pbem.settings import Settings
from pbem.unit_of_work import Listener, Transactions, UnitOfWork
from pbem.views import describe, visible_events

#: The longest idempotency key (the column's size).
MAX_KEY = 200

#: How a submission made on an older version is judged (see ``GameService._check_version``):
#: ``strict`` (the JSON API) refuses it; ``own_moves_ok`` accepts it when only this seat
#: acted since; ``same_decision`` (replies by mail, seat-page forms) also accepts it when
#: nothing that bears on this seat's decision changed since.
StalePolicy = Literal["strict", "own_moves_ok", "same_decision"]

#: The channel of what the game's administrator does.
ADMIN_CHANNEL = "cli"


@dataclass(frozen=True)
class CreatedSeat:
    seat: int
    name: str
    email: str | None
    token: str


@dataclass(frozen=True)
class Created:
    id: str
    version: int
    head_hash: str
    seats: tuple[CreatedSeat, ...]
    admin_token: str


@dataclass(frozen=True)
class Applied:
    version: int
    seat: int
    text: str
    canonical: str
    #: 1-based line of the submission; 0 for an action the service played (resigned seat)
    line: int


@dataclass(frozen=True)
class SubmitResult:
    game_id: str
    version: int
    applied: tuple[Applied, ...]
    finished: bool
    #: the error that stopped a multi-line submission after some lines were applied
    error: ServiceError | None = None
    #: True when this is the stored result of an earlier submission with the same key
    replayed: bool = False
    #: the game right after this submission (not for replayed results)
    loaded: Loaded | None = field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "version": self.version,
            "applied": [a.__dict__ for a in self.applied],
            "finished": self.finished,
            "error": self.error.to_json() if self.error else None,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], replayed: bool = False) -> SubmitResult:
        return cls(
            game_id=data["game_id"],
            version=data["version"],
            applied=tuple(Applied(**a) for a in data["applied"]),
            finished=data["finished"],
            error=error_from_json(data["error"]) if data["error"] else None,
            replayed=replayed,
        )


@dataclass(frozen=True)
class UndoResult:
    game_id: str
    version: int
    #: retracted | requested | accepted (waiting for others) | declined
    status: str
    request: int | None
    retracted: tuple[int, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "version": self.version,
            "status": self.status,
            "request": self.request,
            "retracted": list(self.retracted),
        }


class GameService:
    """The commands and queries on games (built by ``pbem.bootstrap.build_service``)."""

    def __init__(
        self,
        db: Database,
        settings: Settings,
        clock: Clock,
        repository: Repository,
        transactions: Transactions,
    ) -> None:
        self.db = db
        self.settings = settings
        self.clock = clock
        self.repository = repository
        self.transactions = transactions
        #: opening, answering and resolving disputes (``pbem.disputes``)
        self.disputes = Disputes(self)

    @property
    def listeners(self) -> list[Listener]:
        """The listeners every append runs in its transaction (the mail outbox)."""
        return self.transactions.listeners

    @property
    def cache(self) -> StateCache:
        """The states recently folded (a cache: clearing it changes no answer)."""
        return self.repository.cache

    @property
    def registry(self) -> Mapping[str, Rules]:
        return self.repository.registry

    def rules_for(self, game: str) -> Rules:
        return self.repository.rules_for(game)

    # -- creating -------------------------------------------------------------------------

    def create_game(
        self,
        game: str,
        config: Mapping[str, Any],
        players: Sequence[Mapping[str, Any]],
        *,
        channel: str = "api",
        private: bool = False,
        idempotency_key: str | None = None,
        requester: str | None = None,
        organiser_key: str | None = None,
    ) -> Created:
        """``private``: only the seats and the admin will see the game (``can_see``).
        ``idempotency_key``: a retry with the same key and request gets the same game.
        ``requester``: who asks (a client address), for the rate limit of invitations;
        ``organiser_key``: needed when the settings list organiser keys."""
        asker = invitations.requester_for(self.settings, organiser_key, requester)
        game_requests.check_key(idempotency_key)
        rules = self.rules_for(game)
        seats = check_players(players, rules)
        if "players" in config and config["players"] != len(seats):
            raise BadRequest(
                f"The config says {config['players']} players but {len(seats)} were named."
            )
        try:
            normalised = rules.validate_config({**config, "players": len(seats)})
            seed = secrets.randbits(128)
            state = rules.initial_state(normalised, seed)
            ev.canonical_json(normalised)  # refuses what cannot be stored, before anything is
        except ConfigError as e:
            raise BadRequest(f"The config is not valid for {game}: {e}") from None
        except ev.EventDataError as e:
            raise BadRequest(f"The config cannot be stored: {e}.") from None
        hashed_request = game_requests.request_hash(game, normalised, seats, private)
        hashed_key = None
        if idempotency_key is None:
            tokens = [credentials.new_token() for _ in seats]
            admin_token = credentials.new_token()
        else:
            hashed_key = game_requests.key_hash(idempotency_key, asker)
            tokens, admin_token = game_requests.derived_tokens(
                self.settings.secret_key, hashed_key, len(seats)
            )

        def answer(game_id: str, version: int, head_hash: str) -> Created:
            return Created(
                id=game_id,
                version=version,
                head_hash=head_hash,
                seats=tuple(
                    CreatedSeat(i, s["name"], s["email"], t)
                    for i, (s, t) in enumerate(zip(seats, tokens, strict=True))
                ),
                admin_token=admin_token,
            )

        def earlier() -> Created | None:
            if hashed_key is None:
                return None
            with self.db.read() as session:
                row = game_requests.find(session, hashed_key, hashed_request)
                if row is None:
                    return None
                game_requests.check_tokens(session, row.game_id, tokens)
                return answer(row.game_id, row.version, row.head_hash)

        if (replayed := earlier()) is not None:
            return replayed
        for _ in range(5):  # a new random id; retried on the (unlikely) collision
            game_id = secrets.token_hex(5)
            try:
                with self.transactions.creating(game_id, rules, None) as work:
                    invited = invitations.to_invite(work.session, [s["email"] for s in seats])
                    invitations.check_limits(
                        work.session,
                        self.settings,
                        self.clock.now(),
                        asker,
                        [seats[i]["email"] for i in invited],
                    )
                    new_events: list[ev.Payload] = [
                        ev.GameCreated(
                            game=game,
                            rules_version=rules.version,
                            config=normalised,
                            seats=tuple(
                                ev.SeatEntry(i, s["name"], s["email"]) for i, s in enumerate(seats)
                            ),
                            seed_commitment=ev.seed_commitment(seed),
                            channel=channel,
                            private=private,
                            invited=invited,
                        ),
                        ev.GameStarted(to_act=tuple(sorted(rules.to_act(state)))),
                    ]
                    credentials.keep(work.session, game_id, seed, admin_token, tokens)
                    stored = work.append(new_events, state)
                    game_requests.record(
                        work.session,
                        game_id,
                        asker,
                        len(invited),
                        hashed_key,
                        hashed_request,
                        stored[-1],
                    )
                break
            except (IntegrityError, store.VersionTaken):
                # Perhaps the same request, retried at the same moment, won: its answer.
                if (replayed := earlier()) is not None:
                    return replayed
                continue
        else:
            raise ServiceError("Could not allocate a game id; please try again.")
        return answer(game_id, stored[-1].version, stored[-1].hash)

    def accept_invitation(self, game_id: str, seat: int, *, channel: str) -> bool:
        """The seat's player accepts its invitation (``pbem.invitations``); False when there
        was none waiting."""
        return invitations.accept(self.transactions, game_id, seat, channel)

    def invitation_waiting(self, game_id: str, seat: int) -> bool:
        with self.db.read() as session:
            return invitations.is_waiting(session, game_id, seat)

    def was_invited(self, game_id: str, seat: int) -> bool:
        with self.db.read() as session:
            return invitations.was_invited(session, game_id, seat)

    # -- reading --------------------------------------------------------------------------

    def load(self, game_id: str, at: int | None = None) -> Loaded:
        with self.db.read() as session:
            game = game_or_404(session, game_id)
            return self._loaded(session, game, at)

    def _loaded(self, session: Session, game: Game, at: int | None) -> Loaded:
        return self.repository.loaded(session, game, at)

    def events(
        self, game_id: str, after: int = 0, viewer_seat: int | None = None
    ) -> list[dict[str, Any]]:
        """The log after version ``after`` as ``viewer_seat`` may see it."""
        with self.db.read() as session:
            game = game_or_404(session, game_id)
            names = self._loaded(session, game, None).names
            return visible_events(store.read(session, game_id), viewer_seat, after, names=names)

    def raw_events(self, game_id: str) -> list[StoredEvent]:
        """Every event in full (operators: export, audit). Never send this to a player."""
        with self.db.read() as session:
            game_or_404(session, game_id)
            return store.read(session, game_id)

    def has_event_from(self, game_id: str, channel_ref: str) -> bool:
        """Whether an event of this game came through ``channel_ref`` (e.g. a Message-ID)."""
        with self.db.read() as session:
            return any(
                isinstance(p := e.payload, ev.SEAT_ACTS) and p.channel_ref == channel_ref
                for e in store.read(session, game_id)
            )

    def has_seat(self, game_id: str, seat: int) -> bool:
        return self.seat_info(game_id, seat) is not None

    def seat_info(self, game_id: str, seat: int) -> SeatInfo | None:
        with self.db.read() as session:
            row = session.get(Seat, (game_id, seat))
        return None if row is None else SeatInfo(row.seat, row.name, row.email, row.resigned)

    def plays_somewhere(self, email: str) -> bool:
        """Whether ``email`` is a seat's address in some game."""
        with self.db.read() as session:
            return session.exec(select(Seat.seat).where(Seat.email == email)).first() is not None

    def open_undo_request(self, game_id: str) -> int | None:
        """The undo request of this game waiting for answers (its version), if any."""
        with self.db.read() as session:
            row = undo_rules.open_request(session, game_id)
        return None if row is None else row.request

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
                if _hidden_from(session, game, token):
                    raise _no_such_game(game_id)  # a 403 would confirm the game exists
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
            return seat is not None or not _hidden_from(session, game, token)

    def check_can_see(
        self, game_id: str, *, seat: int | None = None, token: str | None = None
    ) -> None:
        """GameNotFound unless ``can_see``: a private game is not confirmed to exist."""
        if not self.can_see(game_id, seat=seat, token=token):
            raise _no_such_game(game_id)

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
                "players": names.get(g.id, []),
                "updated_at": g.updated_at,
            }
            for g in games
        ]

    # -- submitting -----------------------------------------------------------------------

    def submit(
        self,
        game_id: str,
        seat: int,
        text: str,
        *,
        expected_version: int,
        channel: str,
        channel_ref: str | None = None,
        idempotency_key: str | None = None,
        received_at: Any = None,
        stale_policy: StalePolicy = "strict",
        record: Callable[[Session, SubmitResult], None] | None = None,
    ) -> SubmitResult:
        """Apply the command lines of ``text`` in order, in one transaction.

        ``record``: called in that transaction once something was applied, with the result,
        so that what the caller writes about it (the inbound mail's outcome) commits with the
        move or not at all, without a transaction of its own. It is not called for a
        submission that applies nothing or returns the stored result of an earlier one."""
        if idempotency_key is not None and (
            not 1 <= len(idempotency_key) <= MAX_KEY
            or any(ord(c) < 32 or c == "\x7f" for c in idempotency_key)
        ):
            raise BadRequest(
                f"An idempotency key has 1 to {MAX_KEY} printable characters, without control "
                f"characters (the one sent has {len(idempotency_key)} characters)."
            )
        if "\x00" in text:
            raise Unreadable(
                "The submission contains a NUL character: send the command as plain text.",
            )
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        request_hash = hashlib.sha256(
            ev.canonical_json(
                {"seat": seat, "text": text, "expected_version": expected_version}
            ).encode()
        ).hexdigest()
        received = format_time(received_at or self.clock.now())
        try:
            with self.transactions.on(game_id) as txn:
                session = txn.session
                if idempotency_key is not None:
                    replay = _stored_result(session, game_id, idempotency_key, request_hash)
                    if replay is not None:
                        return replay
                self._check_can_act(txn, seat)
                self._check_version(txn, seat, expected_version, stale_policy)
                if not lines:
                    raise Unreadable(
                        "The submission has no command in it.", self._can_type(txn, seat)
                    )
                if len(lines) > self.settings.max_command_lines:
                    raise BadRequest(
                        f"At most {self.settings.max_command_lines} command lines at once "
                        f"({len(lines)} were sent)."
                    )
                new_events, applied, state, error = self._apply_lines(
                    txn, seat, lines, channel, channel_ref, received
                )
                if not new_events:
                    assert error is not None
                    raise error
                stored = txn.append(new_events, state)
                version = stored[-1].version
                actions = [p for e in stored if isinstance(p := e.payload, ev.ActionApplied)]
                versions = [e.version for e in stored if e.type == ev.ACTION_APPLIED]
                applied_rows = tuple(
                    Applied(v, p.seat, p.text, p.canonical, line)
                    for v, p, line in zip(versions, actions, applied, strict=True)
                )
                result = SubmitResult(game_id, version, applied_rows, txn.finished, error)
                loaded = txn.loaded()
                if idempotency_key is not None:
                    # A plain INSERT (nothing reads the row back in this transaction).
                    session.connection().execute(
                        insert(IdempotencyKey).values(
                            game_id=game_id,
                            key=idempotency_key,
                            seat=seat,
                            request_hash=request_hash,
                            result=ev.canonical_json(result.to_json()),
                            created_at=received,
                        )
                    )
                if record is not None:
                    record(session, result)
        except (IntegrityError, store.VersionTaken):
            # Lost a race the lock should have prevented: the answer is the same as for a
            # stale version (or the stored result, if it was this very request).
            if idempotency_key is not None:
                with self.db.read() as session:
                    replay = _stored_result(session, game_id, idempotency_key, request_hash)
                if replay is not None:
                    return replay
            current = self.load(game_id)
            raise StaleVersion(
                f"The game moved on to version {current.version} while you submitted.",
                current.version,
                describe(current, seat),
            ) from None
        # The game as it is now, so that callers can answer without reading it again.
        return replace(result, loaded=loaded)

    def _apply_lines(
        self,
        txn: UnitOfWork,
        seat: int,
        lines: Sequence[str],
        channel: str,
        channel_ref: str | None,
        received: str,
    ) -> tuple[list[ev.Payload], list[int], Any, ServiceError | None]:
        rules, state = txn.rules, txn.state
        new_events: list[ev.Payload] = []
        applied: list[int] = []
        error: ServiceError | None = None
        for number, line in enumerate(lines, start=1):
            if not rules.to_act(state):
                error = Conflict(f"Line {number} was not applied: the game is over.")
                break
            if seat not in rules.to_act(state):
                names = names_for(rules, state, [s.name for s in txn.seats])
                error = AgainstTheRules(
                    f"Line {number} ({line[:60]!r}) was not applied: it is not your turn now; "
                    f"waiting for {names.many(rules.to_act(state))}.",
                    line=number,
                )
                break
            try:
                action = rules.parse_action(state, seat, line)
                event, state = action_event(
                    rules, state, seat, action, line, channel, channel_ref, received
                )
            except ActionSyntaxError as e:
                can_type = e.can_type or tuple(self._can_type_at(rules, state, seat))
                error = Unreadable(f"{e} (line {number}).", can_type, line=number)
                break
            except (IllegalActionError, NotYourTurnError, EngineError) as e:
                error = AgainstTheRules(f"{e} (line {number}).", line=number)
                break
            new_events.append(event)
            applied.append(number)
            auto, state = auto_moves(rules, state, txn.resigned, received)
            new_events.extend(auto)
            applied.extend(0 for _ in auto)
        new_events.extend(self._finish(txn, state))
        return new_events, applied, state, error

    def resign(
        self, game_id: str, seat: int, *, channel: str, channel_ref: str | None = None
    ) -> SubmitResult:
        """``seat`` leaves the game: its turns are played automatically from now on; when
        one player is left, that player wins."""
        with self.transactions.on(game_id) as txn:
            self._check_can_act(txn, seat)
            return self._resign(txn, seat, channel, channel_ref)

    def _resign(
        self, txn: UnitOfWork, seat: int, channel: str, channel_ref: str | None
    ) -> SubmitResult:
        received = format_time(self.clock.now())
        resigned = txn.resigned | {seat}
        new_events: list[ev.Payload] = [
            ev.PlayerResigned(seat=seat, channel=channel, channel_ref=channel_ref)
        ]
        active = [s.seat for s in txn.seats if s.seat not in resigned]
        state = txn.state
        if len(active) <= 1:
            outcome = {
                "scores": [],
                "winners": active,
                "breakdown": [],
                "resigned": sorted(resigned),
            }
            new_events.append(ev.GameFinished(outcome, self._seed(txn), "resignation"))
        else:
            auto, state = auto_moves(txn.rules, state, resigned, received)
            new_events.extend(auto)
            new_events.extend(self._finish(txn, state))
        stored = txn.append(new_events, state)
        return SubmitResult(txn.game_id, stored[-1].version, (), txn.finished)

    # -- undo -----------------------------------------------------------------------------

    def undo(
        self,
        game_id: str,
        seat: int,
        *,
        to_version: int | None = None,
        expected_version: int | None = None,
        channel: str,
        channel_ref: str | None = None,
    ) -> UndoResult:
        """Take back ``seat``'s latest actions (or go back to ``to_version``): directly when
        only this seat acted since, otherwise by asking every other seat."""
        with self.transactions.on(game_id) as txn:
            self._check_can_act(txn, seat)
            if expected_version is not None:
                self._check_version(txn, seat, expected_version, "strict")
            names = names_for(txn.rules, txn.state, [s.name for s in txn.seats])
            chosen = undo_rules.plan(
                txn.read(), txn.version, seat, to_version, txn.resigned, name_of=names.of
            )
            if txn.open_undo_request() is not None:
                raise Conflict(
                    "Another undo request is waiting for answers; it must be decided first."
                )
            if not chosen.needs_consent:
                event = ev.ActionsRetracted(
                    seat=seat,
                    request=None,
                    to_version=chosen.to_version,
                    versions=tuple(chosen.versions),
                    channel=channel,
                    channel_ref=channel_ref,
                )
                stored = txn.append([event], txn.state_at(chosen.to_version))
                return UndoResult(
                    game_id, stored[-1].version, "retracted", None, tuple(chosen.versions)
                )
            requested = ev.UndoRequested(
                seat=seat,
                to_version=chosen.to_version,
                versions=tuple(chosen.versions),
                channel=channel,
                channel_ref=channel_ref,
            )
            stored = txn.append([requested], txn.state)
            request = stored[-1].version
            return UndoResult(game_id, request, "requested", request, tuple(chosen.versions))

    def decide_undo(
        self,
        game_id: str,
        seat: int,
        request: int,
        accept: bool,
        *,
        channel: str,
        channel_ref: str | None = None,
    ) -> UndoResult:
        with self.transactions.on(game_id) as txn:
            self._check_can_act(txn, seat)
            row = undo_rules.check_decision(txn.session, game_id, seat, request, txn.version)
            decided = ev.UndoDecided(
                request=request, seat=seat, accept=accept, channel=channel, channel_ref=channel_ref
            )
            if not accept:
                stored = txn.append([decided], txn.state, lapse=False)
                return UndoResult(game_id, stored[-1].version, "declined", request, ())
            accepted = {*json.loads(row.accepted_by), seat}
            waiting = {s.seat for s in txn.seats if not s.resigned} - {row.seat} - accepted
            if waiting:
                stored = txn.append([decided], txn.state, lapse=False)
                return UndoResult(game_id, stored[-1].version, "accepted", request, ())
            names = names_for(txn.rules, txn.state, [s.name for s in txn.seats])
            chosen = undo_rules.plan(
                txn.read(),
                txn.version,
                row.seat,
                row.to_version,
                txn.resigned,
                consent=True,
                name_of=names.of,
            )
            retracted = ev.ActionsRetracted(
                seat=row.seat,
                request=request,
                to_version=chosen.to_version,
                versions=tuple(chosen.versions),
                channel=channel,
                channel_ref=channel_ref,
            )
            stored = txn.append([decided, retracted], txn.state_at(chosen.to_version), lapse=False)
            return UndoResult(
                game_id, stored[-1].version, "retracted", request, tuple(chosen.versions)
            )

    # -- administration (guarded by the admin token shown once at creation) ----------------

    def admin_resign(self, game_id: str, admin_token: str | None, seat: int) -> SubmitResult:
        """The administrator resigns ``seat`` for its player (one who left without a word)."""
        with self.transactions.on(game_id) as txn:
            self._check_admin(txn, admin_token)
            self._check_can_act(txn, seat)
            return self._resign(txn, seat, ADMIN_CHANNEL, None)

    def admin_end(self, game_id: str, admin_token: str | None) -> SubmitResult:
        """The administrator ends the game: every seat still playing resigns, so it ends as
        a game every player left (no winner), and its seed is revealed."""
        with self.transactions.on(game_id) as txn:
            self._check_admin(txn, admin_token)
            if txn.finished:
                raise Conflict(f"The game is over (it finished at version {txn.version}).")
            new_events: list[ev.Payload] = [
                ev.PlayerResigned(seat=s.seat, channel=ADMIN_CHANNEL, channel_ref=None)
                for s in txn.seats
                if not s.resigned
            ]
            outcome = {
                "scores": [],
                "winners": [],
                "breakdown": [],
                "resigned": [s.seat for s in txn.seats],
            }
            new_events.append(ev.GameFinished(outcome, self._seed(txn), "resignation"))
            stored = txn.append(new_events, txn.state)
            return SubmitResult(game_id, stored[-1].version, (), True)

    def admin_log(self, game_id: str, admin_token: str | None) -> list[dict[str, Any]]:
        """The whole log with nothing hidden (secret actions, addresses, message ids): what
        an operator sees, for the game's administrator."""
        with self.db.read() as session:
            game = game_or_404(session, game_id)
            if not credentials.is_admin_token(session, game_id, admin_token):
                if _hidden_from(session, game, admin_token):
                    raise _no_such_game(game_id)  # a 403 would confirm the game exists
                raise Forbidden("This needs the game's admin token.")
            names = self._loaded(session, game, None).names
            return visible_events(store.read(session, game_id), None, everything=True, names=names)

    def _check_admin(self, txn: UnitOfWork, admin_token: str | None) -> None:
        if not credentials.is_admin_token(txn.session, txn.game_id, admin_token):
            if txn.game is not None and _hidden_from(txn.session, txn.game, admin_token):
                raise _no_such_game(txn.game_id)  # a 403 would confirm the game exists
            raise Forbidden("This needs the game's admin token.")

    # -- checks shared by the commands ----------------------------------------------------

    def _check_can_act(self, txn: UnitOfWork, seat: int) -> None:
        if not 0 <= seat < len(txn.seats):
            raise Forbidden(f"There is no seat {seat} in this game.")
        if txn.seats[seat].resigned:
            names = names_for(txn.rules, txn.state, [s.name for s in txn.seats])
            raise Forbidden(f"{names.of(seat)} has resigned from this game.")
        if txn.finished:
            raise Conflict(f"The game is over (it finished at version {txn.version}).")

    def _check_version(
        self, txn: UnitOfWork, seat: int, expected: int, policy: StalePolicy
    ) -> None:
        head = txn.version
        if expected == head:
            return
        if 1 <= expected < head:
            # An accepted invitation moves the version but not the game.
            since = [e for e in txn.read(after=expected) if e.type not in ev.BOOKKEEPING]
            if not since:
                return
        if 1 <= expected < head and policy != "strict":
            # A dispute opened or answered since changes nothing on the board.
            since = [
                e
                for e in txn.read(after=expected)
                if e.type not in ev.BOOKKEEPING and not isinstance(e.payload, ev.POSITION_NEUTRAL)
            ]
            if all(isinstance(p := e.payload, ev.ActionApplied) and p.seat == seat for e in since):
                return
            if policy == "same_decision" and self._same_decision(txn, seat, expected, since):
                return
        if expected > head:
            message = f"Version {expected} does not exist yet: the game is at version {head}."
        else:
            message = (
                f"You played on version {expected}, but the game has moved on to version "
                f"{head}. Nothing was applied: look at the game again and resubmit."
            )
        raise StaleVersion(message, head, describe(txn.loaded(), seat))

    def _same_decision(
        self, txn: UnitOfWork, seat: int, expected: int, since: Sequence[StoredEvent]
    ) -> bool:
        """True when the decision ``seat`` made on version ``expected`` is still the one it
        faces (docs/mail.md, "Replies to an older mail").

        Every event since must be an action: the seat's own (it knows its own moves), or
        another seat's that was reversible (no draw, no reveal) and made while this seat
        owed its decision before and after it — a simultaneous decision, such as a secret
        vote or a choice every seat makes at once, which the rules let each seat take
        without seeing the others'. And the seat's legal actions at the head are exactly
        those it had when it last saw the game (or last acted). Anything else — a public
        move made in turn (a county taken), a reveal (a law decided), an undo, a
        resignation — changes what it decides on, and the reply is refused.
        """
        rules = txn.rules
        state = txn.state_at(expected)
        baseline = state
        for e in since:
            p = e.payload
            if not isinstance(p, ev.ActionApplied):
                return False
            if p.seat != seat and (p.irreversible or seat not in rules.to_act(state)):
                return False
            state = rules.apply(state, p.seat, action_from_json(p.action)).state
            if p.seat == seat:
                baseline = state
            elif seat not in rules.to_act(state):
                return False
        return rules.legal_actions(baseline, seat) == rules.legal_actions(txn.state, seat)

    @staticmethod
    def _can_type_at(rules: Rules, state: Any, seat: int) -> list[str]:
        return [rules.format_action(state, a) for a in rules.legal_actions(state, seat)[:12]]

    def _can_type(self, txn: UnitOfWork, seat: int) -> list[str]:
        return self._can_type_at(txn.rules, txn.state, seat)

    def _seed(self, txn: UnitOfWork) -> str:
        return credentials.seed(txn.session, txn.game_id)

    def _finish(self, txn: UnitOfWork, state: Any) -> list[ev.Payload]:
        if txn.rules.to_act(state):
            return []
        outcome = txn.rules.outcome(state)
        return [
            ev.GameFinished(
                outcome=outcome.to_json() if outcome else {"scores": [], "winners": []},
                seed=self._seed(txn),
                reason="rules",
            )
        ]


def _hidden_from(session: Session, game: Game, token: str | None) -> bool:
    """Whether the holder of ``token`` (or of none) may not know this game exists: it is
    private, and the token is neither one of its seats' nor its admin's."""
    if not game.private:
        return False
    if not token:
        return True
    seat = credentials.seat_of_token(session, game.id, token)
    return seat is None and not credentials.is_admin_token(session, game.id, token)


def _no_such_game(game_id: str) -> GameNotFound:
    # The very words of ``game_or_404``: a private game reads as one that does not exist.
    return GameNotFound(f"There is no game {game_id!r}.")


def _stored_result(
    session: Session, game_id: str, key: str, request_hash: str
) -> SubmitResult | None:
    row = session.get(IdempotencyKey, (game_id, key))
    if row is None:
        return None
    if row.request_hash != request_hash:
        raise Conflict(
            "This idempotency key was already used for a different submission; use a new "
            "key for a new submission."
        )
    return SubmitResult.from_json(json.loads(row.result), replayed=True)
