"""What the seats change on the clock by consent (docs/deadlines.md): a seat asks to extend
its deadline, to pause or to resume the game (``ClockRequested``); every other active seat
answers (``ClockRequestAnswered``). The last agreement grants it in the same append
(``DeadlineExtended``/``GamePaused``/``GameResumed`` with ``by`` ``consent``); one
disagreement refuses it. At most one request is open at a time; one to extend lapses when
its seat has acted since (the deadline it was about is gone), one to pause or resume when
the game got there another way.

Which request is open is read from the log (the requests are few, and a game's log is read
whole by other commands too).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pbem.clock import events as ce
from pbem.clock.commands import ClockResult, owes_timed, timed_clock
from pbem.clock.schedule import GameClock
from pbem.clock.time_control import DAY, LONGEST, format_duration
from pbem.core import events as ev
from pbem.core.errors import BadRequest, Conflict
from pbem.core.naming import names_for
from pbem.core.unit_of_work import Transactions, UnitOfWork
from pbem.play.command_checks import check_can_act


@dataclass(frozen=True)
class OpenRequest:
    version: int
    seat: int
    what: str
    seconds: int | None
    agreed: frozenset[int]


@dataclass(frozen=True)
class RequestResult(ClockResult):
    #: requested (waiting for answers) | granted | refused
    status: str = "requested"
    request: int | None = None


def open_request(txn: UnitOfWork, clock: GameClock) -> OpenRequest | None:
    """The request waiting for answers, if any."""
    return pending_request(txn.read(), clock)


def pending_request(events: Iterable[ev.StoredEvent], clock: GameClock) -> OpenRequest | None:
    """The request waiting for answers in the log ``events`` (the whole log, in order), if
    any: the commands read it in their unit of work, a seat's page in a read of its own."""
    found: OpenRequest | None = None
    for e in events:
        p = e.payload
        if isinstance(p, ce.ClockRequested):
            found = OpenRequest(e.version, p.seat, p.what, p.seconds, frozenset({p.seat}))
        elif found is None:
            continue
        elif isinstance(p, ce.ClockRequestAnswered) and p.request == found.version:
            if not p.agree:
                found = None
            else:
                found = OpenRequest(
                    found.version, found.seat, found.what, found.seconds, found.agreed | {p.seat}
                )
        elif isinstance(p, ev.ActionApplied) and p.seat == found.seat and found.what == "extend":
            found = None  # the deadline it asked to extend is gone
        elif isinstance(p, (ce.DeadlineExtended, ce.GamePaused, ce.GameResumed)) and (
            p.by == "consent" and p.by_seat == found.seat
        ):
            found = None  # granted
        elif isinstance(p, ev.PlayerResigned) and p.seat == found.seat:
            found = None
    if found is None:
        return None
    paused = "pause" in clock.pause_reasons
    if (found.what == "pause" and paused) or (found.what == "resume" and not paused):
        return None
    return found


class ClockConsent:
    """Requests and their answers (part of ``pbem.app.service.GameService``)."""

    def __init__(self, transactions: Transactions) -> None:
        self.transactions = transactions

    def request(
        self,
        game_id: str,
        seat: int,
        what: str,
        seconds: int | None = None,
        *,
        channel: str,
        channel_ref: str | None = None,
    ) -> RequestResult:
        """``seat`` asks the others to ``extend`` its deadline (by ``seconds``; default one
        decision's time, or a day), to ``pause`` or to ``resume`` the game."""
        if what not in ce.REQUESTS:
            raise BadRequest(f"Ask for one of: {', '.join(ce.REQUESTS)}.")
        with self.transactions.on(game_id) as txn:
            check_can_act(txn, seat)
            clock = timed_clock(txn)
            names = names_for(txn.rules, txn.state, [s.name for s in txn.seats])
            if what == "extend":
                owing = owes_timed(clock, seat)
                if owing is None:
                    raise Conflict("You owe no decision now: there is no deadline to extend.")
                if owing.missed:
                    raise Conflict("Your deadline has passed already: it cannot be extended.")
                seconds = seconds or clock.time_control.per_decision or DAY
                if not 1 <= seconds <= LONGEST:
                    raise BadRequest("An extension is between one second and a year.")
            else:
                seconds = None
                paused = "pause" in clock.pause_reasons
                if what == "pause" and paused:
                    raise Conflict("The game is already paused.")
                if what == "resume" and not paused:
                    raise Conflict("The game is not paused.")
            pending = open_request(txn, clock)
            if pending is not None:
                raise Conflict(
                    f"{names.of(pending.seat)}'s request to {pending.what} is waiting for "
                    f"answers; it must be decided first (reply 'agree {pending.what}' or "
                    f"'disagree {pending.what}')."
                )
            asked = ce.ClockRequested(
                seat=seat, what=what, seconds=seconds, channel=channel, channel_ref=channel_ref
            )
            others = self._others(txn, seat)
            if not others:  # nobody else to ask: granted at once
                effect = self._effect(what, seat, seconds, channel, channel_ref)
                stored = txn.append([asked, effect], txn.state)
                return RequestResult(
                    game_id, stored[-1].version, _granted(what, seconds), "granted",
                    stored[0].version,
                )  # fmt: skip
            stored = txn.append([asked], txn.state)
            version = stored[-1].version
            extra = f" by {format_duration(seconds)}" if seconds else ""
            done = f"asked the others to {what}{extra}"
            return RequestResult(game_id, version, done, "requested", version)

    def answer(
        self,
        game_id: str,
        seat: int,
        what: str | None,
        agree: bool,
        *,
        channel: str,
        channel_ref: str | None = None,
    ) -> RequestResult:
        """``seat`` answers the open request (``what``, when given, must name it)."""
        with self.transactions.on(game_id) as txn:
            check_can_act(txn, seat)
            clock = timed_clock(txn)
            pending = open_request(txn, clock)
            if pending is None or (what is not None and what != pending.what):
                asked = f"to {what} " if what else ""
                raise Conflict(f"There is no request {asked}waiting for an answer.")
            if seat == pending.seat:
                raise Conflict("That is your own request: the other players answer it.")
            if seat in pending.agreed:
                raise Conflict("You agreed to this request already.")
            answered = ce.ClockRequestAnswered(
                request=pending.version,
                seat=seat,
                agree=agree,
                channel=channel,
                channel_ref=channel_ref,
            )
            if not agree:
                stored = txn.append([answered], txn.state)
                return RequestResult(
                    game_id, stored[-1].version, f"refused the request to {pending.what}",
                    "refused", pending.version,
                )  # fmt: skip
            waiting = self._others(txn, pending.seat) - pending.agreed - {seat}
            if waiting:
                stored = txn.append([answered], txn.state)
                return RequestResult(
                    game_id, stored[-1].version, f"agreed to {pending.what}", "requested",
                    pending.version,
                )  # fmt: skip
            effect = self._effect(pending.what, pending.seat, pending.seconds, channel, channel_ref)
            stored = txn.append([answered, effect], txn.state)
            return RequestResult(
                game_id, stored[-1].version, _granted(pending.what, pending.seconds),
                "granted", pending.version,
            )  # fmt: skip

    @staticmethod
    def _others(txn: UnitOfWork, seat: int) -> set[int]:
        return {s.seat for s in txn.seats if not s.resigned and s.seat != seat}

    @staticmethod
    def _effect(
        what: str, seat: int, seconds: int | None, channel: str, channel_ref: str | None
    ) -> ev.Payload:
        if what == "extend":
            assert seconds is not None
            return ce.DeadlineExtended(
                seat=seat, seconds=seconds, by="consent", by_seat=seat,
                channel=channel, channel_ref=channel_ref,
            )  # fmt: skip
        kind = ce.GamePaused if what == "pause" else ce.GameResumed
        return kind(by="consent", by_seat=seat, channel=channel, channel_ref=channel_ref)


def _granted(what: str, seconds: int | None) -> str:
    if what == "extend":
        return (
            f"the asker's deadline extended by {format_duration(seconds or 0)} "
            "(every player agreed)"
        )
    return f"game {'paused' if what == 'pause' else 'resumed'} (every player agreed)"
