"""What the mails of an append say about the game's clock: the deadline line of a turn mail
(from the seat's ``deadlines`` row, projected in the same transaction before the outbox
runs) and the notices of clock events (a deadline missed and what was played for the late
seat, an extension, a pause, a vacation, a new time control): the lines every mail of such an
append carries, and the notice a seat gets of it, planned through the table the composition
root fills (``pbem.mail.outbound.mail_planners``).

The move played for a late seat is shown as each recipient may see it (``visible_events``):
a secret action stays "acted in secret" for the others until its reveal.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session

from pbem.clock import events as ce
from pbem.clock.display import (
    NO_DEADLINE,
    clock_event_text,
    deadline_text,
    due_text,
    missed_notices,
)
from pbem.clock.events import CLOCK_EVENTS
from pbem.clock.projection import clock_row
from pbem.core import events as ev
from pbem.core.events import StoredEvent
from pbem.core.models import Deadline
from pbem.core.naming import Names
from pbem.core.repository import SeatInfo
from pbem.mail.outbound.mail_planners import (
    AppendMails,
    Mail,
    MailPlanner,
    SeatMail,
    StandingNotice,
)
from pbem.play.views import visible_events

#: the notice's first line when nothing else in the append asks for a mail
_HEADLINES = (
    (ce.DeadlineMissed, "a deadline passed."),
    (ce.DeadlineExtended, "a deadline was extended."),
    (ce.GamePaused, "the game is paused."),
    (ce.GameResumed, "the game goes on."),
    (ce.VacationStarted, "a player is away."),
    (ce.VacationEnded, "a player is back."),
    (ce.TimeControlSet, "the time control changed."),
)


@dataclass(frozen=True)
class ClockNews:
    """The clock events of one append, as every seat's mail tells them."""

    headline: str | None
    missed: tuple[tuple[StoredEvent, StoredEvent | None], ...]
    lines: tuple[str, ...]
    #: seats that did it themselves (a vacation, a pause they asked for): they get the line
    #: in any mail of this append, but no notice of their own for it
    doers: frozenset[int]

    def notices(self, history: Sequence[StoredEvent], viewer: int, names: Names) -> str:
        """The lines of this news for ``viewer``'s mail."""
        if not self.missed and not self.lines:
            return ""
        shown: list[tuple[ce.DeadlineMissed, str | None]] = []
        if self.missed:
            wanted = {m.version for _, m in self.missed if m is not None}
            seen = {
                e["version"]: e
                for e in visible_events(
                    [e for e in history if e.version >= min(wanted, default=0)], viewer
                )
                if e["version"] in wanted
            }
            for missed, move in self.missed:
                p = missed.payload
                assert isinstance(p, ce.DeadlineMissed)
                shown.append((p, None if move is None else _played(seen.get(move.version))))
        return "\n".join([*missed_notices(shown, viewer, names), *self.lines])


def _played(entry: dict[str, object] | None) -> str:
    if entry is None:
        return "a move"
    data = entry["data"]
    assert isinstance(data, dict)
    if data.get("hidden"):
        return "a secret action, shown at its reveal"
    return str(data.get("canonical") or data.get("text") or "a move")


def vacation_ends(session: Session, game_id: str) -> Callable[[int], str | None]:
    """When each seat's clock runs again after its latest vacation, as projected (the
    game's vacation allowance may end a vacation before the day the player gave)."""

    def end(seat: int) -> str | None:
        row = session.get(Deadline, (game_id, seat))
        return None if row is None else row.away_until

    return end


def clock_news(
    new: Sequence[StoredEvent],
    names: Names,
    vacation_end: Callable[[int], str | None] | None = None,
) -> ClockNews | None:
    """The clock news of an append's events (None: there is none). A time control set by
    the game's creator is part of its creation, not news. ``vacation_end``: when a seat's
    clock runs again after the vacation it just began (``vacation_ends``)."""
    headline = None
    missed = []
    lines = []
    doers: set[int] = set()
    for i, e in enumerate(new):
        p = e.payload
        if not isinstance(p, tuple(kind for kind, _ in _HEADLINES)):
            continue
        if isinstance(p, ce.TimeControlSet) and p.by == "creator":
            continue
        headline = headline or next(h for kind, h in _HEADLINES if isinstance(p, kind))
        if isinstance(p, ce.DeadlineMissed):
            move = next(
                (
                    m
                    for m in new[i + 1 :]
                    if isinstance(q := m.payload, ev.ActionApplied)
                    and q.seat == p.seat
                    and q.channel == "deadline"
                ),
                None,
            )
            missed.append((e, move))
            continue
        text = clock_event_text(e.type, e.data, names)
        if isinstance(p, ce.VacationStarted) and vacation_end is not None:
            end = vacation_end(p.seat)
            if end is not None and end < p.until:  # both ISO UTC text: compared as text
                text = (
                    f"{names.of(p.seat)} is away; the game's vacation allowance runs out at "
                    f"{due_text(end)}, when their clock runs again"
                )
        if text:
            lines.append(text[0].upper() + text[1:] + ".")
        if isinstance(p, ce.VacationStarted | ce.VacationEnded):
            doers.add(p.seat)
        elif (
            isinstance(p, ce.GamePaused | ce.GameResumed | ce.DeadlineExtended)
            and p.by == "seat"
            and p.by_seat is not None
        ):
            doers.add(p.by_seat)
    if headline is None:
        return None
    return ClockNews(headline, tuple(missed), tuple(lines), frozenset(doers))


def deadline_line(
    session: Session, game_id: str, seat: int, now: datetime, zone: str | None
) -> str:
    """The "Deadline:" of ``seat``'s turn mail, from its row in the read model that this
    append's projection has just written (no row: the game is untimed); also in ``zone``,
    the time zone the seat's address chose, if any."""
    if clock_row(session, game_id) is None:
        return NO_DEADLINE
    row = session.get(Deadline, (game_id, seat))
    if row is None:
        return NO_DEADLINE
    return deadline_text(row.status, row.due_at, now, zone)


# -- the mails of an append ----------------------------------------------------------------


def _news_of(append: AppendMails) -> ClockNews | None:
    """The append's clock news, read once for its lines and its notice."""
    ends = vacation_ends(append.session, append.ctx.game_id)
    return clock_news(append.events, append.names, ends)


def _news_lines(append: AppendMails) -> Callable[[int], str] | None:
    news = append.once(_news_of)
    if news is None:
        return None
    return lambda viewer: news.notices(append.history, viewer, append.names)


def _notice(append: AppendMails) -> SeatMail | None:
    news = append.once(_news_of)
    if news is None:
        return None

    def mail(seat: SeatInfo) -> Mail | None:
        if seat.seat in news.doers:
            return None
        return Mail("notice", append.notice(seat, news.headline or ""))

    return mail


#: the clock's events
_CLOCK_TYPES = frozenset(kind.TYPE for kind in CLOCK_EVENTS)
#: Every mail of an append with clock news tells it (who was late, what was played for them).
NEWS_LINES = StandingNotice(_news_lines, on=_CLOCK_TYPES)
#: A deadline missed, an extension, a pause, a vacation, a new time control: a notice to every
#: seat (not to the seat that went away or asked for the pause itself).
NEWS = MailPlanner(_notice, on=_CLOCK_TYPES)
