"""The mail planners: the table the outbox plans each append's mails by.

Every append may cause mails: a seat's turn, the notice of an undo request, of a dispute or
of the clock, the end of the game. Each feature declares, beside its mail texts, which mails
an append holding its events causes (a :class:`MailPlanner`: the event types it answers, and
its planner); the composition root (``pbem.app.bootstrap.mail_planners``) fills one table with
all of them, and the outbox (``pbem.mail.outbound.outbox``) knows none: it calls the planners
of the append's event types (and those answering every append) and writes what they plan.

Per append, each seat with an address gets at most one mail: that of the first planner, in
the table's order, that writes the seat one. A planner may also decide that the seat gets no
mail at all this time (``NO_MAIL``: a seat whose invitation waits, a seat that resigned).

Besides, a feature may add lines that every mail of the append carries while something is
open (a dispute, an undo request waiting for answers, the clock's news): a
:class:`StandingNotice`, written in the table's order after the bounce notices. And it may act
once the append's mails are planned (``Settle``: table talk drops a message's waiting mail
that a turn mail now carries).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar

from sqlmodel import Session

from pbem.app.config import Settings
from pbem.core import events as ev
from pbem.core.events import StoredEvent
from pbem.core.repository import SeatInfo
from pbem.core.unit_of_work import AppendContext
from pbem.mail.outbound import compose as c
from pbem.mail.outbound.html_part import MailBoard

T = TypeVar("T")


@dataclass(frozen=True)
class Mail:
    """The one mail a seat gets for an append."""

    #: what it is (``turn``, ``notice``, ``end`` …): the outbox row's ``kind``
    kind: str
    text: str
    #: it carries the seat's reply address
    answerable: bool = True
    #: sent no sooner than this after the append (table talk waits a minute, so that a mail
    #: of the game written meanwhile can carry it instead: ``pbem.talk.coalescing``)
    not_before: timedelta = timedelta(0)


#: A planner's answer that the seat gets no mail for this append, whatever later planners say.
NO_MAIL = Mail("", "")

#: A seat's mail as one planner sees it: a ``Mail``, ``NO_MAIL``, or None to leave the seat
#: to the next planner.
SeatMail = Callable[[SeatInfo], Mail | None]
#: Called once per append it answers: the seat's mail, or None when it writes no seat any.
Plan = Callable[["AppendMails"], SeatMail | None]
#: Called once per append it answers: the seat's lines in every mail, or None for none.
WriteNotice = Callable[["AppendMails"], Callable[[int], str] | None]
#: Called once per append with every mail planned for it (each seat's), before they are
#: written: a feature acts on what they carry (table talk drops its waiting mail a turn mail
#: now carries, ``pbem.talk.coalescing``).
Settle = Callable[["AppendMails", Sequence[tuple[SeatInfo, "Mail"]]], None]


@dataclass(frozen=True)
class MailPlanner:
    """The mails an append holding one of ``on``'s event types causes (``on`` None: every
    append, for mails that depend on the game rather than on one event, as a seat's turn)."""

    plan: Plan
    on: frozenset[str] | None = None


@dataclass(frozen=True)
class StandingNotice:
    """Lines every mail of an append holding one of ``on``'s event types carries (``on``
    None: every append)."""

    write: WriteNotice
    on: frozenset[str] | None = None


class MailPlanners:
    """The table: each event type with the planners of the mails it causes, in precedence."""

    def __init__(
        self,
        notices: Sequence[StandingNotice] = (),
        mails: Sequence[MailPlanner] = (),
        settle: Sequence[Settle] = (),
    ) -> None:
        self._notices = tuple(notices)
        self._mails = tuple(mails)
        #: what runs once the append's mails are planned (``Settle``)
        self.settle = tuple(settle)
        self._notices_by_type = _by_type(n.on for n in self._notices)
        self._mails_by_type = _by_type(m.on for m in self._mails)

    def notices_for(self, types: Iterable[str]) -> list[StandingNotice]:
        """The standing notices an append of these event types carries, in order."""
        return [self._notices[i] for i in _answering(self._notices_by_type, types)]

    def mails_for(self, types: Iterable[str]) -> list[MailPlanner]:
        """The planners an append of these event types asks, in precedence."""
        return [self._mails[i] for i in _answering(self._mails_by_type, types)]


def _by_type(ons: Iterable[frozenset[str] | None]) -> dict[str | None, list[int]]:
    """Each event type with the positions of the entries answering it (None: every append)."""
    table: dict[str | None, list[int]] = {}
    for i, on in enumerate(ons):
        for kind in (None,) if on is None else sorted(on):
            table.setdefault(kind, []).append(i)
    return table


def _answering(table: dict[str | None, list[int]], types: Iterable[str]) -> list[int]:
    found = set(table.get(None, ()))
    for kind in types:
        found.update(table.get(kind, ()))
    return sorted(found)


class AppendMails:
    """One append as its mail planners read it: its events, whom it leaves to act, the log's
    tail (for "since your last move"), what the game's mails read besides its log
    (``compose.MailFacts``), and the parts every mail to a seat has."""

    def __init__(
        self,
        ctx: AppendContext,
        settings: Settings,
        now: datetime,
        history: list[StoredEvent],
        facts: c.MailFacts,
    ) -> None:
        self.ctx = ctx
        self.session: Session = ctx.session
        self.settings = settings
        self.now = now
        self.events = ctx.events
        self.types = frozenset(e.type for e in ctx.events)
        self.rules = ctx.rules
        self.names = ctx.names
        #: the version before the append: a notice tells what happened after it
        self.before = ctx.events[0].version - 1
        self.history = history
        self.facts = facts
        # (a game waiting for players asks nobody: ``AppendContext``)
        self.to_act_before = ctx.to_act_before
        self.to_act_after = ctx.to_act_after
        #: the append ends the game (every mail shows the final board)
        self.game_over = ev.GAME_FINISHED in self.types
        self._rules_link = c.rules_link(settings, ctx.rules)
        self._notices: list[Callable[[int], str]] = []
        self._read: dict[Callable[[AppendMails], Any], Any] = {}
        self._common: dict[int, dict[str, object]] = {}
        self._votes: dict[int, str] = {}
        self._boards: dict[int, MailBoard] = {}

    def once(self, read: Callable[[AppendMails], T]) -> T:
        """``read(self)``, computed once per append: what a feature's notice and planner
        both need (one database read, not two)."""
        if read not in self._read:
            self._read[read] = read(self)
        value: T = self._read[read]
        return value

    def first(self, event_type: str) -> StoredEvent | None:
        """The append's first event of ``event_type``, if any."""
        return next((e for e in self.events if e.type == event_type), None)

    def key_version(self, seat: int) -> int:
        """The seat's reply-key version, which its links and reply address are signed with."""
        return self.facts.key_versions.get(seat, 0)

    def add_notices(self, notice: Callable[[int], str]) -> None:
        """Lines of a standing notice, for every mail written after (the outbox adds them
        before it asks the planners)."""
        self._notices.append(notice)

    def votes(self, seat: int) -> str:
        """The receipts of the seat's secret actions in this append: the salt is its author's
        receipt, so it goes out now, before the reveal, whatever ``mail.confirmations`` says."""
        if seat not in self._votes:
            self._votes[seat] = c.vote_receipts(self.settings, self.ctx.game_id, self.events, seat)
        return self._votes[seat]

    def common(self, seat: SeatInfo) -> dict[str, object]:
        """The parts every mail to ``seat`` has (its templates' common fields)."""
        found = self._common.get(seat.seat)
        if found is None:
            found = self._common[seat.seat] = self._common_parts(seat)
        return found

    def _common_parts(self, seat: SeatInfo) -> dict[str, object]:
        ctx, names = self.ctx, self.names
        lines = [c.bounce_notices(ctx.seats, self.facts.failing, seat.seat, names)]
        lines.extend(notice(seat.seat) for notice in self._notices)
        notices = "\n".join(line for line in lines if line)
        return {
            "marker": c.MARKER,
            "title": f"{ctx.rules.name.title()}, game {ctx.game_id}",
            "name": names.of(seat.seat),
            "link": c.seat_link(
                self.session, self.settings, ctx.game_id, seat.seat, self.key_version(seat.seat)
            ),
            "rules_link": self._rules_link,
            "receipt": "\n".join(
                r for r in (c.receipt(ctx.version, ctx.head_hash), self.votes(seat.seat)) if r
            ),
            "board": self.board(seat.seat).text,
            "notices": f"\n{notices}\n" if notices else "",
        }

    def board(self, seat: int) -> MailBoard:
        """The seat's board after the append, as its mail's text and HTML parts show it."""
        found = self._boards.get(seat)
        if found is None:
            ctx = self.ctx
            found = self._boards[seat] = c.mail_board(
                ctx.rules, ctx.state_after, seat, self.names, finished=self.game_over
            )
        return found

    def notice(self, seat: SeatInfo, headline: str, asked: str = "") -> str:
        """A notice: ``headline``, what happened since the append began, and what the seat is
        ``asked`` to do, if anything."""
        return c.render(
            "notice",
            **self.common(seat),
            headline=headline,
            since=c.since_text(self.history, seat.seat, self.before, "What happened:", self.names),
            asked=asked + "\n" if asked else "",
        )
