"""Engine benchmark (not a test): how fast each registered game's rules run.

For every game in ``engine.REGISTRY`` and each of its contract configs with the smallest and
largest player count, it prints:

- ``legal_actions``: median time of one call on a mid-game position, for the seat to act;
- ``apply``: median time of one call on that position, over a spread of its legal actions;
- ``game``: median time of one full seeded random game (uniform over legal actions, as the
  contract suite plays them), and the resulting games per second.

Times are medians of many repetitions measured with ``time.perf_counter``.

    .venv/bin/python bench/engine_bench.py            # every game
    .venv/bin/python bench/engine_bench.py lancelot   # one game
    .venv/bin/python bench/engine_bench.py --quick    # fewer repetitions

Per-game hooks: ``MIDGAME_BUILDERS[name]`` builds the mid-game position of a config (default:
half-way through a seeded random game); ``BENCH_CONFIGS[name]`` picks the configs to measure
(default: the contract configs with the smallest and largest player count).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Mapping
from itertools import cycle
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import REGISTRY
from engine.core import contract, rng
from engine.core.protocol import Action, Rules, Seat

Config = dict[str, Any]
Position = tuple[Any, Seat]
SEED = 20_260_101


# -- positions ----------------------------------------------------------------------------


def random_steps(rules: Rules, config: Mapping[str, Any], seed: int) -> list[tuple[Any, Seat]]:
    """A seeded random game, uniform over legal actions: (state, seat to act) per step."""
    return [(state, seat) for state, seat, _ in contract.playout(rules, config, seed)]


def default_midgame(rules: Rules, config: Config) -> Position:
    steps = random_steps(rules, config, SEED)
    return steps[len(steps) // 2]


def lancelot_midgame(rules: Rules, config: Config) -> Position:
    """Random plain placements until half of all knights (15 per player: ~75 with five
    players) stand on the board. The force of the King is kept unused, so in the Excalibur
    variant the seat still has its ~n² king actions to list."""
    target = 15 * int(config["players"])
    for seed in range(SEED, SEED + 100):
        state = rules.initial_state(config, seed)
        r = rng.seed_state(seed)
        while rules.to_act(state):
            (seat,) = rules.to_act(state)
            if len(rules.dump_state(state)["board"]) >= target:
                return state, seat
            legal = [a for a in rules.legal_actions(state, seat) if a[0] != "king"]
            i, r = rng.below(r, len(legal))
            state = rules.apply(state, seat, legal[i]).state
    raise RuntimeError(f"no random game of {config} reached {target} knights on the board")


def lancaster_midgame(rules: Rules, config: Config) -> Position:
    """Lancaster: the placement turn with the most legal actions in a seeded random game
    (knights x counties x squire counts: the biggest choice, and the costliest to check)."""
    best: Position | None = None
    most = -1
    for state, seat in random_steps(rules, config, SEED):
        if rules.dump_state(state)["agenda"][0][0] == "place":
            n = len(rules.legal_actions(state, seat))
            if n > most:
                best, most = (state, seat), n
    assert best is not None
    return best


MIDGAME_BUILDERS: dict[str, Callable[[Rules, Config], Position]] = {
    "lancelot": lancelot_midgame,
    "lancaster": lancaster_midgame,
}


def default_configs(rules: Rules) -> list[Config]:
    counts = (min(rules.player_counts), max(rules.player_counts))
    return [dict(c) for c in rules.contract_configs() if c["players"] in counts]


BENCH_CONFIGS: dict[str, Callable[[Rules], list[Config]]] = {
    # Lancaster's targets are for 5 players with every Henry V module (the last contract
    # config); every count and module set is cheap to show.
    "lancaster": lambda rules: [dict(c) for c in rules.contract_configs()],
}


# -- measuring ----------------------------------------------------------------------------


def median_seconds(fn: Callable[[], object], batches: int, min_batch: float = 0.002) -> float:
    """Median seconds per call of ``fn`` over ``batches`` batches of at least ``min_batch``."""
    reps = 1
    while True:
        start = time.perf_counter()
        for _ in range(reps):
            fn()
        if time.perf_counter() - start >= min_batch:
            break
        reps *= 2
    samples = []
    for _ in range(batches):
        start = time.perf_counter()
        for _ in range(reps):
            fn()
        samples.append((time.perf_counter() - start) / reps)
    return statistics.median(samples)


def spread(actions: tuple[Action, ...], count: int) -> list[Action]:
    return list(actions[:: max(1, len(actions) // count)][:count])


def measure(rules: Rules, config: Config, batches: int, games: int) -> dict[str, Any]:
    builder = MIDGAME_BUILDERS.get(rules.name, default_midgame)
    state, seat = builder(rules, config)
    legal = rules.legal_actions(state, seat)
    legal_s = median_seconds(lambda: rules.legal_actions(state, seat), batches)
    actions = cycle(spread(legal, 64))
    apply_s = median_seconds(lambda: rules.apply(state, seat, next(actions)), batches)
    durations = []
    for g in range(games):
        start = time.perf_counter()
        random_steps(rules, config, SEED + g)
        durations.append(time.perf_counter() - start)
    return {
        "actions": len(legal),
        "legal": legal_s,
        "apply": apply_s,
        "game": statistics.median(durations),
        "games_per_s": games / sum(durations),
    }


def label(config: Config) -> str:
    # Lancaster's Henry V modules are "expansions"; Lancelot's options are "variants".
    options = {**config.get("variants", {}), **config.get("expansions", {})}
    variants = [k for k, on in sorted(options.items()) if on]
    return "+".join(variants) or "-"


def fmt_time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:8.1f} µs"
    return f"{seconds * 1e3:8.2f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", help="game names (default: every registered game)")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args(argv)
    names = args.games or sorted(REGISTRY)
    batches, games = (7, 10) if args.quick else (31, 60)
    header = (
        f"{'game':<10} {'players':>7}  {'variants':<20} {'actions':>7}  "
        f"{'legal_actions':>13}  {'apply':>11}  {'random game':>11}  {'games/s':>8}"
    )
    print(header)
    print("-" * len(header))
    for name in names:
        rules = REGISTRY[name]
        for config in BENCH_CONFIGS.get(name, default_configs)(rules):
            m = measure(rules, rules.validate_config(config), batches, games)
            print(
                f"{name:<10} {config['players']:>7}  {label(config):<20} {m['actions']:>7}  "
                f"{fmt_time(m['legal']):>13}  {fmt_time(m['apply']):>11}  "
                f"{fmt_time(m['game']):>11}  {m['games_per_s']:>8.0f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
