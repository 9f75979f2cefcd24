"""The application service: create games, submit actions, undo, resign, load any version.

``GameService`` is the interface the web API, the CLI, the mail engineer's inbound mail and
the scheduler all use. The write path it shares is in ``pbem.core``; undo in ``pbem.undo``.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from engine.core import (
    ActionSyntaxError,
    ConfigError,
    EngineError,
    IllegalActionError,
    NotYourTurnError,
)
from pbem import events as ev
from pbem import store
from pbem.clock import format_time
from pbem.core import StalePolicy, Txn, game_or_404, hash_at
from pbem.errors import (
    AgainstTheRules,
    BadRequest,
    Conflict,
    Forbidden,
    ServiceError,
    StaleVersion,
    Unreadable,
)
from pbem.models import Game, IdempotencyKey, Seat
from pbem.playing import action_event, auto_moves, check_players, seats_text, token_hash
from pbem.results import (
    AppendContext,
    Applied,
    Created,
    CreatedSeat,
    Listener,
    Loaded,
    SeatInfo,
    SubmitResult,
)
from pbem.store import StoredEvent
from pbem.undo import UndoOps, UndoResult
from pbem.views import describe, visible_events

#: The longest idempotency key (the column's size).
MAX_KEY = 200

__all__ = [
    "AppendContext",
    "Applied",
    "Created",
    "CreatedSeat",
    "GameService",
    "Listener",
    "Loaded",
    "SeatInfo",
    "StalePolicy",
    "SubmitResult",
    "UndoResult",
]


class GameService(UndoOps):
    """Create games, read them as a seat may see them, and change them (see ``ServiceCore``
    for the constructor: ``GameService(db, settings, clock, registry, listeners)``)."""

    # -- creating -------------------------------------------------------------------------

    def create_game(
        self,
        game: str,
        config: Mapping[str, Any],
        players: Sequence[Mapping[str, Any]],
        *,
        channel: str = "api",
    ) -> Created:
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
            config_text = ev.canonical_json(normalised)
        except ConfigError as e:
            raise BadRequest(f"The config is not valid for {game}: {e}") from None
        except ev.EventDataError as e:
            raise BadRequest(f"The config cannot be stored: {e}.") from None
        tokens = [secrets.token_urlsafe(24) for _ in seats]
        admin_token = secrets.token_urlsafe(24)
        now = format_time(self.clock.now())
        new_events = [
            ev.NewEvent(
                ev.GAME_CREATED,
                {
                    "game": game,
                    "rules_version": rules.version,
                    "config": normalised,
                    "seats": [{"seat": i, **s} for i, s in enumerate(seats)],
                    "seed_commitment": ev.seed_commitment(seed),
                    "channel": channel,
                },
            ),
            ev.NewEvent(ev.GAME_STARTED, {"to_act": sorted(rules.to_act(state))}),
        ]
        for _ in range(5):  # a new random id; retried on the (unlikely) collision
            game_id = secrets.token_hex(5)
            try:
                with self.db.write() as session:
                    row = Game(
                        id=game_id,
                        game=game,
                        rules_version=rules.version,
                        config=config_text,
                        seed=str(seed),
                        seed_commitment=ev.seed_commitment(seed),
                        version=0,
                        head_hash=ev.GENESIS_HASH,
                        to_act="[]",
                        admin_token_hash=token_hash(admin_token),
                        created_at=now,
                        updated_at=now,
                    )
                    session.add(row)
                    seat_rows = [
                        Seat(game_id=game_id, seat=i, token_hash=token_hash(t), **s)
                        for i, (s, t) in enumerate(zip(seats, tokens, strict=True))
                    ]
                    session.add_all(seat_rows)
                    session.flush()
                    txn = Txn(session, row, rules, seat_rows, None)
                    stored = self._commit(txn, new_events, state)
                break
            except IntegrityError:
                continue
        else:
            raise ServiceError("Could not allocate a game id; please try again.")
        return Created(
            id=game_id,
            version=stored[-1].version,
            head_hash=stored[-1].hash,
            seats=tuple(
                CreatedSeat(i, s["name"], s["email"], t)
                for i, (s, t) in enumerate(zip(seats, tokens, strict=True))
            ),
            admin_token=admin_token,
        )

    # -- reading --------------------------------------------------------------------------

    def load(self, game_id: str, at: int | None = None) -> Loaded:
        with self.db.read() as session:
            game = game_or_404(session, game_id)
            return self._loaded(session, game, at)

    def _loaded(self, session: Session, game: Game, at: int | None) -> Loaded:
        rules = self.rules_for(game.game)
        version = game.version if at is None else at
        if not 1 <= version <= game.version:
            raise BadRequest(
                f"Version {at} does not exist: this game has versions 1 to {game.version}."
            )
        state = self._state_at(session, game, rules, version)
        seats = session.exec(
            select(Seat).where(Seat.game_id == game.id).order_by(col(Seat.seat))
        ).all()
        outcome = json.loads(game.outcome) if game.outcome and version == game.version else None
        finished = game.finished and version == game.version
        return Loaded(
            game_id=game.id,
            game=game.game,
            rules=rules,
            state=state,
            version=version,
            head_hash=game.head_hash
            if version == game.version
            else hash_at(session, game, version),
            seats=tuple(SeatInfo(s.seat, s.name, s.email, s.resigned) for s in seats),
            finished=finished,
            outcome=outcome,
            at_head=version == game.version,
        )

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

    def seat_for_token(self, game_id: str, token: str | None) -> int:
        """The seat a bearer token belongs to in this game, or Forbidden."""
        if not token:
            raise Forbidden("This needs your seat token: send 'Authorization: Bearer <token>'.")
        with self.db.read() as session:
            seat = session.exec(
                select(Seat.seat).where(
                    Seat.game_id == game_id, Seat.token_hash == token_hash(token)
                )
            ).first()
            if seat is None:
                game_or_404(session, game_id)  # a 404 says more than a 403 when there is none
                raise Forbidden("This token is not a seat token of this game.")
        return seat

    def is_admin(self, game_id: str, token: str | None) -> bool:
        with self.db.read() as session:
            game = game_or_404(session, game_id)
        return bool(token) and secrets.compare_digest(
            game.admin_token_hash, token_hash(token or "")
        )

    def list_games(self, limit: int = 100) -> list[dict[str, Any]]:
        with self.db.read() as session:
            games = session.exec(
                select(Game).order_by(col(Game.updated_at).desc()).limit(limit)
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
    ) -> SubmitResult:
        """Apply the command lines of ``text`` in order, in one transaction."""
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
            with self.db.write() as session:
                txn = self._begin(session, game_id)
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
                stored = self._commit(txn, new_events, state)
                version = stored[-1].version
                applied_rows = tuple(
                    Applied(e.version, e.data["seat"], e.data["text"], e.data["canonical"], line)
                    for e, line in zip(
                        [e for e in stored if e.type == ev.ACTION_APPLIED], applied, strict=True
                    )
                )
                result = SubmitResult(game_id, version, applied_rows, txn.game.finished, error)
                loaded = txn.loaded()
                if idempotency_key is not None:
                    session.add(
                        IdempotencyKey(
                            game_id=game_id,
                            key=idempotency_key,
                            seat=seat,
                            request_hash=request_hash,
                            result=ev.canonical_json(result.to_json()),
                            created_at=received,
                        )
                    )
                    session.flush()
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
        txn: Txn,
        seat: int,
        lines: Sequence[str],
        channel: str,
        channel_ref: str | None,
        received: str,
    ) -> tuple[list[ev.NewEvent], list[int], Any, ServiceError | None]:
        rules, state = txn.rules, txn.state
        new_events: list[ev.NewEvent] = []
        applied: list[int] = []
        error: ServiceError | None = None
        for number, line in enumerate(lines, start=1):
            if not rules.to_act(state):
                error = Conflict(f"Line {number} was not applied: the game is over.")
                break
            if seat not in rules.to_act(state):
                error = AgainstTheRules(
                    f"Line {number} ({line[:60]!r}) was not applied: it is not your turn now; "
                    f"waiting for {seats_text(rules.to_act(state))}.",
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
        with self.db.write() as session:
            txn = self._begin(session, game_id)
            self._check_can_act(txn, seat)
            received = format_time(self.clock.now())
            for s in txn.seats:
                if s.seat == seat:
                    s.resigned = True
            new_events = [
                ev.NewEvent(
                    ev.PLAYER_RESIGNED,
                    {"seat": seat, "channel": channel, "channel_ref": channel_ref},
                )
            ]
            active = [s.seat for s in txn.seats if not s.resigned]
            state = txn.state
            if len(active) <= 1:
                outcome = {
                    "scores": [],
                    "winners": active,
                    "breakdown": [],
                    "resigned": sorted(txn.resigned),
                }
                new_events.append(
                    ev.NewEvent(
                        ev.GAME_FINISHED,
                        {"outcome": outcome, "seed": txn.game.seed, "reason": "resignation"},
                    )
                )
            else:
                auto, state = auto_moves(txn.rules, state, txn.resigned, received)
                new_events.extend(auto)
                new_events.extend(self._finish(txn, state))
            stored = self._commit(txn, new_events, state)
            return SubmitResult(game_id, stored[-1].version, (), txn.game.finished)


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
