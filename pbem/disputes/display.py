"""A dispute as the API, the pages and the audit evidence show it: every seat may read all
of it, the players named and a resolved one's reason given."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pbem.core.events import StoredEvent
from pbem.core.models import Dispute
from pbem.core.naming import Names
from pbem.disputes import events as dispute_events


def resolution_reasons(events: Sequence[StoredEvent]) -> dict[int, str]:
    """The reason of each resolved dispute (by its DisputeResolved version): a dismissal's
    reason, or for an upheld dispute the remedy in words."""
    return {
        e.version: p.reason
        for e in events
        if isinstance(p := e.payload, dispute_events.DisputeResolved)
    }


def row_json(
    row: Dispute, names: Names | None = None, reasons: dict[int, str] | None = None
) -> dict[str, Any]:
    """A dispute as the API and pages show it (every seat may read all of it); ``reasons``:
    ``resolution_reasons`` of the game's log, for the reason of a resolved one."""
    answers = {int(k): v for k, v in json.loads(row.answers).items()}
    out: dict[str, Any] = {
        "dispute": row.dispute,
        "seat": row.seat,
        "versions": json.loads(row.versions),
        "text": row.text,
        "status": row.status,
        "agreed": sorted(s for s, v in answers.items() if v),
        "disagreed": sorted(s for s, v in answers.items() if not v),
        "opened_at": row.opened_at,
        "resolved": row.resolved,
        "reason": None if row.resolved is None else (reasons or {}).get(row.resolved),
    }
    if names is not None:
        # People read names, never seat numbers: "Ann (Red)".
        out["by"] = names.of(row.seat)
        out["agreed_names"] = [names.of(s) for s in out["agreed"]]
        out["disagreed_names"] = [names.of(s) for s in out["disagreed"]]
    return out
