"""In-process caches of what a game's log gives, each tied to the log's hash chain.

``StateCache``: game states, keyed by (game, version, hash of that version). Keyed by the
hash, an entry can never be used for a different history: if the stored events changed, the
hash differs and the entry is simply not found. States are immutable, so sharing them
between threads is safe. One cache per process (per GameService).

``Answers``: what is worked out from a game at one version for one asker (a seat's
description of the game: its view, its legal moves, the players named), keyed by (game,
version, hash of that version) and the asker's key: a new event gives a new key, and a seat's
answer is never another's.

``EventTails``: the latest events of each game, read and decoded once, continued with the
events of each append (for listeners that show the log's tail after every append).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Generic, Protocol, TypeVar

VERSIONS_PER_GAME = 8


class StateCache:
    def __init__(self, max_games: int) -> None:
        self.max_games = max_games
        self._games: OrderedDict[str, dict[int, tuple[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, game_id: str, version: int, event_hash: str) -> Any | None:
        with self._lock:
            entries = self._games.get(game_id)
            if entries is None:
                return None
            found = entries.get(version)
            if found is None or found[0] != event_hash:
                return None
            self._games.move_to_end(game_id)
            return found[1]

    def best_below(self, game_id: str, version: int) -> tuple[int, str, Any] | None:
        """The latest cached (version, hash, state) strictly before ``version``."""
        with self._lock:
            entries = self._games.get(game_id, {})
            below = [v for v in entries if v < version]
            if not below:
                return None
            best = max(below)
            return best, entries[best][0], entries[best][1]

    def put(self, game_id: str, version: int, event_hash: str, state: Any) -> None:
        if self.max_games <= 0:
            return
        with self._lock:
            entries = self._games.setdefault(game_id, {})
            entries[version] = (event_hash, state)
            while len(entries) > VERSIONS_PER_GAME:
                del entries[min(entries)]
            self._games.move_to_end(game_id)
            while len(self._games) > self.max_games:
                self._games.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._games.clear()


class Answers:
    """Answers computed from a game at one version, remembered for the same question: keyed by
    (game, version, hash of that version, ``key``), where ``key`` holds everything else the
    answer depends on (the seat asking, above all: an answer holding a seat's hidden
    information is only ever given to that seat's key). At most ``max_entries``, least
    recently used dropped.

    An answer is kept as text (JSON): a string is one object the garbage collector never
    walks, where the same answer as dicts and lists is thousands (a cache of them made each
    full collection, every few hundred requests, take about 100 ms), and each asker gets its
    own copy to change."""

    def __init__(self, max_entries: int) -> None:
        self.max_entries = max_entries
        self._answers: OrderedDict[tuple[str, int, str, Hashable], str] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, game_id: str, version: int, event_hash: str, key: Hashable) -> Any | None:
        """The answer remembered (a copy of its own), or None."""
        full = (game_id, version, event_hash, key)
        with self._lock:
            text = self._answers.get(full)
            if text is None:
                return None
            self._answers.move_to_end(full)
        return json.loads(text)

    def put(self, game_id: str, version: int, event_hash: str, key: Hashable, answer: Any) -> None:
        """Remember ``answer`` (JSON-serialisable) for the same question."""
        if self.max_entries <= 0:
            return
        text = json.dumps(answer)
        full = (game_id, version, event_hash, key)
        with self._lock:
            self._answers[full] = text
            self._answers.move_to_end(full)
            while len(self._answers) > self.max_entries:
                self._answers.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._answers.clear()


class _Chained(Protocol):
    """An event as the log stores it: its version and its link in the hash chain."""

    @property
    def version(self) -> int: ...

    @property
    def prev_hash(self) -> str: ...

    @property
    def hash(self) -> str: ...


E = TypeVar("E", bound=_Chained)


class EventTails(Generic[E]):
    """The last ``keep`` events of each game (at most ``max_games`` games, least recently
    used dropped), so that the events after a version can be had without reading and
    decoding them again.

    A tail is continued only by events that continue its hash chain (the first appended
    event's ``prev_hash`` is the tail's last hash, at the next version): after an append by
    another process, a transaction that was rolled back or a changed history, the chain does
    not match and the log is read again.
    """

    def __init__(self, max_games: int, keep: int) -> None:
        self.max_games = max_games
        self.keep = keep
        self._games: OrderedDict[str, tuple[E, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def after(
        self, game_id: str, after: int, appended: Sequence[E], read: Callable[[int], list[E]]
    ) -> list[E]:
        """The events after version ``after``, up to and including ``appended`` (the events
        just appended, in order, at the head of the log): from the cached tail when it
        reaches back to ``after`` and ``appended`` continues it, else ``read(after)``."""
        with self._lock:
            tail = self._games.get(game_id, ())
        first = appended[0] if appended else None
        if (
            first is not None
            and tail
            and tail[0].version <= after + 1
            and tail[-1].version == first.version - 1
            and tail[-1].hash == first.prev_hash
        ):
            events = [e for e in tail if e.version > after]
            events.extend(appended)
        else:
            events = read(after)
        self.put(game_id, events)
        return events

    def put(self, game_id: str, events: Sequence[E]) -> None:
        """Remember ``events`` (consecutive, ending at the head) as the game's tail."""
        if self.max_games <= 0 or self.keep <= 0:
            return
        with self._lock:
            self._games[game_id] = tuple(events[-self.keep :])
            self._games.move_to_end(game_id)
            while len(self._games) > self.max_games:
                self._games.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._games.clear()
