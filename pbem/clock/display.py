"""Deadlines and clock events as players read them, in mails and on pages.

Times are shown in UTC, and a deadline shown to a player who gave a time zone
(``pbem.clock.preferences``) also in theirs: ``Tue 24 Nov 2026 14:00 UTC (15:00 Europe/Paris), in
1 day 4 hours``. A game with ``weekend_pause`` has a time zone of its own, but its deadlines
are still shown in UTC, so that every mail and page of the service reads alike.

Only what any seat may see is used here: a deadline, a seat's name, who did what. The move
played for a late seat is rendered by the caller from the viewer's view of the log.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from pbem.clock import events as ce
from pbem.clock.preferences import local_text
from pbem.clock.time_control import TimeControl, format_duration
from pbem.core.naming import Names
from pbem.core.time_source import parse_time

#: The deadline line of a seat that owes no timed decision.
NO_DEADLINE = "none set"
LATE = "deadline passed; waiting for the administrator"
PAUSED = "clock paused"


def when_text(when: datetime) -> str:
    """``Tue 24 Nov 2026 14:00 UTC`` (seconds shown only when they are not zero, since
    short test and demo time controls have deadlines at any second)."""
    when = when.astimezone(UTC)
    text = when.strftime("%a %d %b %Y %H:%M")
    if when.second:
        text += when.strftime(":%S")
    return text + " UTC"


def deadline_text(
    status: str | None, due_at: str | None, now: datetime, zone: str | None = None
) -> str:
    """The deadline of a seat's decision, from its ``deadlines`` row (``status`` None: the
    game has no time control): ``Tue 24 Nov 2026 14:00 UTC (in 1 day 4 hours)``, or with the
    player's ``zone`` ``Tue 24 Nov 2026 14:00 UTC (15:00 Europe/Paris), in 1 day 4 hours``."""
    if status == "late":
        return LATE
    if status == "paused":
        return PAUSED
    if status != "running" or due_at is None:
        return NO_DEADLINE
    due = parse_time(due_at)
    left = (due - now).total_seconds()
    when = f"in {format_duration(round(left))}" if left > 0 else "passed"
    if zone is None:
        return f"{when_text(due)} ({when})"
    return f"{when_text(due)} ({local_text(due, zone)}), {when}"


def time_control_text(state_json: str | None) -> str:
    """The game's time control for people (``game_clocks.state``; None: untimed)."""
    if state_json is None:
        return TimeControl().describe()
    return TimeControl.from_json(json.loads(state_json)["time_control"]).describe()


def due_text(due_at: str) -> str:
    try:
        return when_text(parse_time(due_at))
    except ValueError:
        return due_at


def _by(by: str, by_seat: int | None, names: Names | None) -> str:
    if by == "seat" and by_seat is not None:
        return names.of(by_seat) if names is not None else f"seat {by_seat}"
    return {
        "creator": "the game's creator",
        "administrator": "the administrator",
        "consent": "every player's consent",
        "service": "the service",
    }.get(by, by)


def clock_event_text(kind: str, d: dict[str, Any], names: Names | None = None) -> str | None:
    """One clock event as people read it (None: not a clock event). ``d``: its payload as
    JSON; none of these events holds hidden information."""
    named = names

    def who(seat: int) -> str:
        return names.of(seat) if names is not None else f"seat {seat}"

    if kind == ce.DEADLINE_MISSED:
        late = f"{who(d['seat'])} missed the deadline of {due_text(d['due_at'])}"
        return late if d["move"] else late + "; the game waits for the administrator"
    if kind == ce.DEADLINE_EXTENDED:
        return (
            f"{who(d['seat'])}'s deadline extended by {format_duration(d['seconds'])} "
            f"({_by(d['by'], d['by_seat'], named)})"
        )
    if kind == ce.GAME_PAUSED:
        return f"game paused by {_by(d['by'], d['by_seat'], named)}: the clocks stopped"
    if kind == ce.GAME_RESUMED:
        return f"game resumed by {_by(d['by'], d['by_seat'], named)}: the clocks run again"
    if kind == ce.VACATION_STARTED:
        return f"{who(d['seat'])} is away until {due_text(d['until'])}: their clock stopped"
    if kind == ce.VACATION_ENDED:
        return f"{who(d['seat'])} is back: their clock runs again"
    if kind == ce.TIME_CONTROL_SET:
        tc = TimeControl.from_json(d["time_control"])
        if d["by"] == "creator":
            return f"time control: {tc.describe()}"
        by = _by(d["by"], None, named)
        return f"time control set by {by}: {tc.describe()} (from the next decision on)"
    if kind == ce.CLOCK_REQUESTED:
        asked = {"extend": "an extension of their deadline", "pause": "a pause of the game",
                 "resume": "that the game resume"}.get(d["what"], d["what"])  # fmt: skip
        if d["what"] == "extend" and d.get("seconds"):
            asked = f"an extension of their deadline by {format_duration(d['seconds'])}"
        return f"{who(d['seat'])} asks the others' consent to {asked}"
    if kind == ce.CLOCK_REQUEST_ANSWERED:
        verdict = "agrees to" if d["agree"] else "refuses"
        return f"{who(d['seat'])} {verdict} the request of version {d['request']}"
    if kind == ce.STANDING_ORDER_SET:
        # Only its own seat (and an operator) is shown this event (``pbem.play.views``).
        if d.get("hidden"):
            return f"{who(d['seat'])} changed their standing order"
        if d.get("text") is None:
            return f"{who(d['seat'])} cleared their standing order"
        return f"{who(d['seat'])} set their standing order: {d['text']}"
    return None


def missed_notices(
    missed: Sequence[tuple[ce.DeadlineMissed, str | None]], viewer: int, names: Names
) -> list[str]:
    """What every seat is told of deadlines missed in one append: who was late and what was
    played for them. ``missed``: each ``DeadlineMissed`` with the deadline move's text as
    ``viewer`` may see it (None when no move was played)."""
    lines = []
    for p, played in missed:
        own = p.seat == viewer
        who = "You" if own else names.of(p.seat)
        line = f"{who} missed the deadline of {due_text(p.due_at)}"
        if not p.move or played is None:
            lines.append(line + "; the game waits for the administrator.")
            continue
        if p.reason == "standing order":
            why = "your standing order" if own else "their standing order"
        elif p.reason.startswith("standing order not legal"):
            whose = "your" if own else "their"
            why = f"the default move: {whose} standing order was not legal"
        else:
            why = "the default move"
        lines.append(f"{line}; played for {'you' if own else 'them'}: {played} ({why}).")
    return lines
