"""What may be disputed and what a ruling does.

A dispute names actions in effect (``disputed_versions``), by a version or a range
(``parse_versions``), with a few words of text (``MAX_TEXT``). An upheld dispute retracts the
disputed actions and everything played after them, exactly as a consented undo does
(``pbem.undo.rules.plan`` decides what, ``uphold_plan`` asks it; nothing is deleted).

Who upholds: every other active seat's consent, or the game's administrator alone. Consent
never crosses an irreversible step (a draw, a reveal): only the administrator may
(``administrator_only``, ``consent_refusal``), and the log then says which hidden information
those steps had already revealed (``revealed_by``), since it stays known to every player.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from pbem.core import events as ev
from pbem.core.errors import AgainstTheRules, BadRequest
from pbem.core.events import StoredEvent
from pbem.core.models import Dispute
from pbem.core.naming import Names, names_for
from pbem.core.numbers import read_int
from pbem.core.unit_of_work import UnitOfWork
from pbem.undo import rules as undo_rules

#: The longest text of a dispute (a few sentences; a mail line is at most 200 characters).
MAX_TEXT = 2000
#: The most versions one dispute may name (a range is for a few related moves).
MAX_RANGE = 200

#: ``41`` or ``41-43`` (also ``41..43``, ``v41``)
_RANGE = re.compile(
    r"^v?([0-9]{1,9})(?:\s*(?:-|–|\.\.)\s*v?([0-9]{1,9}))?$", re.IGNORECASE | re.ASCII
)


def parse_versions(text: str) -> tuple[int, int]:
    """``"41"`` -> (41, 41); ``"41-43"`` -> (41, 43); BadRequest saying what to write."""
    match = _RANGE.match(text.strip())
    if match is None:
        raise BadRequest(
            f"Name the version you dispute as a number, or a range such as 41-43 (not "
            f"{text.strip()[:40]!r})."
        )
    first = read_int(match.group(1), what="the first version")
    last = read_int(match.group(2), what="the last version") if match.group(2) else first
    if last < first:
        # Read backwards it may name other moves than meant: the writer says which.
        raise BadRequest(
            f"The first version must not be after the last: write {last}-{first}, not "
            f"{first}-{last}."
        )
    return first, last


def disputed_versions(events: Sequence[StoredEvent], head: int, first: int, last: int) -> list[int]:
    """The actions in effect from ``first`` to ``last``, or why there are none."""
    if not 1 <= first <= last < head + 1:
        raise AgainstTheRules(
            f"The game is at version {head}: name versions from "
            f"{undo_rules.FIRST_POSITION + 1} to {head} "
            f"(not {first if first == last else f'{first}-{last}'})."
        )
    if last - first >= MAX_RANGE:
        raise BadRequest(f"A dispute names at most {MAX_RANGE} versions at once.")
    retracted = ev.retracted_versions(events)
    versions = [
        e.version
        for e in events
        if first <= e.version <= last and e.type == ev.ACTION_APPLIED and e.version not in retracted
    ]
    if not versions:
        span = f"version {first}" if first == last else f"versions {first} to {last}"
        raise AgainstTheRules(
            f"There is no move in effect at {span}: a dispute is about moves played "
            "(see the game's log), not about other events or moves already taken back."
        )
    return versions


def administrator_only(events: Sequence[StoredEvent], first: int) -> bool:
    """Whether upholding a dispute of the moves from version ``first`` on would take back
    an irreversible step (a draw, a reveal), which the players' consent cannot: only the
    administrator may. ``events``: the log from ``first`` on (or all of it)."""
    retracted = ev.retracted_versions(events)
    return any(
        e.version >= first
        and e.version not in retracted
        and isinstance(p := e.payload, ev.ActionApplied)
        and p.irreversible
        for e in events
    )


def uphold_plan(txn: UnitOfWork, row: Dispute) -> undo_rules.Plan:
    """What upholding retracts: the disputed actions and everything played after them,
    by the rules of a consented undo (never across a resignation)."""
    names = seat_names(txn)
    first = min(json.loads(row.versions))
    return undo_rules.plan(
        txn.read(),
        txn.version,
        row.seat,
        first - 1,
        txn.resigned,
        consent=True,
        name_of=names.of,
        cross_irreversible=True,
    )


def consent_refusal(txn: UnitOfWork, crossed: Sequence[int]) -> str:
    """Why the players' consent cannot uphold a dispute whose remedy crosses the irreversible
    steps ``crossed``: naming them, and who can."""
    names = seat_names(txn)
    steps = []
    for e in txn.read():
        if e.version in crossed:
            p = _action(e)
            steps.append(f"version {e.version} ({names.of(p.seat)}: {p.canonical})")
    return (
        f"Retracting these moves would go back across {', '.join(steps)}, which drew "
        "randomness or revealed hidden information: the players' consent cannot undo that. "
        "Only the game's administrator can uphold this dispute."
    )


def revealed_by(events: Sequence[StoredEvent], crossed: Sequence[int], names: Names) -> list[str]:
    """Plain words for what the irreversible steps ``crossed`` had revealed: the step
    itself (its public log: a draw, the votes) and the secret choices it made public."""
    by_version = {e.version: e for e in events}
    retracted = ev.retracted_versions(events)
    lines: list[str] = []
    previous_reveal = 0
    effective = [e for e in events if e.type == ev.ACTION_APPLIED and e.version not in retracted]
    for version in crossed:
        p = by_version[version].payload
        assert isinstance(p, ev.ActionApplied)
        log = " ".join(names.lines(p.log))
        line = (
            f"Version {version} ({names.of(p.seat)}: {p.canonical}) drew randomness or "
            f"revealed hidden information, which every player has seen"
        )
        line += f": {log}" if log else "."
        secrets = [
            e
            for e in effective
            if previous_reveal < e.version < version
            and isinstance(q := e.payload, ev.ActionApplied)
            and q.secret
        ]
        if isinstance(p, ev.ActionApplied) and p.secret:
            secrets.append(by_version[version])
        if secrets:
            choices = ", ".join(
                f"{names.of(_action(e).seat)}: {_action(e).canonical} (version {e.version})"
                for e in secrets
            )
            line += f" It made these secret choices public: {choices}."
        lines.append(line)
        previous_reveal = version
    return lines


def seat_names(txn: UnitOfWork) -> Names:
    """The game's seats as people read them ("Ann (Red)")."""
    return names_for(txn.rules, txn.state, [s.name for s in txn.seats])


def _action(e: StoredEvent) -> ev.ActionApplied:
    p = e.payload
    assert isinstance(p, ev.ActionApplied)
    return p
