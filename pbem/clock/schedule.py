"""Each seat's deadline, as a pure fold of the game's events (docs/deadlines.md).

``GameClock`` is the fold's state: the time control, the game's pauses (``GamePaused`` …
``GameResumed``), the disputes' stops, and per seat the decision it owes (since when, with
what budget), its bank, its extensions, its vacations and its standing order. A dispute
stops every clock but its opener's, from its opening until it is resolved or one
decision's time has passed (``TimeControl.decision_time``), whichever comes first: a seat
cannot stall its own deadline by disputing, nor the others' for longer than that. ``step``
folds the events of one append (one transaction: they share their ``recorded_at``) given the
seats that owe a decision after them.

From it, ``due_at`` is the moment the seat's budget of *counted* time runs out: time in a
pause, a vacation or (with ``weekend_pause``) a weekend in the game's time zone does not
count. So a due time depends on the log alone, never on when it is computed: the stored
read model can be rebuilt and checked (``pbem replay --verify``).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from pbem.clock import events as ce
from pbem.clock.time_control import TimeControl
from pbem.core import events as ev
from pbem.core.time_source import format_time, parse_time
from pbem.create import events as creation_events
from pbem.disputes import events as dispute_events
from pbem.handover import events as handover_events

Interval = tuple[datetime, datetime | None]

#: how many of a seat's latest decisions an undo can give back (undo never reaches further
#: than a few actions: it cannot cross another seat's action without consent, nor a draw)
UNDO_DEPTH = 16


@dataclass
class SeatClock:
    seat: int
    #: when the decision the seat owes began; None: it owes none
    owes_since: datetime | None = None
    #: counted seconds the current decision has, before extensions (None: no deadline)
    budget: int | None = None
    #: seconds added to the current decision (``DeadlineExtended``)
    extension: int = 0
    #: the clock's bank between decisions (``clock`` time controls)
    bank: int | None = None
    #: a ``DeadlineMissed`` was recorded for the current decision
    missed: bool = False
    standing_order: str | None = None
    #: vacations: (start, end) — the end is the earliest of "until", "back", and the
    #: moment the game's vacation allowance ran out
    away: list[Interval] = field(default_factory=list)
    vacation_used: int = 0
    resigned: bool = False
    #: invited and not yet accepted: its clock starts when its player accepts (nobody is
    #: timed on a game they have not agreed to play; docs/deadlines.md)
    invited: bool = False
    #: the time control the current decision began under: a change by the administrator
    #: applies from the next decision on (its grace, reminders, weekends, increment)
    control: TimeControl | None = None
    #: the seat's latest decisions as they stood before its actions ended them, by the
    #: action's version: [version, owes_since, budget, extension, bank] (an undo resumes them)
    ended: list[list[Any]] = field(default_factory=list)


@dataclass
class GameClock:
    time_control: TimeControl
    seats: dict[int, SeatClock]
    #: stretches when no clock runs: the administrator's pauses (end None: still open)
    paused: list[Interval] = field(default_factory=list)
    #: why the open pause is open: "pause" (a clock folded before disputes had their own
    #: stops may still hold "dispute N")
    pause_reasons: list[str] = field(default_factory=list)
    finished: bool = False
    #: each dispute's stop, by the dispute's number: the opener's seat (whose clock runs
    #: on), and the stretch the other clocks stop; its end is known from the opening
    disputes: dict[int, tuple[int, Interval]] = field(default_factory=dict)

    # -- the fold --------------------------------------------------------------------------

    @classmethod
    def start(cls, time_control: TimeControl, seats: Iterable[int]) -> GameClock:
        return cls(time_control, {s: SeatClock(s) for s in seats})

    def step(self, events: Sequence[ev.StoredEvent], to_act: frozenset[int]) -> None:
        """Fold one append's events (they share their recorded time), then start a decision
        for every seat that owes one after them and owed none before."""
        if not events:
            return
        at = parse_time(events[-1].recorded_at)
        for e in events:
            self._apply(e, parse_time(e.recorded_at))
        for seat in self.seats.values():
            owes = (
                seat.seat in to_act and not seat.resigned and not seat.invited and not self.finished
            )
            if not owes:
                seat.owes_since, seat.budget, seat.extension, seat.missed = None, None, 0, False
                seat.control = None
            elif seat.owes_since is None:
                self._begin_decision(seat, at)

    def _begin_decision(self, seat: SeatClock, at: datetime) -> None:
        tc = self.time_control
        seat.owes_since, seat.extension, seat.missed = at, 0, False
        seat.control = tc
        if tc.kind == "fixed":
            seat.budget = tc.per_decision
        elif tc.kind == "clock":
            if seat.bank is None:
                seat.bank = tc.initial
            seat.budget = seat.bank
        else:
            seat.budget = None

    def _end_decision(self, seat: SeatClock, at: datetime, version: int) -> None:
        """The seat acted at ``at``: a clock's bank pays the counted time used, then gains
        its increment, never above the cap."""
        if seat.owes_since is None:
            # It came to owe this decision in the same microsecond: a rebuild reads two such
            # appends as one (``pbem.core.read_models.appends``), where the decision never began.
            # A decision of no length, as the appends made it one by one.
            self._begin_decision(seat, at)
        tc = self.control(seat)
        seat.ended = [
            *seat.ended,
            [version, _time(seat.owes_since), seat.budget, seat.extension, seat.bank,
             tc.to_json()],
        ][-UNDO_DEPTH:]  # fmt: skip
        if seat.owes_since is not None and tc.kind == "clock" and seat.bank is not None:
            used = self.counted(seat, seat.owes_since, at)
            bank = max(0, (seat.budget or 0) + seat.extension - used) + tc.increment
            seat.bank = min(bank, tc.cap) if tc.cap else bank
        seat.owes_since, seat.budget, seat.extension, seat.missed = None, None, 0, False
        seat.control = None

    def _apply(self, e: ev.StoredEvent, at: datetime) -> None:
        p = e.payload
        seat = self.seats.get(getattr(p, "seat", -1))
        if isinstance(p, ce.TimeControlSet):
            self.time_control = TimeControl.from_json(p.time_control)
        elif isinstance(p, ev.ActionApplied) and seat is not None:
            self._end_decision(seat, at, e.version)
            if p.channel == "deadline":
                seat.standing_order = None  # "for their next deadline": used once
        elif isinstance(p, ev.ActionsRetracted):
            self._resume_decisions(set(p.versions))
        elif isinstance(p, ce.DeadlineMissed) and seat is not None:
            seat.missed = True
        elif isinstance(p, ce.DeadlineExtended) and seat is not None:
            if seat.owes_since is not None and seat.missed:
                # A missed deadline the game waits on (``on_deadline = wait``), reopened by
                # the administrator: the seat gets the extension from now on.
                used = self.counted(seat, seat.owes_since, at)
                seat.extension = max(0, used - (seat.budget or 0)) + p.seconds
                seat.missed = False
            elif seat.owes_since is not None:
                seat.extension += p.seconds
        elif isinstance(p, ce.StandingOrderSet) and seat is not None:
            seat.standing_order = p.text
        elif isinstance(p, ce.VacationStarted) and seat is not None:
            self._leave(seat, at, parse_time(p.until))
        elif isinstance(p, ce.VacationEnded) and seat is not None:
            self._come_back(seat, at)
        elif isinstance(p, ce.GamePaused):
            self._pause(at, "pause")
        elif isinstance(p, ce.GameResumed):
            self._resume(at, "pause")
        elif isinstance(p, dispute_events.DisputeOpened):
            limit = timedelta(seconds=self.time_control.decision_time)
            self.disputes[e.version] = (p.seat, (at, at + limit))
        elif isinstance(p, dispute_events.DisputeResolved):
            self._resume(at, f"dispute {p.dispute}")
            if p.dispute in self.disputes:
                opener, (start, end) = self.disputes[p.dispute]
                if end is not None and at < end:
                    self.disputes[p.dispute] = (opener, (start, max(start, at)))
        elif isinstance(p, ev.GameCreated):
            for invited in p.invited:
                if invited in self.seats:
                    self.seats[invited].invited = True
        elif isinstance(p, ev.SeatTaken):
            # An open seat taken: a clock of its own (no decision until the game starts).
            self.seats.setdefault(p.seat, SeatClock(p.seat)).invited = p.invited
        elif isinstance(p, creation_events.InvitationAccepted) and seat is not None:
            seat.invited = False
        elif isinstance(p, ev.PlayerResigned) and seat is not None:
            seat.resigned = True
        elif isinstance(p, handover_events.SeatHandedOver) and seat is not None:
            self._hand_over(seat, at)
        elif isinstance(p, ev.GameFinished):
            self.finished = True

    def _hand_over(self, seat: SeatClock, at: datetime) -> None:
        """A substitute took the seat (docs/deadlines.md, "Substitutes"): the decision it
        owes starts again for the newcomer (a clock's bank is kept, the time the old player
        spent on this decision is not counted); the old player's standing order and
        vacation were theirs, not the newcomer's. Decided here: the issue let us continue
        the deadline or restart it; restarting is fairer to someone who just arrived."""
        self._come_back(seat, at)
        seat.standing_order = None
        seat.invited = False  # the newcomer accepted by taking the seat over
        if seat.owes_since is not None:
            self._begin_decision(seat, at)

    def _resume_decisions(self, retracted: set[int]) -> None:
        """An undone action gives its decision back as it stood, time spent included: an
        undo earns no increment and no fresh deadline (else move-and-undo would farm time).
        Decided here: rules/README.md is silent on clocks; docs/deadlines.md says so."""
        for seat in self.seats.values():
            undone = [entry for entry in seat.ended if entry[0] in retracted]
            if not undone:
                continue
            _, owes_since, budget, extension, bank, *control = min(undone, key=lambda e: e[0])
            seat.control = TimeControl.from_json(control[0]) if control else self.time_control
            seat.owes_since, seat.budget = _parse(owes_since), budget
            seat.extension, seat.bank, seat.missed = extension, bank, False
            seat.ended = [entry for entry in seat.ended if entry[0] not in retracted]

    def _leave(self, seat: SeatClock, at: datetime, until: datetime) -> None:
        self._come_back(seat, at)
        allowance = max(0, self.time_control.vacation - seat.vacation_used)
        end = min(until, at + timedelta(seconds=allowance))
        if end > at:
            seat.away.append((at, end))
            seat.vacation_used += int((end - at).total_seconds())

    def _come_back(self, seat: SeatClock, at: datetime) -> None:
        """Back early: the vacation ends now, and the allowance not used is kept."""
        if seat.away and seat.away[-1][1] is not None and seat.away[-1][1] > at:
            start, end = seat.away[-1]
            assert end is not None
            seat.vacation_used -= int((end - max(start, at)).total_seconds())
            seat.away[-1] = (start, max(start, at))

    def _pause(self, at: datetime, reason: str) -> None:
        if reason in self.pause_reasons:
            return
        if not self.pause_reasons:
            self.paused.append((at, None))
        self.pause_reasons.append(reason)

    def _resume(self, at: datetime, reason: str) -> None:
        if reason not in self.pause_reasons:
            return
        self.pause_reasons.remove(reason)
        if not self.pause_reasons and self.paused:
            start, _ = self.paused[-1]
            self.paused[-1] = (start, at)

    # -- what follows from it ---------------------------------------------------------------

    def control(self, seat: SeatClock) -> TimeControl:
        """The time control of the seat's current decision (the game's, between decisions)."""
        return seat.control if seat.control is not None else self.time_control

    def blocked(self, seat: SeatClock) -> list[Interval]:
        """The stretches when the seat's clock does not run, weekends aside, merged."""
        disputed = [stop for opener, stop in self.disputes.values() if opener != seat.seat]
        return _merge([*self.paused, *disputed, *seat.away])

    def counted(self, seat: SeatClock, start: datetime, end: datetime) -> int:
        """Seconds between ``start`` and ``end`` that count against the seat."""
        total = 0.0
        t = start
        for a, b in self._stops(seat, start):
            if a >= end:
                break
            if a > t:
                total += (a - t).total_seconds()
            if b is None:
                return int(total)
            t = max(t, b)
            if t >= end:
                return int(total)
        if end > t:
            total += (end - t).total_seconds()
        return int(total)

    def due_at(self, seat: SeatClock) -> datetime | None:
        """When the seat's decision runs out of counted time; None when it owes none, its
        time control sets no deadline, or the game is paused with no end in sight."""
        if seat.owes_since is None or seat.budget is None:
            return None
        return self.advance(seat, seat.owes_since, seat.budget + seat.extension)

    def advance(self, seat: SeatClock, start: datetime, seconds: float) -> datetime | None:
        """The moment ``seconds`` of counted time after ``start``."""
        remaining = max(0.0, seconds)
        t = start
        for a, b in self._stops(seat, start):
            if a > t:
                span = (a - t).total_seconds()
                if span >= remaining:
                    return t + timedelta(seconds=remaining)
                remaining -= span
            if b is None:
                return None
            t = max(t, b)
        return t + timedelta(seconds=remaining)

    def _stops(self, seat: SeatClock, start: datetime) -> Iterator[Interval]:
        """The stretches that do not count, from ``start`` on, in order and merged: the
        game's pauses and the seat's vacations, and every weekend when weekends pause."""
        explicit = [(a, b) for a, b in self.blocked(seat) if b is None or b > start]
        control = self.control(seat)
        if not control.weekend_pause:
            yield from explicit
            return
        weekends = _weekends(start, control.time_zone)
        yield from _merged(heapq.merge(explicit, weekends, key=lambda i: i[0]))

    def reminders(self, seat: SeatClock) -> list[tuple[str, datetime]]:
        """The reminders of the seat's decision: (key, when), in time order; a reminder
        that would fall before the decision began is not sent."""
        due = self.due_at(seat)
        if due is None or seat.owes_since is None or seat.missed:
            return []
        tc = self.control(seat)
        out: dict[str, datetime] = {}
        for before in tc.reminders:
            when = due - timedelta(seconds=before)
            if when > seat.owes_since:
                out[f"before {before}s"] = when
        if tc.remind_at_fraction is not None and seat.budget:
            share = (seat.budget + seat.extension) * tc.remind_at_fraction
            when80 = self.advance(seat, seat.owes_since, share)
            if when80 is not None and when80 < due:
                out[f"{round(tc.remind_at_fraction * 100)}% gone"] = when80
        return sorted(out.items(), key=lambda kv: (kv[1], kv[0]))

    def act_at(self, seat: SeatClock) -> datetime | None:
        """When the sweep acts on a missed deadline: the due time plus the grace."""
        due = self.due_at(seat)
        if due is None or seat.missed:
            return None
        return due + timedelta(seconds=self.control(seat).grace)

    def status(self, seat: SeatClock) -> str:
        if seat.owes_since is None:
            return "idle"
        if seat.budget is None:
            return "untimed"
        if seat.missed:
            return "late"
        if self.due_at(seat) is None:
            return "paused"
        return "running"

    # -- storage -----------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "time_control": self.time_control.to_json(),
            "paused": [_interval_json(i) for i in self.paused],
            "pause_reasons": list(self.pause_reasons),
            "finished": self.finished,
            "disputes": [
                [number, opener, _interval_json(stop)]
                for number, (opener, stop) in sorted(self.disputes.items())
            ],
            "seats": [
                {
                    "seat": s.seat,
                    "owes_since": _time(s.owes_since),
                    "budget": s.budget,
                    "extension": s.extension,
                    "bank": s.bank,
                    "missed": s.missed,
                    "standing_order": s.standing_order,
                    "away": [_interval_json(i) for i in s.away],
                    "vacation_used": s.vacation_used,
                    "resigned": s.resigned,
                    "invited": s.invited,
                    "ended": s.ended,
                    "control": None if s.control is None else s.control.to_json(),
                }
                for s in sorted(self.seats.values(), key=lambda s: s.seat)
            ],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameClock:
        seats = {
            d["seat"]: SeatClock(
                seat=d["seat"],
                owes_since=_parse(d["owes_since"]),
                budget=d["budget"],
                extension=d["extension"],
                bank=d["bank"],
                missed=d["missed"],
                standing_order=d["standing_order"],
                away=[_interval(i) for i in d["away"]],
                vacation_used=d["vacation_used"],
                resigned=d["resigned"],
                invited=d.get("invited", False),
                ended=d.get("ended", []),
                control=None if d.get("control") is None else TimeControl.from_json(d["control"]),
            )
            for d in data["seats"]
        }
        return cls(
            TimeControl.from_json(data["time_control"]),
            seats,
            [_interval(i) for i in data["paused"]],
            list(data["pause_reasons"]),
            data["finished"],
            {n: (opener, _interval(stop)) for n, opener, stop in data.get("disputes", [])},
        )


def _time(when: datetime | None) -> str | None:
    return None if when is None else format_time(when)


def _parse(text: str | None) -> datetime | None:
    return None if text is None else parse_time(text)


def _interval_json(i: Interval) -> list[str | None]:
    return [format_time(i[0]), _time(i[1])]


def _interval(data: list[str | None]) -> Interval:
    start = data[0]
    assert start is not None
    return (parse_time(start), _parse(data[1]))


def _merge(intervals: Iterable[Interval]) -> list[Interval]:
    return list(_merged(sorted(intervals, key=lambda i: i[0])))


def _merged(stream: Iterable[Interval]) -> Iterator[Interval]:
    """Stretches sorted by start, overlapping or touching ones joined; stops after one that
    never ends."""
    current: Interval | None = None
    for a, b in stream:
        if current is None:
            current = (a, b)
        elif current[1] is not None and a <= current[1]:
            current = (current[0], None if b is None else max(current[1], b))
        else:
            yield current
            current = (a, b)
        if current[1] is None:
            yield current
            return
    if current is not None:
        yield current


def _weekends(start: datetime, zone_name: str) -> Iterator[Interval]:
    """Saturday 00:00 to Monday 00:00 in the zone, as UTC, from the weekend around
    ``start`` on (local midnights, so a daylight-saving change inside one moves its end)."""
    zone = ZoneInfo(zone_name)
    local = start.astimezone(zone).date()
    saturday = local - timedelta(days=(local.weekday() - 5) % 7)
    if saturday > local:
        saturday -= timedelta(days=7)
    while True:
        begin = datetime.combine(saturday, time(0), tzinfo=zone).astimezone(UTC)
        end = datetime.combine(saturday + timedelta(days=2), time(0), tzinfo=zone).astimezone(UTC)
        if end > start:
            yield (begin, end)
        saturday += timedelta(days=7)


def fold(
    time_control: TimeControl,
    seats: Iterable[int],
    batches: Iterable[tuple[Sequence[ev.StoredEvent], frozenset[int]]],
) -> GameClock:
    """The clock after every batch (for tests and rebuilds)."""
    clock = GameClock.start(time_control, seats)
    for events, to_act in batches:
        clock.step(events, to_act)
    return clock


__all__ = ["GameClock", "SeatClock", "fold"]
