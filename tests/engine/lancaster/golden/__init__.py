"""The golden transcript of one seeded 3-player Lancaster game, reviewed as a diff.

Each step records who acts, the action (as typed), the public log, whether the step was
irreversible or a secret vote, and every seat's view after it (seats 0-2 and the spectator).
Views are written as ``path = value`` lines: the full views after setup, then, per step, the
paths that changed — under ``all`` when every viewer saw the same change, else under the
viewer. A fresh run must reproduce the stored file exactly. After a deliberate change:

    .venv/bin/python -m tests.engine.lancaster.golden --update
    git diff tests/engine/lancaster/golden/
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.core import rng

# The transcripts are of games created under rules 1.0.0, which such games keep for ever.
from engine.lancaster import LANCASTER_1_0 as R

PLAYERS = 3
SEED = 20_260_413
PATH = Path(__file__).with_name("lancaster-3p.txt")
#: the Henry V transcript: 4 players with every module this version plays
HENRY_V_PATH = Path(__file__).with_name("lancaster-4p-henry-v.txt")
HENRY_V_MODULES = ("kings_court", "laws_of_the_king", "resentment")


def goldens() -> list[tuple[Path, int, int, tuple[str, ...]]]:
    """(file, players, seed, Henry V modules) of every golden transcript."""
    return [(PATH, PLAYERS, SEED, ()), (HENRY_V_PATH, 4, SEED + 4, HENRY_V_MODULES)]


REMOVED = "<removed>"


def flatten(value: Any, prefix: str = "") -> dict[str, str]:
    """Leaves of a JSON value as {path: JSON text}."""
    if isinstance(value, dict) and value:
        out: dict[str, str] = {}
        for k in sorted(value):
            out.update(flatten(value[k], f"{prefix}.{k}" if prefix else str(k)))
        return out
    if isinstance(value, list) and value:
        out = {}
        for i, item in enumerate(value):
            out.update(flatten(item, f"{prefix}.{i}" if prefix else str(i)))
        return out
    return {prefix: json.dumps(value, ensure_ascii=False, sort_keys=True)}


def _viewers(players: int) -> tuple[str, ...]:
    return (*(str(s) for s in range(players)), "spectator")


def _views(state: Any) -> dict[str, dict[str, str]]:
    return {
        v: flatten(R.view(state, None if v == "spectator" else int(v)))
        for v in _viewers(state.players)
    }


def _delta(old: dict[str, str], new: dict[str, str]) -> dict[str, str]:
    out = {p: v for p, v in new.items() if old.get(p) != v}
    out.update({p: REMOVED for p in old if p not in new})
    return out


def _write_views(lines: list[str], old: dict[str, dict[str, str]], new: dict[str, Any]) -> None:
    viewers = tuple(new)
    deltas = {v: _delta(old.get(v, {}), new[v]) for v in viewers}
    common = {
        p: val
        for p, val in deltas[viewers[0]].items()
        if all(deltas[v].get(p) == val for v in viewers[1:])
    }
    for p in sorted(common):
        lines.append(f"  all: {p} = {common[p]}")
    for v in viewers:
        for p in sorted(deltas[v]):
            if p not in common:
                lines.append(f"  {v}: {p} = {deltas[v][p]}")


def transcript(players: int = PLAYERS, seed: int = SEED, modules: tuple[str, ...] = ()) -> str:
    """Play the seeded game (seats and actions drawn uniformly by our own generator) and
    write its transcript."""
    config: dict[str, Any] = {"players": players}
    if modules:
        config["expansions"] = dict.fromkeys(modules, True)
    state = R.initial_state(config, seed)
    r = rng.seed_state(seed + 1)
    title = f"Lancaster, {players} players, seed {seed}"
    if modules:
        title += f", Henry V modules: {', '.join(modules)}"
    lines = [title, "", "== setup"]
    views = _views(state)
    _write_views(lines, {}, views)
    step = 0
    while R.to_act(state):
        step += 1
        to_act = sorted(R.to_act(state))
        i, r = rng.below(r, len(to_act))
        seat = to_act[i]
        legal = R.legal_actions(state, seat)
        j, r = rng.below(r, len(legal))
        action = legal[j]
        flags = [flag for flag, on in (("secret", R.is_secret(state, seat, action)),) if on]
        text = R.format_action(state, action)
        t = R.apply(state, seat, action)
        state = t.state
        if t.irreversible:
            flags.append("irreversible")
        lines.append("")
        lines.append(
            f"== step {step}: seat {seat} ({state.colour_name(seat)}) of {to_act}: {text}"
            + (f"  [{', '.join(flags)}]" if flags else "")
        )
        lines.append(f"  action: {json.dumps(list(action))}")
        lines.extend(f"  log: {line}" for line in t.log)
        new = _views(state)
        _write_views(lines, views, new)
        views = new
    outcome = R.outcome(state)
    assert outcome is not None
    lines.append("")
    lines.append(f"== outcome: {json.dumps(outcome.to_json(), sort_keys=True)}")
    return "\n".join(lines) + "\n"


def stored(path: Path = PATH) -> str:
    return path.read_text(encoding="utf-8")
