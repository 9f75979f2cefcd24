"""An in-process cache of game states, keyed by (game, version, hash of that version).

Keyed by the hash, an entry can never be used for a different history: if the stored events
changed, the hash differs and the entry is simply not found. States are immutable, so
sharing them between threads is safe. One cache per process (per GameService).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

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
