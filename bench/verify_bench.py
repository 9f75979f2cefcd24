"""Benchmark of the offline verifier (``python -m pbem.audit.verify``): events checked per second
over a season of finished Lancaster games.

    .venv/bin/python bench/verify_bench.py [--games 20] [--runs 5] [--passes 3] [--season DIR]
                                           [--baseline OLD_CHECKOUT]

The season is made once by the real service on a fresh SQLite database: ``--games`` finished
Lancaster games of 3, 4 and 5 players in turn (random legal moves, seeded), each written as
its full bundle by the real export code into ``--season`` (kept and reused when it already
holds bundles, so that two checkouts can be timed on the same files).

Each run verifies every bundle of the season in a fresh interpreter, ``--passes`` times
(its median pass counts): parse, chain, commitments, seed and the rules' re-run of every
action, timed inside it (the interpreter's start and its imports are in the "wall" time
printed beside). With ``--baseline`` (another checkout of
this repository, e.g. ``git worktree add /tmp/verify-base <commit>``), its verifier is run
the same way, the two alternated run by run (old, new, new, old, ...) so that the machine's
drift affects both alike, and the ratio of the medians is printed; then the command lines
are timed as a person runs them, interpreter's start included: the old one called once per
bundle (all it could do), the new one once per bundle and once on the folder. Not a test:
nothing here runs in ``make test``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

#: run in a fresh interpreter with the checkout under test first on ``sys.path``: verify every
#: bundle of the folder (argv[1]) with that checkout's verifier, argv[2] times over, and print
#: the median pass as JSON
TIMER = """
import json, sys, time
from pathlib import Path
import pbem.audit.verify as verifier
raws = [p.read_bytes() for p in sorted(Path(sys.argv[1]).glob("*.json"))]
passes, cpu = [], []
for _ in range(int(sys.argv[2])):
    started, started_cpu = time.perf_counter(), time.process_time()
    reports = [verifier.verify_bytes(raw) for raw in raws]
    passes.append(time.perf_counter() - started)
    cpu.append(time.process_time() - started_cpu)
seconds, cpu_seconds = sorted(passes)[len(passes) // 2], sorted(cpu)[len(cpu) // 2]
bad = [r.problems for r in reports if not (r.ok and r.replayed)]
print(json.dumps({"module": verifier.__file__, "seconds": seconds, "cpu": cpu_seconds,
                  "bad": len(bad),
                  "events": sum(r.events for r in reports), "files": len(reports)}))
"""


def _service(folder: Path) -> Any:
    import engine
    from pbem.app.bootstrap import build_service
    from pbem.app.config import Settings
    from pbem.core.db import Database
    from pbem.core.migrate import upgrade

    url = f"sqlite:///{folder / 'bench.db'}"
    db = Database(url)
    upgrade(db)
    settings = Settings(database_url=url, secret_key="bench-only-secret", var_dir=str(folder))
    return build_service(settings, db=db, registry=engine.REGISTRY, listeners=[])


def _finished(service: Any, game: str, config: dict[str, Any], players: int, seed: int) -> str:
    names = [{"name": f"P{i}"} for i in range(players)]
    gid: str = service.create_game(game, config, names).id
    choose = random.Random(seed)
    while not (loaded := service.load(gid)).finished and loaded.to_act:
        seat = min(loaded.to_act)
        action = choose.choice(loaded.legal(seat))
        service.submit(gid, seat, action, expected_version=loaded.version, channel="api")
    return gid


def build_season(folder: Path, games: int) -> None:
    """``games`` finished Lancaster games (3, 4, 5 players in turn), each bundle a file."""
    sys.path[:0] = [str(ROOT)]
    from pbem.audit.export import bundle_text

    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        service = _service(Path(tmp))
        for n in range(games):
            players = 3 + n % 3
            gid = _finished(service, "lancaster", {}, players, 1000 + n)
            text = bundle_text(service.export_game(gid))
            (folder / f"lancaster-{n:02d}-{players}p.json").write_text(text, encoding="utf-8")
        service.release_connections()


def time_checkout(checkout: Path, season: Path, passes: int) -> dict[str, Any]:
    """Verify the season with ``checkout``'s verifier in a fresh interpreter (its median
    pass of ``passes``)."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", TIMER, str(season), str(passes)],
        env=env,
        cwd=checkout,
        capture_output=True,
        text=True,
        check=True,
    )
    measured: dict[str, Any] = json.loads(done.stdout)
    measured["wall"] = time.perf_counter() - started
    # The checkout's own verifier, not the one installed in the virtualenv.
    assert Path(measured["module"]).resolve().is_relative_to(checkout.resolve()), measured
    assert measured["bad"] == 0, f"{checkout}: {measured['bad']} bundle(s) failed"
    return measured


def time_command(checkout: Path, season: Path, per_bundle: bool) -> float:
    """Wall seconds ``checkout``'s command line takes to check the season, interpreter's start
    and imports included: one ``python -m pbem.audit.verify BUNDLE`` per bundle (all the old
    command could do), or one call on the folder."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    calls = [[p] for p in sorted(season.glob("*.json"))] if per_bundle else [[season]]
    started = time.perf_counter()
    for paths in calls:
        done = subprocess.run(
            [sys.executable, "-m", "pbem.audit.verify", *map(str, paths)],
            env=env,
            cwd=checkout,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, (checkout, paths, done.stderr)
    return time.perf_counter() - started


def compare_commands(checkouts: dict[str, Path], season: Path, runs: int, events: int) -> None:
    """The old command a bundle at a time against the new one on the folder, alternated."""
    ways = {
        "old, a call per bundle": (checkouts["old"], True),
        "new, a call per bundle": (checkouts["new"], True),
        "new, one call on the folder": (checkouts["new"], False),
    }
    names = list(ways)
    seconds: dict[str, list[float]] = {name: [] for name in names}
    for run in range(runs):
        for name in names if run % 2 == 0 else names[::-1]:
            checkout, per_bundle = ways[name]
            seconds[name].append(time_command(checkout, season, per_bundle))
    for name in names:
        median = statistics.median(seconds[name])
        print(
            f"command line, {name}: median {median:.2f} s over {runs} runs = "
            f"{events / median:,.0f} events/s"
        )
    old = statistics.median(seconds[names[0]])
    print(
        f"command line, folder / old per bundle: {old / statistics.median(seconds[names[2]]):.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--passes", type=int, default=3, help="passes over the season per run")
    parser.add_argument("--season", type=Path, help="folder of bundles (made if empty)")
    parser.add_argument("--baseline", type=Path, help="another checkout to time against")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        season: Path = args.season or Path(tmp) / "season"
        if not any(season.glob("*.json")):
            started = time.perf_counter()
            build_season(season, args.games)
            print(
                f"season of {args.games} games played and exported in "
                f"{time.perf_counter() - started:.1f} s into {season}"
            )
        checkouts = {"new": ROOT}
        if args.baseline is not None:
            checkouts = {"old": args.baseline, "new": ROOT}
        names = list(checkouts)
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
        for run in range(args.runs):
            # old, new / new, old / ...: neither always goes first
            for name in names if run % 2 == 0 else names[::-1]:
                runs[name].append(time_checkout(checkouts[name], season, args.passes))
        print(
            f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} "
            f"{os.getloadavg()[2]:.2f} (1, 5, 15 min)"
        )
        rates: dict[str, float] = {}
        # CPU time too: on a machine others load, it moves less than the clock
        cpu_rates: dict[str, float] = {}
        for name in names:
            measured = runs[name]
            events, files = measured[0]["events"], measured[0]["files"]
            each = [events / m["seconds"] for m in measured]
            rates[name] = statistics.median(each)
            cpu_rates[name] = statistics.median(events / m["cpu"] for m in measured)
            wall = statistics.median(m["wall"] for m in measured)
            print(
                f"{name} ({checkouts[name]}): {files} bundles, {events} events; "
                f"median {rates[name]:,.0f} events/s over {len(measured)} runs "
                f"(each: {', '.join(f'{r:,.0f}' for r in each)}); "
                f"{cpu_rates[name]:,.0f} events per CPU second; "
                f"median wall with the interpreter's start {wall:.2f} s"
            )
        if "old" in rates:
            print(
                f"new / old: {rates['new'] / rates['old']:.2f}x "
                f"({cpu_rates['new'] / cpu_rates['old']:.2f}x in CPU time)"
            )
            compare_commands(checkouts, season, args.runs, runs["new"][0]["events"])
            print(f"load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
