"""The write path shared by every operation of the game service.

Every change is one write transaction that locks the game (``_begin``), checks the version
the client saw, appends events, updates the read models (games, seats, undo requests,
snapshots) and calls the listeners, e.g. the mail outbox, before committing (``_commit``):
a move and its consequences commit together or not at all.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import Table, update
from sqlmodel import Session, col, select

import engine
from engine.core import Rules, action_from_json
from pbem import events as ev
from pbem import store
from pbem.cache import StateCache
from pbem.clock import Clock, SystemClock, format_time
from pbem.db import Database
from pbem.errors import BadRequest, Conflict, Forbidden, GameNotFound, StaleVersion
from pbem.models import Game, Seat, UndoRequest
from pbem.replay import Fold
from pbem.results import AppendContext, Listener, Loaded, SeatInfo
from pbem.settings import Settings
from pbem.store import StoredEvent
from pbem.views import describe

#: How a submission made on an older version is judged (see ``ServiceCore._check_version``):
#: ``strict`` (the JSON API) refuses it; ``own_moves_ok`` accepts it when only this seat
#: acted since; ``same_decision`` (replies by mail, seat-page forms) also accepts it when
#: nothing that bears on this seat's decision changed since.
StalePolicy = Literal["strict", "own_moves_ok", "same_decision"]


@dataclass
class Txn:
    """A write transaction on one locked game, at its head."""

    session: Session
    game: Game
    rules: Rules
    seats: list[Seat]
    state: Any

    @property
    def resigned(self) -> set[int]:
        return {s.seat for s in self.seats if s.resigned}

    def seat_infos(self) -> tuple[SeatInfo, ...]:
        return tuple(SeatInfo(s.seat, s.name, s.email, s.resigned) for s in self.seats)

    def loaded(self) -> Loaded:
        """The game at its head, as this transaction sees it."""
        g = self.game
        outcome = json.loads(g.outcome) if g.outcome else None
        return Loaded(
            g.id, g.game, self.rules, self.state, g.version, g.head_hash, self.seat_infos(),
            g.finished, outcome, True,
        )  # fmt: skip


class ServiceCore:
    def __init__(
        self,
        db: Database,
        settings: Settings,
        clock: Clock | None = None,
        registry: Mapping[str, Rules] | None = None,
        listeners: Sequence[Listener] = (),
    ) -> None:
        self.db = db
        self.settings = settings
        self.clock: Clock = clock or SystemClock()
        self.registry: Mapping[str, Rules] = engine.REGISTRY if registry is None else registry
        self.listeners: list[Listener] = list(listeners)
        self.cache = StateCache(settings.state_cache_size)

    # -- creating -------------------------------------------------------------------------

    def rules_for(self, game: str) -> Rules:
        rules = self.registry.get(game)
        if rules is None:
            known = ", ".join(sorted(self.registry)) or "none installed"
            raise BadRequest(f"There is no game called {game!r}. Games: {known}.")
        return rules

    # -- the write path ---------------------------------------------------------------------

    def _begin(self, session: Session, game_id: str) -> Txn:
        game = store.lock_game(session, game_id)
        if game is None:
            raise GameNotFound(f"There is no game {game_id!r}.")
        rules = self.rules_for(game.game)
        seats = list(
            session.exec(select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.seat))).all()
        )
        return Txn(session, game, rules, seats, self._state_at(session, game, rules, game.version))

    def _check_can_act(self, txn: Txn, seat: int) -> None:
        if not 0 <= seat < len(txn.seats):
            raise Forbidden(f"There is no seat {seat} in this game.")
        if txn.seats[seat].resigned:
            raise Forbidden(f"Seat {seat} has resigned from this game.")
        if txn.game.finished:
            raise Conflict(f"The game is over (it finished at version {txn.game.version}).")

    def _check_version(self, txn: Txn, seat: int, expected: int, policy: StalePolicy) -> None:
        head = txn.game.version
        if expected == head:
            return
        if 1 <= expected < head and policy != "strict":
            since = store.read(txn.session, txn.game.id, after=expected)
            if all(e.type == ev.ACTION_APPLIED and e.data["seat"] == seat for e in since):
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
        self, txn: Txn, seat: int, expected: int, since: Sequence[StoredEvent]
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
        state = self._state_at(txn.session, txn.game, rules, expected)
        baseline = state
        for e in since:
            if e.type != ev.ACTION_APPLIED:
                return False
            actor = e.data["seat"]
            if actor != seat and (e.data["irreversible"] or seat not in rules.to_act(state)):
                return False
            state = rules.apply(state, actor, action_from_json(e.data["action"])).state
            if actor == seat:
                baseline = state
            elif seat not in rules.to_act(state):
                return False
        return rules.legal_actions(baseline, seat) == rules.legal_actions(txn.state, seat)

    def _can_type(self, txn: Txn, seat: int) -> list[str]:
        return self._can_type_at(txn.rules, txn.state, seat)

    @staticmethod
    def _can_type_at(rules: Rules, state: Any, seat: int) -> list[str]:
        return [rules.format_action(state, a) for a in rules.legal_actions(state, seat)[:12]]

    def _finish(self, txn: Txn, state: Any) -> list[ev.NewEvent]:
        if txn.rules.to_act(state):
            return []
        outcome = txn.rules.outcome(state)
        return [
            ev.NewEvent(
                ev.GAME_FINISHED,
                {
                    "outcome": outcome.to_json() if outcome else {"scores": [], "winners": []},
                    "seed": txn.game.seed,
                    "reason": "rules",
                },
            )
        ]

    def _commit(
        self, txn: Txn, new_events: Sequence[ev.NewEvent], state_after: Any, *, lapse: bool = True
    ) -> list[StoredEvent]:
        game, session = txn.game, txn.session
        now = format_time(self.clock.now())
        before = game.version
        if lapse:
            new_events = with_lapse(session, game.id, new_events)
        stored = store.append(session, game.id, game.version, game.head_hash, new_events, now)
        game.version = stored[-1].version
        game.head_hash = stored[-1].hash
        game.to_act = ev.canonical_json(sorted(txn.rules.to_act(state_after)))
        game.updated_at = now
        for e in stored:
            if e.type == ev.GAME_FINISHED:
                game.finished = True
                game.outcome = ev.canonical_json(e.data["outcome"])
                game.to_act = "[]"  # ended by resignation too: nobody is asked to move
        session.add(game)
        if any(e.type == ev.UNDO_LAPSED for e in stored):
            lapse_open_requests(session, game.id)
        every = self.settings.snapshot_every
        if every > 0 and game.version // every > before // every:
            store.save_snapshot(
                session,
                game.id,
                game.version,
                game.head_hash,
                txn.rules.version,
                ev.canonical_json(txn.rules.dump_state(state_after)),
            )
        ctx = AppendContext(
            session,
            game.id,
            game.game,
            tuple(stored),
            txn.rules,
            txn.state,
            state_after,
            game.version,
            game.head_hash,
            txn.seat_infos(),
        )
        for listener in self.listeners:
            listener.on_appended(ctx)
        session.flush()
        self.cache.put(game.id, game.version, game.head_hash, state_after)
        txn.state = state_after
        return stored

    # -- folding --------------------------------------------------------------------------

    def _state_at(self, session: Session, game: Game, rules: Rules, at: int) -> Any:
        """The state after version ``at``: from the cache, else folded from the best base
        (a cached state or a snapshot) that still matches the hash chain."""
        target = game.head_hash if at == game.version else hash_at(session, game, at)
        hit = self.cache.get(game.id, at, target)
        if hit is not None:
            return hit
        bases: list[tuple[int, str, Any]] = []
        cached = self.cache.best_below(game.id, at)
        if cached is not None:
            bases.append(cached)
        # A snapshot can beat the cached base only if one was taken after it (they are
        # taken when a multiple of snapshot_every is crossed).
        every = max(self.settings.snapshot_every, 1)
        newer_possible = cached is None or at // every > cached[0] // every
        snap = store.latest_snapshot(session, game.id, at) if newer_possible else None
        usable = snap is not None and snap.rules_version == rules.version
        if snap is not None and usable and (cached is None or snap.version > cached[0]):
            bases.append((snap.version, snap.event_hash, snap.state))
        for version, base_hash, base_state in sorted(bases, key=lambda b: -b[0]):
            events = store.read(session, game.id, after=version, upto=at)
            if (events[0].prev_hash if events else target) != base_hash:
                continue  # the base does not belong to this chain (it was changed): skip it
            if any(
                e.type == ev.ACTIONS_RETRACTED and e.data["to_version"] < version for e in events
            ):
                continue  # a retraction reaches behind the base
            if isinstance(base_state, str):
                base_state = rules.load_state(json.loads(base_state))
            fold = Fold(rules, base_state, version)
            for e in events:
                fold.apply(e)
            self.cache.put(game.id, at, target, fold.state)
            return fold.state
        events = store.read(session, game.id, upto=at)
        fold = Fold.from_start(rules, events[0].data["config"], int(game.seed))
        for e in events[1:]:
            fold.apply(e)
        self.cache.put(game.id, at, target, fold.state)
        return fold.state


def game_or_404(session: Session, game_id: str) -> Game:
    game = session.get(Game, game_id)
    if game is None:
        raise GameNotFound(f"There is no game {game_id!r}.")
    return game


def hash_at(session: Session, game: Game, version: int) -> str:
    found = store.event_hash_at(session, game.id, version)
    if found is None:
        raise GameNotFound(f"Version {version} of game {game.id} is missing.")
    return found


def with_lapse(
    session: Session, game_id: str, new_events: Sequence[ev.NewEvent]
) -> list[ev.NewEvent]:
    """The events to append, with ``UndoLapsed`` right after the first that moves the game
    on while an undo request is open (so the log says the request lapsed, and when)."""
    events = list(new_events)
    first = next((i for i, e in enumerate(events) if e.type != ev.UNDO_REQUESTED), None)
    if first is None:
        return events
    row = session.exec(
        select(UndoRequest).where(UndoRequest.game_id == game_id, UndoRequest.status == "open")
    ).first()
    if row is None:
        return events
    lapsed = ev.NewEvent(
        ev.UNDO_LAPSED, {"request": row.request, "seat": row.seat, "to_version": row.to_version}
    )
    return [*events[: first + 1], lapsed, *events[first + 1 :]]


def lapse_open_requests(session: Session, game_id: str) -> None:
    """The game moved on: open undo requests no longer describe the position they were
    made on."""
    # A plain statement on the transaction's connection: the ORM's bulk update would also
    # synchronise the session, which costs more than the whole rest of an append.
    table: Table = UndoRequest.__table__  # type: ignore[attr-defined]
    session.connection().execute(
        update(table)
        .where(table.c.game_id == game_id, table.c.status == "open")
        .values(status="lapsed")
    )
