"""Benchmark of HTTP action submission: gunicorn (2 workers) and a load generator in another
process, on SQLite and on PostgreSQL.

    .venv/bin/python bench/service_bench.py [--backend sqlite|postgres|both] [--seconds 20]

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


def run_backend(name: str, url: str, var: Path, args: argparse.Namespace) -> dict[str, Any]:
    from pbem.core.db import Database
    from pbem.core.migrate import upgrade

    db = Database(url)
    upgrade(db)
    db.dispose()
    port = _free_port()
    env = {
        **os.environ,
        "PBEM_DATABASE_URL": url,
        "PBEM_VAR_DIR": str(var),
        "PBEM_LOG_LEVEL": "WARNING",
        "PBEM_MAIL_EMBEDDED_SCHEDULER": "false",
    }
    server = subprocess.Popen(
        [
            sys.executable, "-m", "gunicorn", "-w", str(args.workers),
            *(["--threads", str(args.threads)] if args.threads > 1 else []),
            "-b", f"127.0.0.1:{port}", "--pythonpath", f"{ROOT},{ROOT / 'bench'}",
            "--log-level", "warning", "service_bench:create_bench_app()",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )  # fmt: skip
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
