"""CPU time of a move over the JSON API, in process (Flask's test client, SQLite): each move
is a GET of the game as the seat to act and a POST of one of its legal actions, on 3-player
Lancaster games some moves in (``--game hoard``: 2-player games of the test game). On a
shared machine CPU time per request is a steadier figure than requests per second.

    .venv/bin/python bench/move_cpu.py [--game lancaster|hoard] [--moves 300] [--warm 30]
        [--profile out.prof]

Run it against another checkout of the code with ``PYTHONPATH=<checkout>``: it uses only the
app factory, the service builder and the settings loader. Not a test.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if not os.environ.get("PYTHONPATH"):
    sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]


class Games:
    """3-player Lancaster games played over the API, one after another."""

    def __init__(self, client: Any, seed: int, game: str) -> None:
        self.client = client
        self.game = game
        self.random = random.Random(seed)
        self.new_game()

    def new_game(self) -> None:
        names = ("Ann", "Bob", "Cat") if self.game == "lancaster" else ("Ann", "Bob")
        players = [{"name": n} for n in names]
        config = {"rounds": 100000} if self.game == "hoard" else {}
        answer = self.client.post(
            "/api/v1/games", json={"game": self.game, "config": config, "players": players}
        )
        assert answer.status_code == 201, answer.get_json()
        created = answer.get_json()
        self.game_id = created["id"]
        self.tokens = [s["token"] for s in created["seats"]]
        self.version = created["version"]

    def auth(self, seat: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[seat]}"}

    def move(self) -> tuple[float, float, float]:
        """One move: (CPU seconds of the GET, of the POST, of the same GET again: a seat
        looking again, a client polling)."""
        public = self.client.get(f"/api/v1/games/{self.game_id}").get_json()
        if public["finished"] or not public["to_act"]:
            self.new_game()
            public = self.client.get(f"/api/v1/games/{self.game_id}").get_json()
        seat = public["to_act"][0]
        start = time.process_time()
        got = self.client.get(f"/api/v1/games/{self.game_id}", headers=self.auth(seat))
        mid = time.process_time()
        game = got.get_json()
        assert got.status_code == 200, game
        again_start = time.process_time()
        again = self.client.get(f"/api/v1/games/{self.game_id}", headers=self.auth(seat))
        again_s = time.process_time() - again_start
        assert again.get_json() == game
        action = self.random.choice(game["legal"])
        body = {"action": action, "expected_version": game["version"]}
        before = time.process_time()
        posted = self.client.post(
            f"/api/v1/games/{self.game_id}/actions", json=body, headers=self.auth(seat)
        )
        end = time.process_time()
        assert posted.status_code == 201, posted.get_json()
        return mid - start, end - before, again_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--game", choices=["lancaster", "hoard"], default="lancaster")
    parser.add_argument("--moves", type=int, default=300)
    parser.add_argument("--warm", type=int, default=30, help="moves played before measuring")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", help="write a cProfile of the measured moves here")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="pbem-move-cpu-"))
    os.environ.update(
        {
            "PBEM_DATABASE_URL": f"sqlite:///{tmp}/bench.db",
            "PBEM_VAR_DIR": str(tmp),
            "PBEM_LOG_LEVEL": "WARNING",
            "PBEM_MAIL_EMBEDDED_SCHEDULER": "false",
        }
    )
    from pbem.app.bootstrap import build_service
    from pbem.app.config import load_settings
    from pbem.core.db import Database
    from pbem.core.migrate import upgrade
    from web import create_app

    settings = load_settings()
    db = Database(settings.database_url)
    upgrade(db)
    db.dispose()
    registry = None
    if args.game == "hoard":
        import engine
        from tests.service.hidden_game import HOARD

        registry = engine.REGISTRY.with_rules(HOARD)
    app = create_app(service=build_service(settings, registry=registry))
    games = Games(app.test_client(), args.seed, args.game)
    for _ in range(args.warm):
        games.move()
    profile = cProfile.Profile() if args.profile else None
    gets: list[float] = []
    posts: list[float] = []
    polls: list[float] = []
    if profile:
        profile.enable()
    for _ in range(args.moves):
        get_s, post_s, poll_s = games.move()
        gets.append(get_s)
        posts.append(post_s)
        polls.append(poll_s)
    if profile:
        profile.disable()
        profile.dump_stats(args.profile)
    print(
        json.dumps(
            {
                "moves": args.moves,
                "get_ms_mean": round(1000 * statistics.fmean(gets), 3),
                "get_ms_median": round(1000 * statistics.median(gets), 3),
                "post_ms_mean": round(1000 * statistics.fmean(posts), 3),
                "post_ms_median": round(1000 * statistics.median(posts), 3),
                "post_ms_p90": round(1000 * sorted(posts)[int(len(posts) * 0.9)], 3),
                "post_ms_max": round(1000 * max(posts), 3),
                "get_again_ms_median": round(1000 * statistics.median(polls), 3),
            }
        )
    )


if __name__ == "__main__":
    main()
