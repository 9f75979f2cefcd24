"""A game at any version: its log folded through its rules, with a state cache and snapshots
used only as checked shortcuts (a base is used only while it matches the hash chain and no
retraction reaches behind it, and a snapshot only while the service's seal on it verifies:
see ``pbem.core.snapshots``)."""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, select

from engine.core import Rules
from engine.core.protocol import Choices, choices_of
from engine.core.registry import Registry, UnknownRules
from pbem.core import events as ev
from pbem.core import snapshots, store
from pbem.core.cache import Answers, StateCache
from pbem.core.errors import BadRequest, GameNotFound, RulesNotInstalled
from pbem.core.fold import Fold
from pbem.core.models import Game, GameSecret, Seat, Snapshot
from pbem.core.naming import Names, names_for

log = logging.getLogger(__name__)

#: Answers kept (``Repository.answers``), least recently asked dropped: a Lancaster seat's
#: description is about 8 kB of JSON, so these hold about 4 MB at most, enough for the seats
#: of the games being played at once.
ANSWERS_KEPT = 512

#: Bad snapshots already logged by this process (each is logged once, not at every load).
REPORTED_LIMIT = 10_000


@dataclass(frozen=True)
class SeatInfo:
    seat: int
    name: str
    email: str | None
    resigned: bool


@dataclass(frozen=True)
class Loaded:
    """A game at one version: its rules and state (never shown as such: see ``views``)."""

    game_id: str
    game: str
    rules: Rules
    state: Any
    version: int
    head_hash: str
    seats: tuple[SeatInfo, ...]
    finished: bool
    outcome: dict[str, Any] | None
    at_head: bool
    #: seats still open (a game waiting for players: nobody acts until it starts)
    open_seats: int = 0

    @property
    def waiting(self) -> bool:
        """The game waits for players to take its open seats: nobody acts yet."""
        return self.open_seats > 0

    @property
    def to_act(self) -> frozenset[int]:
        # A game the service ended (every other seat resigned) asks nobody to move, though
        # the engine's state still waits for someone; nor does one waiting for players.
        if self.finished or self.waiting:
            return frozenset()
        return self.rules.to_act(self.state)

    def view(self, seat: int | None) -> dict[str, Any]:
        return self.rules.view(self.state, seat)

    @property
    def names(self) -> Names:
        """The seats as people read them ("Ann (Red)"): see ``pbem.core.naming``."""
        return names_for(self.rules, self.state, [s.name for s in self.seats])

    def legal(self, seat: int) -> list[str]:
        if self.finished or self.waiting:
            return []
        return [
            self.rules.format_action(self.state, a)
            for a in self.rules.legal_actions(self.state, seat)
        ]

    def choices(self, seat: int) -> Choices:
        """The seat's decision as the engine words it (``Rules.choices``): what the pages
        build their buttons from; empty once the game is over or while it waits for players."""
        if self.finished or self.waiting:
            return Choices()
        return choices_of(self.rules, self.state, seat)


@dataclass(frozen=True)
class GameHead:
    """A game's row as a request on it reads it, without the ORM (one read per request on
    the hot path): which rules it plays, where its log ends, whether it is private and how
    it ended."""

    id: str
    game: str
    rules_version: str
    version: int
    head_hash: str
    private: bool
    finished: bool
    #: canonical JSON of the outcome, once finished
    outcome: str | None
    #: seats still open (the game waits for players)
    open_seats: int = 0


def seat_infos(seats: list[Seat] | tuple[Seat, ...]) -> tuple[SeatInfo, ...]:
    return tuple(SeatInfo(s.seat, s.name, s.email, s.resigned) for s in seats)


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


def seats_of(session: Session, game_id: str) -> list[Seat]:
    return list(
        session.exec(select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.seat))).all()
    )


class Repository:
    """Games as their logs say they are, at any version."""

    def __init__(
        self, registry: Registry, *, cache_size: int, snapshot_every: int, secret_key: str
    ) -> None:
        """``cache_size``: states kept in memory; ``snapshot_every``: a snapshot is taken each
        time the version crosses a multiple of it (0: never); ``secret_key``: seals the
        snapshots (empty: none is taken or trusted)."""
        self.registry = registry
        self.cache = StateCache(cache_size)
        #: what is worked out from a game at one version for one seat (its description)
        self.answers = Answers(ANSWERS_KEPT if cache_size > 0 else 0)
        self.snapshot_every = snapshot_every
        self._secret_key = secret_key
        self._reported: set[tuple[str, int, str]] = set()
        self._reported_lock = threading.Lock()

    def rules_for(self, game: str) -> Rules:
        """The latest rules of the game called ``game``: what a new game gets."""
        rules = self.registry.get(game)
        if rules is None:
            known = ", ".join(sorted(self.registry)) or "none installed"
            raise BadRequest(f"There is no game called {game!r}. Games: {known}.")
        return rules

    def rules_of(self, game: Game | GameHead) -> Rules:
        """The rules ``game`` was created with (its recorded name and version): a game plays
        on under them whatever has been released since."""
        try:
            return self.registry.release(game.game, game.rules_version)
        except UnknownRules as e:
            raise RulesNotInstalled(str(e)) from None

    def loaded(self, session: Session, game: Game, at: int | None) -> Loaded:
        rules = self.rules_of(game)
        version = game.version if at is None else at
        if not 1 <= version <= game.version:
            raise BadRequest(
                f"Version {at} does not exist: this game has versions 1 to {game.version}."
            )
        state = self.state_at(session, game, rules, version)
        at_head = version == game.version
        return Loaded(
            game_id=game.id,
            game=game.game,
            rules=rules,
            state=state,
            version=version,
            head_hash=game.head_hash if at_head else hash_at(session, game, version),
            seats=seat_infos(seats_of(session, game.id)),
            finished=game.finished and at_head,
            outcome=json.loads(game.outcome) if game.outcome and at_head else None,
            at_head=at_head,
            # (an earlier version of a started game may have waited: the history shows the
            # position, which nobody could act on then either)
            open_seats=game.open_seats if at_head else 0,
        )

    def cached_head(self, game: GameHead, seats: tuple[SeatInfo, ...]) -> Loaded | None:
        """The game at the head its row names (``seats`` read with the row), if the state
        cache holds that version on that chain; None otherwise (nothing is read)."""
        state = self.cache.get(game.id, game.version, game.head_hash)
        if state is None:
            return None
        return Loaded(
            game_id=game.id,
            game=game.game,
            rules=self.rules_of(game),
            state=state,
            version=game.version,
            head_hash=game.head_hash,
            seats=seats,
            finished=game.finished,
            outcome=json.loads(game.outcome) if game.outcome else None,
            at_head=True,
            open_seats=game.open_seats,
        )

    def remember(self, game_id: str, version: int, head_hash: str, state: Any) -> None:
        self.cache.put(game_id, version, head_hash, state)

    def state_at(self, session: Session, game: Game, rules: Rules, at: int) -> Any:
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
        every = max(self.snapshot_every, 1)
        newer_possible = cached is None or at // every > cached[0] // every
        snap = store.latest_snapshot(session, game.id, at) if newer_possible else None
        usable = snap is not None and snap.rules_version == rules.version
        newer = snap is not None and (cached is None or snap.version > cached[0])
        if snap is not None and usable and newer and self.is_trusted(snap):
            bases.append((snap.version, snap.event_hash, snap.state))
        for version, base_hash, base_state in sorted(bases, key=lambda b: -b[0]):
            events = store.read(session, game.id, after=version, upto=at)
            if (events[0].prev_hash if events else target) != base_hash:
                continue  # the base does not belong to this chain (it was changed): skip it
            if any(
                isinstance(p := e.payload, ev.ActionsRetracted) and p.to_version < version
                for e in events
                if e.type == ev.ACTIONS_RETRACTED
            ):
                continue  # a retraction reaches behind the base
            if any(e.type == ev.SEATS_CLOSED for e in events):
                continue  # the state is re-initialised there, from the seed: fold from the start
            if isinstance(base_state, str):
                base_state = rules.load_state(json.loads(base_state))
            fold = Fold(rules, base_state, version)
            for e in events:
                fold.apply(e)
            self.cache.put(game.id, at, target, fold.state)
            return fold.state
        events = store.read(session, game.id, upto=at)
        fold = self.fold_from_start(session, rules, events)
        self.cache.put(game.id, at, target, fold.state)
        return fold.state

    def is_trusted(self, snap: Snapshot) -> bool:
        """Whether the snapshot is as this service sealed it; a bad one is logged (once)."""
        if not self._secret_key:
            return False  # nothing to check a seal with: fold from the log
        if snapshots.is_sealed(self._secret_key, snap):
            return True
        seen = (snap.game_id, snap.version, snap.mac)
        with self._reported_lock:
            first = seen not in self._reported
            if first and len(self._reported) < REPORTED_LIMIT:
                self._reported.add(seen)
        if first:
            log.warning(
                "snapshot of game %s at version %d ignored: its seal does not verify under "
                "this service's secret key (the row was changed, or sealed under another key); "
                "the state is folded from the log. `pbem replay %s --verify` checks it.",
                snap.game_id,
                snap.version,
                snap.game_id,
            )
        return False

    def snapshot_if_due(
        self, session: Session, game: Game, rules: Rules, state: Any, before: int
    ) -> None:
        """After an append from version ``before`` to the game's head: a snapshot of the
        head's ``state`` when the append crossed a multiple of ``snapshot_every``."""
        every = self.snapshot_every
        if every > 0 and game.version // every > before // every:
            self.save_snapshot(session, game, rules, state)

    def save_snapshot(self, session: Session, game: Game, rules: Rules, state: Any) -> None:
        """Store the state at the game's head as a snapshot, sealed with the secret key."""
        if not self._secret_key:
            return  # it could never be trusted
        dumped = ev.canonical_json(rules.dump_state(state))
        mac = snapshots.seal(
            self._secret_key, game.id, game.version, game.head_hash, rules.version, dumped
        )
        store.save_snapshot(
            session, game.id, game.version, game.head_hash, rules.version, dumped, mac
        )

    @staticmethod
    def fold_from_start(session: Session, rules: Rules, events: list[ev.StoredEvent]) -> Fold:
        """The log folded from its first event, with the seed the game keeps."""
        created = events[0].payload
        assert isinstance(created, ev.GameCreated)
        fold = Fold.from_start(rules, created.config, seed_of(session, events[0].game_id))
        for e in events[1:]:
            fold.apply(e)
        return fold


def seed_of(session: Session, game_id: str) -> int:
    secret = session.get(GameSecret, game_id)
    if secret is None:
        raise GameNotFound(f"The seed of game {game_id} is missing.")
    return int(secret.seed)
