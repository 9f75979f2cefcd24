"""Benchmark of HTTP action submission: gunicorn (2 workers) and a load generator in another
process, on SQLite and on PostgreSQL.

    .venv/bin/python bench/service_bench.py [--backend sqlite|postgres|both] [--seconds 20]
    .venv/bin/python bench/service_bench.py --game lancaster [--rounds 5] [--seconds 10]

``--game lancaster``: real 3-player Lancaster games, each move a GET of the game as the seat
to act and a POST of one of its legal actions (chosen at random), each client playing its own
games one after the other. A trivial Flask endpoint (``create_trivial_app``: a small JSON
answer, no database) is served by the same gunicorn settings and loaded in the same shape (a
GET and a POST per step, 8 clients); the two loads alternate ``--rounds`` times in one run,
so that whatever else the machine does weighs on both alike, and the ratio of their
requests per second is reported per round and as the median. The targets: Lancaster at
>= 25 % of the trivial endpoint's requests/s, POST p99 <= 50 ms at 8 clients on SQLite.
On SQLite each accepted move is one durable commit (WAL, ``synchronous=FULL``) by one
writer at a time, so the disk's fsync time bounds the POSTs per second whatever the CPU
cost of a move (``bench/move_cpu.py`` measures that cost alone).

For each database: a fresh database is created and migrated, gunicorn serves the app with 2
workers (gthread, 4 threads each; ``--threads 1`` for sync workers), and a load generator
process (threads with http.client) plays many Hoard games at once (each client plays its own
game, one action after the other, on the version it was answered). It prints accepted
actions per second, p50 and p99 latency. Then one game is played to version 1,000, and the
latency of its next actions is measured in alternation with actions at version 10 of young
games: snapshots and the state cache should keep the two within 1.5x.

Targets on a 2-core machine: >= 200 accepted actions/s and p99 < 100 ms on SQLite.
Not a test: nothing here runs in ``make test``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

DEFAULT_POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"


def create_bench_app() -> Any:
    """The app gunicorn serves: the real one, with the Hoard test game registered too."""
    import engine
    from pbem.app.bootstrap import build_service
    from pbem.app.config import load_settings
    from tests.service.hidden_game import HOARD
    from web import create_app

    settings = load_settings()
    registry = engine.REGISTRY.with_rules(HOARD)
    service = build_service(settings, registry=registry)
    return create_app(service=service)


def create_trivial_app() -> Any:
    """The framework's ceiling: a Flask endpoint that answers a little JSON, reading nothing."""
    from flask import Flask, jsonify, request

    app = Flask("trivial")

    @app.route("/api/v1/games", methods=["GET"])
    def up() -> Any:  # what ``_wait_until_up`` asks
        return jsonify({"games": []})

    @app.route("/trivial/<game_id>", methods=["GET", "POST"])
    def trivial(game_id: str) -> Any:
        body = request.get_json(silent=True) or {}
        return jsonify({"id": game_id, "version": body.get("expected_version", 0) + 1})

    return app


# -- the load generator (its own process) ------------------------------------------------------


class Client:
    """Plays one Hoard game over one keep-alive HTTP connection."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = json.dumps(body) if body is not None else None
        self.conn.request(method, path, body=data, headers=headers)
        response = self.conn.getresponse()
        payload = json.loads(response.read() or b"null")
        return response.status, payload

    def new_game(self) -> tuple[str, list[str], dict[str, Any]]:
        players = [{"name": "North"}, {"name": "South"}]
        status, created = self.call(
            "POST",
            "/api/v1/games",
            {"game": "hoard", "config": {"rounds": 100000}, "players": players},
        )
        assert status == 201, created
        tokens = [s["token"] for s in created["seats"]]
        _, game = self.call("GET", f"/api/v1/games/{created['id']}", token=tokens[0])
        return created["id"], tokens, game

    def step(
        self, gid: str, tokens: list[str], game: dict[str, Any], purses: dict[int, list[str]]
    ) -> tuple[int, float, Any]:
        """One action chosen from the last answers' views; returns (status, seconds, answer).

        Each seat draws a gem, then stakes it: purses stay small, so the game's state does
        not grow with the version (only the log does).
        """
        view = game["view"]
        if view["phase"] == "draw":
            seat, text = view["turn"], "draw"
        else:
            seat = min(view["to_act"])
            text = f"stake {purses[seat][0]}" if purses.get(seat) else "pass"
        body = {"action": text, "expected_version": game["version"]}
        start = time.perf_counter()
        status, answer = self.call("POST", f"/api/v1/games/{gid}/actions", body, tokens[seat])
        took = time.perf_counter() - start
        if status == 201:
            purses[seat] = answer["view"]["my_purse"]
        return status, took, answer


class LancasterClient(Client):
    """Plays 3-player Lancaster games: each move a GET as the seat to act, then a POST of one
    of the legal actions that GET answered."""

    def __init__(self, port: int, seed: int) -> None:
        super().__init__(port)
        self.random = __import__("random").Random(seed)

    def new_lancaster(self) -> tuple[str, list[str], dict[str, Any]]:
        players = [{"name": n} for n in ("Ann", "Bob", "Cat")]
        body = {"game": "lancaster", "config": {}, "players": players}
        status, created = self.call("POST", "/api/v1/games", body)
        assert status == 201, created
        tokens = [s["token"] for s in created["seats"]]
        _, game = self.call("GET", f"/api/v1/games/{created['id']}", token=tokens[0])
        return created["id"], tokens, game

    def move(
        self, gid: str, tokens: list[str], to_act: list[int]
    ) -> tuple[int, float, float, dict[str, Any]]:
        """(POST status, GET seconds, POST seconds, the POST's answer)."""
        seat = min(to_act)
        start = time.perf_counter()
        status, game = self.call("GET", f"/api/v1/games/{gid}", token=tokens[seat])
        got = time.perf_counter()
        assert status == 200, game
        body = {"action": self.random.choice(game["legal"]), "expected_version": game["version"]}
        status, answer = self.call("POST", f"/api/v1/games/{gid}/actions", body, tokens[seat])
        return status, got - start, time.perf_counter() - got, answer


def _lancaster_load(port: int, clients: int, seconds: float, out: Any) -> None:
    """``clients`` closed loops, each playing its own Lancaster games for ``seconds``."""
    gets: list[float] = []
    posts: list[float] = []
    statuses: dict[int, int] = {}
    lock = threading.Lock()
    ready = threading.Barrier(clients)
    stop_at: list[float] = []

    def play(number: int) -> None:
        client = LancasterClient(port, number)
        gid, tokens, game = client.new_lancaster()
        ready.wait()  # games are created before the clock starts
        if number == 0:
            stop_at.append(time.monotonic() + seconds)
        while not stop_at:
            time.sleep(0.001)
        mine_get: list[float] = []
        mine_post: list[float] = []
        counts: dict[int, int] = {}
        while time.monotonic() < stop_at[0]:
            if game["finished"] or not game["to_act"]:
                gid, tokens, game = client.new_lancaster()
                continue
            status, got_s, post_s, answer = client.move(gid, tokens, game["to_act"])
            counts[status] = counts.get(status, 0) + 1
            mine_get.append(got_s)
            mine_post.append(post_s)
            assert status == 201, answer  # each game has one client: never stale
            game = answer
        with lock:
            gets.extend(mine_get)
            posts.extend(mine_post)
            for k, v in counts.items():
                statuses[k] = statuses.get(k, 0) + v

    threads = [threading.Thread(target=play, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.put({"gets": gets, "posts": posts, "statuses": statuses, "elapsed": seconds})


def _trivial_load(port: int, clients: int, seconds: float, out: Any) -> None:
    """The same shape on the trivial endpoint: each step a GET then a POST."""
    gets: list[float] = []
    posts: list[float] = []
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds

    def play(number: int) -> None:
        client = Client(port)
        mine_get: list[float] = []
        mine_post: list[float] = []
        version = 0
        while time.monotonic() < stop_at:
            start = time.perf_counter()
            status, _ = client.call("GET", f"/trivial/g{number}")
            got = time.perf_counter()
            status, answer = client.call(
                "POST", f"/trivial/g{number}", {"action": "x", "expected_version": version}
            )
            assert status == 200, answer
            version = answer["version"]
            mine_get.append(got - start)
            mine_post.append(time.perf_counter() - got)
        with lock:
            gets.extend(mine_get)
            posts.extend(mine_post)

    threads = [threading.Thread(target=play, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.put({"gets": gets, "posts": posts, "statuses": {200: len(posts)}, "elapsed": seconds})


def _throughput(port: int, clients: int, seconds: float, out: Any) -> None:
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds

    def play() -> None:
        client = Client(port)
        gid, tokens, game = client.new_game()
        purses: dict[int, list[str]] = {}
        mine: list[float] = []
        counts: dict[int, int] = {}
        while time.monotonic() < stop_at:
            status, took, answer = client.step(gid, tokens, game, purses)
            counts[status] = counts.get(status, 0) + 1
            mine.append(took)
            if status == 201:
                game = answer
            else:  # should not happen: each game has one client
                _, game = client.call("GET", f"/api/v1/games/{gid}", token=tokens[0])
        with lock:
            latencies.extend(mine)
            for k, v in counts.items():
                statuses[k] = statuses.get(k, 0) + v

    threads = [threading.Thread(target=play) for _ in range(clients)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    out.put({"latencies": latencies, "statuses": statuses, "elapsed": elapsed})


def _early_and_late(port: int, target: int, samples: int, out: Any) -> None:
    """Latency of actions at version 10 (of ``samples`` young games) and at version
    ``target`` and after (of one long game), measured in alternation so that whatever else
    the machine does slows both alike."""
    client = Client(port)

    def advance(gid: str, tokens: list[str], game: Any, purses: Any, to: int) -> Any:
        while game["version"] < to:
            status, _, game = client.step(gid, tokens, game, purses)
            assert status == 201, game
        return game

    gid, tokens, game = client.new_game()
    purses: dict[int, list[str]] = {}
    game = advance(gid, tokens, game, purses, target - 1)
    young = []
    for _ in range(samples):
        g, t, start = client.new_game()
        p: dict[int, list[str]] = {}
        young.append((g, t, advance(g, t, start, p, 9), p))
    early, late = [], []
    for g, t, at9, p in young:
        status, took, _ = client.step(g, t, at9, p)  # the action that makes version 10
        assert status == 201
        early.append(took)
        status, took, game = client.step(gid, tokens, game, purses)  # version target, ...
        assert status == 201
        late.append(took)
    out.put({"early": early, "late": late, "last_version": game["version"]})


def _in_process(target: Any, *args: Any) -> Any:
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    proc = ctx.Process(target=target, args=(*args, out))
    proc.start()
    result = out.get(timeout=3600)
    proc.join()
    return result


# -- servers and databases -------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_until_up(port: int, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(
                "gunicorn exited: " + (server.stdout.read().decode() if server.stdout else "")
            )
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/games", timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("gunicorn did not answer within 60 s")


def _postgres_database() -> tuple[str, Any] | None:
    import psycopg
    from sqlalchemy.engine import make_url

    admin = os.environ.get("PBEM_TEST_POSTGRES_URL") or DEFAULT_POSTGRES
    name = f"pbem_bench_{secrets.token_hex(4)}"
    try:
        with psycopg.connect(admin, autocommit=True, connect_timeout=3) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
    except psycopg.Error as e:
        print(f"PostgreSQL skipped: cannot reach {admin}: {e}")
        return None

    def drop() -> None:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    return make_url(admin).set(database=name).render_as_string(False), drop


def _gunicorn(app: str, env: dict[str, str], args: argparse.Namespace) -> tuple[int, Any]:
    """gunicorn serving ``app`` (a factory of this module) with the bench's settings."""
    port = _free_port()
    server = subprocess.Popen(
        [
            sys.executable, "-m", "gunicorn", "-w", str(args.workers),
            *(["--threads", str(args.threads)] if args.threads > 1 else []),
            "-b", f"127.0.0.1:{port}", "--pythonpath", f"{ROOT},{ROOT / 'bench'}",
            "--log-level", "warning", f"service_bench:{app}()",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )  # fmt: skip
    return port, server


def _bench_env(name: str, url: str, var: Path) -> dict[str, str]:
    from pbem.core.db import Database
    from pbem.core.migrate import upgrade

    db = Database(url)
    upgrade(db)
    db.dispose()
    return {
        **os.environ,
        "PBEM_DATABASE_URL": url,
        "PBEM_VAR_DIR": str(var),
        "PBEM_LOG_LEVEL": "WARNING",
        "PBEM_MAIL_EMBEDDED_SCHEDULER": "false",
    }


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def run_lancaster(name: str, url: str, var: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Lancaster and the trivial endpoint, alternated ``args.rounds`` times."""
    env = _bench_env(name, url, var)
    port, server = _gunicorn("create_bench_app", env, args)
    trivial_port, trivial = _gunicorn("create_trivial_app", env, args)
    rounds = []
    try:
        _wait_until_up(port, server)
        _wait_until_up(trivial_port, trivial)
        for _ in range(args.rounds):
            game = _in_process(_lancaster_load, port, args.clients, args.seconds)
            base = _in_process(_trivial_load, trivial_port, args.clients, args.seconds)
            game_rps = (len(game["gets"]) + len(game["posts"])) / game["elapsed"]
            base_rps = (len(base["gets"]) + len(base["posts"])) / base["elapsed"]
            rounds.append(
                {
                    "lancaster_rps": game_rps,
                    "trivial_rps": base_rps,
                    "ratio": game_rps / base_rps,
                    "get_p50_ms": 1000 * statistics.median(game["gets"]),
                    "post_p50_ms": 1000 * statistics.median(game["posts"]),
                    "post_p99_ms": _pct(game["posts"], 0.99),
                    "statuses": game["statuses"],
                }
            )
    finally:
        for proc in (server, trivial):
            proc.terminate()
            proc.wait(timeout=30)
    return {"backend": name, "rounds": rounds}


def print_lancaster(results: list[dict[str, Any]], args: argparse.Namespace) -> None:
    print(
        f"\nLancaster (3 players) over HTTP vs a trivial Flask endpoint: gunicorn -w "
        f"{args.workers} --threads {args.threads}, {args.clients} clients, {args.rounds} "
        f"alternated rounds of {args.seconds:.0f} s each; a request is a GET or a POST.\n"
    )
    print(
        "backend  round  lancaster req/s  trivial req/s  ratio  GET p50  POST p50  POST p99"
        "  statuses"
    )
    for r in results:
        for i, x in enumerate(r["rounds"], start=1):
            print(
                f"{r['backend']:<8} {i:>5} {x['lancaster_rps']:>16.0f} {x['trivial_rps']:>14.0f}"
                f" {x['ratio']:>6.1%} {x['get_p50_ms']:>8.1f} {x['post_p50_ms']:>9.1f}"
                f" {x['post_p99_ms']:>9.1f}  {x['statuses']}"
            )
        med = {
            k: statistics.median(x[k] for x in r["rounds"])
            for k in r["rounds"][0]
            if k != "statuses"
        }
        print(
            f"{r['backend']:<8} {'median':>5} {med['lancaster_rps']:>16.0f} "
            f"{med['trivial_rps']:>14.0f} {med['ratio']:>6.1%} {med['get_p50_ms']:>8.1f} "
            f"{med['post_p50_ms']:>9.1f} {med['post_p99_ms']:>9.1f}"
        )


def run_backend(name: str, url: str, var: Path, args: argparse.Namespace) -> dict[str, Any]:
    if args.game == "lancaster":
        return run_lancaster(name, url, var, args)
    env = _bench_env(name, url, var)
    port, server = _gunicorn("create_bench_app", env, args)
    try:
        _wait_until_up(port, server)
        load = _in_process(_throughput, port, args.clients, args.seconds)
        versions = _in_process(_early_and_late, port, args.long_version, args.window)
    finally:
        server.terminate()
        server.wait(timeout=30)
    lat = sorted(load["latencies"])
    accepted = load["statuses"].get(201, 0)
    return {
        "backend": name,
        "requests": len(lat),
        "statuses": load["statuses"],
        "accepted_per_s": accepted / load["elapsed"],
        "p50_ms": 1000 * statistics.median(lat),
        "p99_ms": 1000 * lat[min(len(lat) - 1, int(len(lat) * 0.99))],
        "v10_ms": 1000 * statistics.median(versions["early"]),
        "v1000_ms": 1000 * statistics.median(versions["late"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument(
        "--game",
        choices=["hoard", "lancaster"],
        default="hoard",
        help="hoard: the test game's throughput and long-game latency; lancaster: real "
        "3-player games against a trivial endpoint, alternated",
    )
    parser.add_argument(
        "--rounds", type=int, default=5, help="alternated rounds (--game lancaster)"
    )
    parser.add_argument("--seconds", type=float, default=20.0, help="length of the load phase")
    parser.add_argument("--clients", type=int, default=8, help="concurrent games in the load phase")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument(
        "--threads", type=int, default=4, help="threads per worker (>1: gthread, keep-alive)"
    )
    parser.add_argument("--long-version", type=int, default=1000)
    parser.add_argument(
        "--window", type=int, default=60, help="actions measured at each point (alternating)"
    )
    args = parser.parse_args()

    results = []
    tmp = Path(tempfile.mkdtemp(prefix="pbem-bench-"))
    try:
        if args.backend in ("sqlite", "both"):
            results.append(run_backend("sqlite", f"sqlite:///{tmp}/bench.db", tmp, args))
        if args.backend in ("postgres", "both"):
            found = _postgres_database()
            if found is not None:
                url, drop = found
                try:
                    results.append(run_backend("postgres", url, tmp, args))
                finally:
                    drop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    if args.game == "lancaster":
        print_lancaster(results, args)
        return
    print(
        f"\nHTTP action submission: gunicorn -w {args.workers} --threads {args.threads}, "
        f"{args.clients} concurrent games for {args.seconds:.0f} s.\n"
        f"v10 / v1000: median latency of {args.window} actions at version 10 of young games "
        f"and at versions {args.long_version}+ of one long game, measured alternately.\n"
    )
    header = "backend    requests  accepted/s   p50 ms   p99 ms   v10 ms  v1000 ms  ratio  statuses"
    print(header)
    for r in results:
        ratio = r["v1000_ms"] / r["v10_ms"]
        print(
            f"{r['backend']:<10} {r['requests']:>8} {r['accepted_per_s']:>11.0f} "
            f"{r['p50_ms']:>8.1f} {r['p99_ms']:>8.1f} {r['v10_ms']:>8.1f} {r['v1000_ms']:>9.1f} "
            f"{ratio:>6.2f}  {r['statuses']}"
        )


if __name__ == "__main__":
    main()
