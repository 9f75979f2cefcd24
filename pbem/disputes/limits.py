"""When a seat may open a dispute, so that disputes cannot stall a game (docs/deadlines.md).

Each seat may have one dispute open at a time, whoever else has one: a dispute waiting for
an administrator who is away holds nobody else's back. A seat whose dispute was dismissed
waits one decision's time (``TimeControl.decision_time``) before it opens the next: each
dispute stops the other seats' clocks for up to that long, and disputes back to back must
not keep them stopped. An upheld dispute was right, and costs its seat nothing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timedelta

from pbem.clock.display import when_text
from pbem.clock.projection import clock_row
from pbem.clock.schedule import GameClock
from pbem.clock.time_control import TimeControl
from pbem.core import events as ev
from pbem.core.errors import Conflict
from pbem.core.models import Dispute
from pbem.core.time_source import parse_time
from pbem.core.unit_of_work import UnitOfWork
from pbem.disputes import events as dispute_events


def check_may_open(
    txn: UnitOfWork,
    events: Sequence[ev.StoredEvent],
    open_rows: Sequence[Dispute],
    seat: int,
    now: datetime,
) -> None:
    """Conflict, saying when the seat may, unless it may open a dispute now. ``events``: the
    game's log; ``open_rows``: its open disputes."""
    own = [r for r in open_rows if r.seat == seat]
    if own:
        raise Conflict(
            f"Your dispute {own[0].dispute} is still open: it must be resolved before you "
            "open another."
        )
    dismissed = [
        e
        for e in events
        if isinstance(p := e.payload, dispute_events.DisputeResolved)
        and p.opener == seat
        and p.outcome == "dismissed"
    ]
    if not dismissed:
        return
    last = dismissed[-1]
    assert isinstance(last.payload, dispute_events.DisputeResolved)
    allowed = parse_time(last.recorded_at) + timedelta(seconds=_time_control(txn).decision_time)
    if now < allowed:
        raise Conflict(
            f"Your dispute {last.payload.dispute} was dismissed at version {last.version}: you "
            f"may open another from {when_text(allowed)} on (one decision's time later), so "
            "that disputes cannot keep the other players' clocks stopped."
        )


def _time_control(txn: UnitOfWork) -> TimeControl:
    row = clock_row(txn.session, txn.game_id)
    return TimeControl() if row is None else GameClock.from_json(json.loads(row.state)).time_control


__all__ = ["check_may_open"]
