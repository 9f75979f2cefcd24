"""Benchmark of the offline verifier (``python -m pbem.audit.verify``): events checked per second.

    .venv/bin/python bench/verify_bench.py [--repeat 7]

Two bundles are made by the real service on a fresh SQLite database: a finished 5-player
Lancaster game (random legal moves, seeded) and a finished game of about 1,000 events (Hoard,
the service tests' hidden-information game, 2 players, with a secret stake each round). Each
is then verified from its bytes ``--repeat`` times, the two measured in alternation; it prints
the median time and events per second of each (parse, chain, commitments, seed and the rules'
re-run of every action). Not a test: nothing here runs in ``make test``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]


def _service(folder: Path) -> Any:
    import engine
    from pbem.app.bootstrap import build_service
    from pbem.app.config import Settings
    from pbem.core.db import Database
    from pbem.core.migrate import upgrade
    from tests.service.hidden_game import HOARD

    url = f"sqlite:///{folder / 'bench.db'}"
    db = Database(url)
    upgrade(db)
    settings = Settings(database_url=url, secret_key="bench-only-secret", var_dir=str(folder))
    registry = engine.REGISTRY.with_rules(HOARD)
    return build_service(settings, db=db, registry=registry, listeners=[])


def _finished(service: Any, game: str, config: dict[str, Any], players: int, seed: int) -> str:
    names = [{"name": f"P{i}"} for i in range(players)]
    gid: str = service.create_game(game, config, names).id
    choose = random.Random(seed)
    while not (loaded := service.load(gid)).finished and loaded.to_act:
        seat = min(loaded.to_act)
        action = choose.choice(loaded.legal(seat))
        service.submit(gid, seat, action, expected_version=loaded.version, channel="api")
    return gid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    import engine
    from pbem.audit.export import bundle_text
    from pbem.audit.verify import verify_bytes
    from tests.service.hidden_game import HOARD

    registry = engine.REGISTRY.with_rules(HOARD)
    with tempfile.TemporaryDirectory() as tmp:
        service = _service(Path(tmp))
        started = time.perf_counter()
        games = {
            "lancaster, 5 players": _finished(service, "lancaster", {}, 5, 11),
            "hoard, ~1,000 events": _finished(service, "hoard", {"rounds": 250}, 2, 12),
        }
        bundles = {
            name: bundle_text(service.export_game(gid)).encode() for name, gid in games.items()
        }
        service.release_connections()
    print(f"games played and exported in {time.perf_counter() - started:.1f} s")
    times: dict[str, list[float]] = {name: [] for name in bundles}
    counts: dict[str, int] = {}
    for _ in range(args.repeat):
        for name, raw in bundles.items():  # alternated, so drift affects both alike
            started = time.perf_counter()
            report = verify_bytes(raw, registry)
            times[name].append(time.perf_counter() - started)
            assert report.ok and report.replayed, (name, report.problems)
            counts[name] = report.events
    for name, measured in times.items():
        median = statistics.median(measured)
        print(
            f"{name}: {counts[name]} events, {len(bundles[name]) / 1024:.0f} KiB; "
            f"median {median * 1000:.0f} ms over {args.repeat} runs = "
            f"{counts[name] / median:,.0f} events/s"
        )


if __name__ == "__main__":
    main()
