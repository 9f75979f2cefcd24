"""One write transaction on one game: append the events at the expected version, run every
projection (the read models) and every listener (the mail outbox), take a snapshot when one
is due, and commit them together — a move and its consequences commit, or nothing does.

A unit of work is given what it appends with (the time source, the repository, the
listeners) when it is opened, and never reaches back into what opened it; it knows the
read models only through the projections' runner, where the features register theirs, and
what lapses when the game moves on only through the lapse rules the features register
(``register_lapse_rules``: undo's lets a request waiting for answers lapse)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Protocol, cast

from sqlalchemy import Executable, and_, bindparam, text
from sqlalchemy import select as sa_select
from sqlmodel import Session, col

from engine.core import Rules
from pbem.core import events as ev
from pbem.core import store
from pbem.core.db import Database, DriverStatement
from pbem.core.errors import GameNotFound
from pbem.core.events import StoredEvent
from pbem.core.models import Game, IdempotencyKey, Seat
from pbem.core.naming import Names, names_for
from pbem.core.projections import runner as projections
from pbem.core.projections.games import open_after
from pbem.core.repository import Loaded, Repository, SeatInfo, seat_infos, seats_of
from pbem.core.time_source import Clock, format_time


@dataclass(frozen=True)
class AppendContext:
    """What a listener gets, inside the write transaction, after events were appended."""

    session: Session
    game_id: str
    game: str
    events: tuple[StoredEvent, ...]
    rules: Rules
    state_before: Any
    state_after: Any
    version: int
    head_hash: str
    seats: tuple[SeatInfo, ...]
    #: seats open before and after the append (a game waiting for players: nobody acts)
    open_before: int = 0
    open_after: int = 0
    #: what one listener read for the append that a later one needs too, so that it is read
    #: once (the mails' facts carry the webhooks' subscriptions: a round trip less per move
    #: on PostgreSQL)
    shared: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def to_act_before(self) -> frozenset[int]:
        if self.open_before or self.state_before is None:
            return frozenset()
        return self.rules.to_act(self.state_before)

    @property
    def to_act_after(self) -> frozenset[int]:
        return frozenset() if self.open_after else self.rules.to_act(self.state_after)

    @property
    def names(self) -> Names:
        return names_for(self.rules, self.state_after, [s.name for s in self.seats])


class Listener(Protocol):
    def on_appended(self, ctx: AppendContext) -> None: ...


#: A feature's rule of what lapses when the game moves on: given the write transaction's
#: session, the game and the events about to be appended after its head, it returns them
#: with the events saying what lapsed inserted (undo's: ``UndoLapsed`` right after the first
#: event that moves the game on while a request waits for answers, so the log says when).
#: Run on every append that may let something lapse (``UnitOfWork.append``'s ``lapse``) to
#: a game that has a head; it reads what is open from the session (a read model's row read
#: with the game's, ``ReadModel.preload``), so it costs no statement.
LapseRule = Callable[[Session, str, Sequence[ev.Appendable]], list[ev.Appendable]]

#: The lapse rules, in the order they run; filled by the composition root
#: (``pbem.app.bootstrap.register_features``), so this module names no feature.
_LAPSE_RULES: list[LapseRule] = []


def register_lapse_rules(*rules: LapseRule) -> None:
    """Add a feature's lapse rules after those registered before. Registering one again
    changes nothing (the composition root registers them each time it builds a service)."""
    for rule in rules:
        if rule not in _LAPSE_RULES:
            _LAPSE_RULES.append(rule)


@dataclass(frozen=True)
class AppendWith:
    """What every unit of work appends with, given to it when it is opened."""

    #: the injected time: when the events are recorded
    clock: Clock
    #: folds earlier versions, takes the snapshots and remembers the new head
    repository: Repository
    #: run inside the transaction after each append (the list itself: it may change later)
    listeners: list[Listener]


class UnitOfWork:
    """A write transaction on one game, at its head (``state``)."""

    def __init__(
        self,
        session: Session,
        game_id: str,
        rules: Rules,
        game: Game | None,
        seats: list[Seat],
        state: Any,
        append_with: AppendWith,
        kept_result: IdempotencyKey | None = None,
    ) -> None:
        self.session = session
        self.game_id = game_id
        self.rules = rules
        self.game = game
        self.seats = seats
        self.state = state
        self._append_with = append_with
        #: what an earlier submission with this command's idempotency key kept, if any
        self.kept_result = kept_result

    @property
    def version(self) -> int:
        return self.game.version if self.game is not None else 0

    @property
    def head_hash(self) -> str:
        return self.game.head_hash if self.game is not None else ev.GENESIS_HASH

    @property
    def finished(self) -> bool:
        return self.game is not None and self.game.finished

    @property
    def resigned(self) -> set[int]:
        return {s.seat for s in self.seats if s.resigned}

    def seat_infos(self) -> tuple[SeatInfo, ...]:
        return seat_infos(self.seats)

    def loaded(self) -> Loaded:
        """The game at its head, as this transaction sees it."""
        g = self.game
        assert g is not None
        return Loaded(
            g.id, g.game, self.rules, self.state, g.version, g.head_hash, self.seat_infos(),
            g.finished, self.outcome(), True, g.open_seats,
        )  # fmt: skip

    @property
    def waiting(self) -> bool:
        """The game waits for players to take its open seats: nobody acts yet."""
        return self.game is not None and self.game.open_seats > 0

    def outcome(self) -> dict[str, Any] | None:
        return json.loads(self.game.outcome) if self.game and self.game.outcome else None

    def state_at(self, version: int) -> Any:
        assert self.game is not None
        return self._append_with.repository.state_at(self.session, self.game, self.rules, version)

    def read(self, after: int = 0) -> list[StoredEvent]:
        return store.read(self.session, self.game_id, after=after)

    def append(
        self, new_events: Sequence[ev.Appendable], state_after: Any, *, lapse: bool = True
    ) -> list[StoredEvent]:
        """Append ``new_events`` after the head, project them, run the listeners.

        ``lapse``: the events move the game on, so what waits for the players' answers may
        lapse (the lapse rules add the events that say so); False for events that answer or
        comment on the game without moving it on (a decision on a request, a dispute's step,
        a missed deadline, an accepted invitation). A game being created has nothing open."""
        appending, session = self._append_with, self.session
        now = format_time(appending.clock.now())
        before = self.version
        if lapse and self.game is not None:
            for rule in _LAPSE_RULES:
                new_events = rule(session, self.game_id, new_events)
        stored = store.append(session, self.game_id, before, self.head_hash, new_events, now)
        open_before = self.game.open_seats if self.game is not None else 0
        open_seats = open_after(open_before, stored)
        # A game waiting for players asks nobody to act: no deadline, no turn mail.
        to_act = frozenset() if open_seats else self.rules.to_act(state_after)
        projections.project(session, self.game_id, stored, to_act)
        if self.game is None or any(e.type == ev.SEAT_TAKEN for e in stored):
            # (a seat taken: the seats' read model has a row more)
            self.game = session.get(Game, self.game_id)
            self.seats = seats_of(session, self.game_id)
        game = self.game
        assert game is not None
        appending.repository.snapshot_if_due(session, game, self.rules, state_after, before)
        ctx = AppendContext(
            session, game.id, game.game, tuple(stored), self.rules, self.state, state_after,
            game.version, game.head_hash, self.seat_infos(), open_before, open_seats,
        )  # fmt: skip
        for listener in appending.listeners:
            listener.on_appended(ctx)
        session.flush()
        appending.repository.remember(game.id, game.version, game.head_hash, state_after)
        self.state = state_after
        return stored


@dataclass(frozen=True)
class _Locked:
    game: Game
    seats: list[Seat]
    kept_result: IdempotencyKey | None


def _lock_game(session: Session, game_id: str, idempotency_key: str | None) -> _Locked | None:
    """The game's row, locked for this write transaction, with what every command on it
    reads: its seats, what an earlier submission with the command's idempotency key kept,
    and the row each read model that asks for it preloads (``ReadModel.preload``: e.g. a
    timed game's clock, which the projections and the turn mails of every append read, or
    the undo request waiting for answers, which an append that moves the game on lets
    lapse). One read instead of five (the game's row repeats on each seat's row), after the
    lock on PostgreSQL.

    SQLite locks the whole database when the write transaction begins (BEGIN IMMEDIATE), so
    everything read after is current. PostgreSQL locks the game's row first, in a statement
    of its own: a statement that waited for a row lock reads the other tables as they were
    when it began (READ COMMITTED), before the writer it waited for changed them. The lock's
    answer is not read (a game that is not there has no head either): in the pipelined
    write, it goes to the server with the read, in one round trip, and the server runs the
    read once it holds the lock."""
    postgres = session.get_bind().dialect.name == "postgresql"
    if postgres:
        _LOCK_ROW.run(session, {"game_id": game_id})
    preloaded = projections.preloaded()
    params = {"game_id": game_id, "idempotency_key": idempotency_key}
    # (typed as Any: SQLModel's exec is typed for its own select, of at most four entities)
    rows = session.exec(cast(Any, _read_head(preloaded)), params=params).all()
    if not rows:
        return None
    game, _, kept, *preloads = rows[0]
    seats = list({row[1].seat: row[1] for row in rows if row[1] is not None}.values())
    for model, row in zip(preloaded, preloads, strict=True):
        assert model.preload is not None
        model.preload(session, game_id, row)
    return _Locked(game, seats, kept)


_LOCK_ROW = DriverStatement(text("SELECT 1 FROM games WHERE id = :game_id FOR UPDATE"), wait=False)


@cache
def _read_head(preloaded: tuple[projections.ReadModel, ...]) -> Executable:
    """The read of ``_lock_game``, built once for the read models registered (building it
    costs about as much as running it, for every command)."""
    # SQLAlchemy's select: SQLModel's is typed for at most four entities
    statement = (
        sa_select(Game, Seat, IdempotencyKey, *(m.table for m in preloaded))
        .outerjoin(Seat, col(Seat.game_id) == col(Game.id))
        .outerjoin(
            IdempotencyKey,
            and_(
                col(IdempotencyKey.game_id) == col(Game.id),
                col(IdempotencyKey.key) == bindparam("idempotency_key"),
            ),
        )
    )
    for model in preloaded:
        table = model.table
        statement = statement.outerjoin(
            table,
            and_(
                getattr(table, model.game_column) == col(Game.id),
                *(getattr(table, column) == value for column, value in model.preload_where),
            ),
        )
    return statement.where(col(Game.id) == bindparam("game_id")).order_by(col(Seat.seat))


class Transactions:
    """Opens units of work: on an existing game (locked), or on a game being created."""

    def __init__(
        self, db: Database, clock: Clock, repository: Repository, listeners: Sequence[Listener]
    ) -> None:
        self.db = db
        self.repository = repository
        #: run inside the transaction after each append (a list: tests add to it)
        self.listeners = list(listeners)
        self._append_with = AppendWith(clock, repository, self.listeners)

    @contextmanager
    def on(self, game_id: str, *, idempotency_key: str | None = None) -> Iterator[UnitOfWork]:
        """A unit of work on ``game_id``, locked for this transaction, at its head (with what
        an earlier command with ``idempotency_key`` kept, ``kept_result``)."""
        with self.db.pipelined_write() as session:
            locked = _lock_game(session, game_id, idempotency_key)
            if locked is None:
                raise GameNotFound(f"There is no game {game_id!r}.")
            game = locked.game
            rules = self.repository.rules_of(game)
            state = self.repository.state_at(session, game, rules, game.version)
            yield UnitOfWork(
                session, game_id, rules, game, locked.seats, state, self._append_with,
                locked.kept_result,
            )  # fmt: skip

    @contextmanager
    def creating(self, game_id: str, rules: Rules, state: Any) -> Iterator[UnitOfWork]:
        """A unit of work on a game that has no events yet (its first append creates it)."""
        with self.db.write() as session:
            yield UnitOfWork(session, game_id, rules, None, [], state, self._append_with)
