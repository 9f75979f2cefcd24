"""The deadline state as the audit shows it (``pbem.audit.evidence``): the game's time control and
each seat's deadline now, and for each move the deadline of the decision it ended, from the
log alone (the clock folded as ``pbem.clock.schedule`` folds it, append by append).

Only what every seat may know is said: due times, whether a move came in time, and that the
service played a late seat's move, never the standing order's text.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from pbem.clock import events as ce
from pbem.clock.display import deadline_text, when_text
from pbem.clock.schedule import GameClock
from pbem.clock.time_control import TimeControl
from pbem.core import events as ev
from pbem.core.naming import Names
from pbem.core.time_source import parse_time

#: A game or a decision with no deadline.
NO_TIME_CONTROL = "no time control"


def game_deadlines(
    state_json: str | None, rows: Sequence[Mapping[str, Any]], names: Names, now: datetime
) -> str:
    """The game's time control and each seat's deadline now, in one line: ``state_json``
    its ``game_clocks`` state (None: it never had a time control), ``rows`` its
    ``deadlines`` rows (``ClockCommands.deadlines``)."""
    if state_json is None:
        return NO_TIME_CONTROL
    clock = GameClock.from_json(json.loads(state_json))
    if not clock.time_control.enabled:
        return NO_TIME_CONTROL
    seats = []
    for row in rows:
        status = row["status"]
        if status == "idle":
            said = "not to move"
        elif status == "resigned":
            said = "resigned"
        else:
            said = deadline_text(status, row["due_at"], now)
        seats.append(f"{names.of(row['seat'])}: {said}")
    return "; ".join([clock.time_control.describe(), *seats])


def step_deadlines(
    batches: Iterable[tuple[Sequence[ev.StoredEvent], frozenset[int]]], seats: Iterable[int]
) -> dict[int, str]:
    """For each move of the log (by its version), the deadline of the decision it ended, in
    words. ``batches``: the log cut into its appends (``pbem.core.read_models.appends``)."""
    clock = GameClock.start(TimeControl(), seats)
    out: dict[int, str] = {}
    for events, to_act in batches:
        missed: dict[int, ce.DeadlineMissed] = {}
        for e in events:
            p = e.payload
            if isinstance(p, ce.DeadlineMissed):
                missed[p.seat] = p
            elif isinstance(p, ev.ActionApplied):
                out[e.version] = _step_text(clock, p, parse_time(e.recorded_at), missed)
        clock.step(events, to_act)
    return out


def _step_text(
    clock: GameClock,
    action: ev.ActionApplied,
    at: datetime,
    missed: Mapping[int, ce.DeadlineMissed],
) -> str:
    """The deadline of the decision ``action`` ended, as the clock stood before its append."""
    late = missed.get(action.seat)
    if action.channel == "deadline" and late is not None:
        why = "the standing order" if late.reason == "standing order" else "the default move"
        return f"due {when_text(parse_time(late.due_at))}; missed: the service played {why}"
    seat = clock.seats.get(action.seat)
    if not clock.time_control.enabled and (seat is None or seat.budget is None):
        return NO_TIME_CONTROL
    if seat is None or seat.owes_since is None or seat.budget is None:
        return "no deadline for this decision"
    due = clock.due_at(seat)
    if due is None:
        return f"clock stopped; played at {when_text(at)}"
    if seat.missed:
        return (
            f"due {when_text(due)}; played after it, at {when_text(at)}, the game having "
            "waited for the administrator"
        )
    if at <= due:
        return f"due {when_text(due)}; played in time, at {when_text(at)}"
    return f"due {when_text(due)}; played after it, in the grace time, at {when_text(at)}"
