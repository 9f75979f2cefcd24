"""The commands on a game's clock (docs/deadlines.md): the administrator extends a seat's
deadline, pauses and resumes the game and changes its time control; a seat sets a standing
order for its next deadline; a player goes away and comes back: across all the games of its
address when it asks by mail from that address, in the one game of its seat when it asks
with a seat token. The requests a seat makes for the others' consent are
``pbem.clock.consent``.

Each command is one unit of work on the game, appends the clock events of
``pbem.clock.events`` (the deadlines projection folds them in the same transaction), and
refuses with a ``pbem.core.errors`` error, changing nothing, when it does not apply.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func
from sqlmodel import col, select

from engine.core import ActionSyntaxError, EngineError
from pbem.clock import events as ce
from pbem.clock.projection import clock_row
from pbem.clock.schedule import GameClock, SeatClock
from pbem.clock.time_control import (
    LONGEST,
    TimeControlError,
    format_duration,
    parse_duration,
    parse_time_control,
)
from pbem.core.db import Database
from pbem.core.errors import AgainstTheRules, BadRequest, Conflict, ServiceError, Unreadable
from pbem.core.models import Deadline, Game, Seat
from pbem.core.naming import names_for
from pbem.core.time_source import Clock, format_time
from pbem.core.unit_of_work import Transactions, UnitOfWork
from pbem.play.command_checks import can_type, check_admin, check_can_act

#: The longest standing order (the event's schema allows as much).
MAX_ORDER = 500
#: How a date is written in ``away until …``.
DATE_FORMAT = "2026-12-24 or 2026-12-24 18:00 (UTC)"
# ASCII: ``\d`` alone would also read "٢٠٢٦-١٢-٢٤" (strptime too).
_UNTIL = re.compile(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2})(?:[ T]([0-9]{1,2}:[0-9]{2})(?::[0-9]{2})?)?\s*(?:utc|z)?",
    re.I | re.ASCII,
)


@dataclass(frozen=True)
class ClockResult:
    game_id: str
    #: the game's version after the command
    version: int
    #: what was done, in a few words for people
    done: str

    def to_json(self) -> dict[str, Any]:
        return {"game_id": self.game_id, "version": self.version, "done": self.done}


@dataclass(frozen=True)
class OrderResult(ClockResult):
    #: True when the order was checked against the position now (the seat owes the decision)
    checked: bool = False


@dataclass(frozen=True)
class VacationResult:
    """One game of the address: what ``away``/``back`` did there."""

    game_id: str
    seat: int
    #: the game's version after it; None when nothing was recorded in this game
    version: int | None
    #: the end of the vacation the clock counts (capped by the allowance), if away
    until: str | None
    #: seconds of vacation allowance left in this game
    allowance_left: int | None
    note: str
    #: the game's name (``lancelot``); "" when the game could not be read
    game: str = ""
    #: the game's vacation allowance in all, in seconds (None: the game has no deadlines)
    allowance: int | None = None
    #: the seat's deadline after it (ISO UTC), when it owes a timed decision now
    due_at: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "seat": self.seat,
            "version": self.version,
            "until": self.until,
            "allowance_left": self.allowance_left,
            "note": self.note,
        }


def _due(txn: UnitOfWork, seat: int) -> str | None:
    """The seat's running deadline as this transaction's projection left it (None: it owes
    no timed decision now), for the answer to ``away`` and ``back``."""
    row = txn.session.get(Deadline, (txn.game_id, seat))
    return row.due_at if row is not None and row.status == "running" else None


def note_sentence(note: str) -> str:
    """A game's note as a sentence of the refusal (the untimed game's note is the
    administrator's refusal, which names an operator's command)."""
    if note.startswith("This game has no time control"):
        return "this game has no time control, so it has no deadlines and no clock to stop."
    return note if note.endswith(".") else note + "."


def game_clock(txn: UnitOfWork) -> GameClock | None:
    """The game's clock as projected (None: the game never had a time control)."""
    row = clock_row(txn.session, txn.game_id)
    return None if row is None else GameClock.from_json(json.loads(row.state))


def timed_clock(txn: UnitOfWork) -> GameClock:
    """The clock of a game with deadlines, or Conflict saying it has none."""
    clock = game_clock(txn)
    if clock is None or not clock.time_control.enabled:
        raise Conflict(
            "This game has no time control, so it has no deadlines: give it one first "
            "(pbem time-control GAME standard)."
        )
    return clock


def owes_timed(clock: GameClock, seat: int) -> SeatClock | None:
    s = clock.seats.get(seat)
    if s is None or s.owes_since is None or s.budget is None:
        return None
    return s


def check_not_finished(txn: UnitOfWork) -> None:
    if txn.finished:
        raise Conflict(f"The game is over (it finished at version {txn.version}).")


def parse_until(text: str, now: datetime) -> datetime:
    """``2026-12-24`` (the start of that day, UTC) or ``2026-12-24 18:00`` (UTC); in the
    future and within a year, else BadRequest saying how to write it."""
    match = _UNTIL.fullmatch(text.strip())
    when: datetime | None = None
    if match:
        try:
            day = datetime.strptime(match.group(1), "%Y-%m-%d")
            if match.group(2):
                hours, minutes = (int(x) for x in match.group(2).split(":"))
                day = day.replace(hour=hours, minute=minutes)
            when = day.replace(tzinfo=UTC)
        except ValueError:
            when = None
    if when is None:
        raise BadRequest(f"Write the day you are back as {DATE_FORMAT}, not {text.strip()[:40]!r}.")
    if when <= now:
        raise BadRequest(
            f"{format_time(when)[:16].replace('T', ' ')} UTC is already past: write a day "
            f"to come, as {DATE_FORMAT}."
        )
    if when - now > timedelta(seconds=LONGEST):
        raise BadRequest("That is more than a year away: write a day within the year.")
    return when


def duration(text: str) -> int:
    """A duration people write (``24h``, ``1d 12h``), or BadRequest."""
    try:
        return parse_duration(text, "extension")
    except TimeControlError as error:
        raise BadRequest(str(error)) from None


class ClockCommands:
    """The clock's commands (part of ``pbem.app.service.GameService``)."""

    def __init__(self, db: Database, clock: Clock, transactions: Transactions) -> None:
        self.db = db
        self.clock = clock
        self.transactions = transactions

    # -- the administrator --------------------------------------------------------------

    def extend(
        self, game_id: str, admin_token: str | None, seat: int, seconds: int, *, channel: str
    ) -> ClockResult:
        """Give ``seat`` ``seconds`` more for the decision it owes now; a missed deadline the
        game waits on (``on_deadline = wait``) is reopened with ``seconds`` from now."""
        with self.transactions.on(game_id) as txn:
            check_admin(txn, admin_token)
            check_can_act(txn, seat)
            if seconds < 1 or seconds > LONGEST:
                raise BadRequest("An extension is between one second and a year.")
            clock = timed_clock(txn)
            owing = owes_timed(clock, seat)
            name = names_for(txn.rules, txn.state, [s.name for s in txn.seats]).of(seat)
            if owing is None:
                raise Conflict(f"{name} owes no decision now: there is no deadline to extend.")
            event = ce.DeadlineExtended(
                seat=seat,
                seconds=seconds,
                by="administrator",
                by_seat=None,
                channel=channel,
                channel_ref=None,
            )
            stored = txn.append([event], txn.state)
            done = f"{name}'s deadline extended by {format_duration(seconds)}"
            if owing.missed:  # the game waited on it: reopened, from now
                done = f"{name}'s missed deadline reopened: {format_duration(seconds)} from now"
            return ClockResult(game_id, stored[-1].version, done)

    def pause(self, game_id: str, admin_token: str | None, *, channel: str) -> ClockResult:
        with self.transactions.on(game_id) as txn:
            check_admin(txn, admin_token)
            check_not_finished(txn)
            clock = timed_clock(txn)
            if "pause" in clock.pause_reasons:
                raise Conflict("The game is already paused.")
            event = ce.GamePaused(
                by="administrator", by_seat=None, channel=channel, channel_ref=None
            )
            stored = txn.append([event], txn.state)
            return ClockResult(game_id, stored[-1].version, "game paused")

    def resume(self, game_id: str, admin_token: str | None, *, channel: str) -> ClockResult:
        with self.transactions.on(game_id) as txn:
            check_admin(txn, admin_token)
            check_not_finished(txn)
            clock = timed_clock(txn)
            if "pause" not in clock.pause_reasons:
                raise Conflict("The game is not paused.")
            event = ce.GameResumed(
                by="administrator", by_seat=None, channel=channel, channel_ref=None
            )
            stored = txn.append([event], txn.state)
            return ClockResult(game_id, stored[-1].version, "game resumed")

    def set_time_control(
        self, game_id: str, admin_token: str | None, value: Any, *, channel: str
    ) -> ClockResult:
        """A new time control, from each seat's next decision on (a preset name, a duration
        such as ``48h``, or an object)."""
        with self.transactions.on(game_id) as txn:
            check_admin(txn, admin_token)
            check_not_finished(txn)
            try:
                control = parse_time_control(value)
            except TimeControlError as error:
                raise BadRequest(str(error)) from None
            clock = game_clock(txn)
            if clock is None and not control.enabled:
                raise Conflict("The game has no time control already.")
            if clock is not None and clock.time_control == control:
                raise Conflict(f"The game's time control is already {control.describe()}.")
            event = ce.TimeControlSet(
                time_control=control.to_json(), by="administrator", channel=channel
            )
            stored = txn.append([event], txn.state)
            done = f"time control from the next decision on: {control.describe()}"
            return ClockResult(game_id, stored[-1].version, done)

    # -- a seat -------------------------------------------------------------------------

    def set_standing_order(
        self,
        game_id: str,
        seat: int,
        text: str | None,
        *,
        channel: str,
        channel_ref: str | None = None,
    ) -> OrderResult:
        """The move to play for ``seat`` at its next deadline (None clears it). Checked now
        when the seat owes the decision: one that does not read or is not legal is refused;
        otherwise it is kept, and checked at the deadline."""
        with self.transactions.on(game_id) as txn:
            check_can_act(txn, seat)
            clock = timed_clock(txn)
            if clock.time_control.on_deadline != "move":
                raise Conflict(
                    "In this game a missed deadline waits for the administrator: no move is "
                    "played for you, so a standing order would never be used."
                )
            current = clock.seats[seat].standing_order if seat in clock.seats else None
            checked = False
            if text is None:
                if current is None:
                    raise Conflict("You have no standing order to clear.")
            else:
                text = " ".join(text.split())
                if not text:
                    raise BadRequest("Write the move after 'default', or 'default none'.")
                if len(text) > MAX_ORDER:
                    raise BadRequest(f"A standing order is at most {MAX_ORDER} characters.")
                if seat in txn.rules.to_act(txn.state):
                    self._check_order(txn, seat, text)
                    checked = True
            event = ce.StandingOrderSet(
                seat=seat,
                text=text,
                channel=channel,
                channel_ref=channel_ref,
                salt=secrets.token_hex(16),
            )
            stored = txn.append([event], txn.state)
            done = "standing order cleared" if text is None else f"standing order: {text}"
            return OrderResult(game_id, stored[-1].version, done, checked)

    def _check_order(self, txn: UnitOfWork, seat: int, text: str) -> None:
        rules, state = txn.rules, txn.state
        try:
            action = rules.parse_action(state, seat, text)
        except ActionSyntaxError as error:
            raise Unreadable(
                f"{error}: the standing order was not set.", error.can_type or can_type(txn, seat)
            ) from None
        except EngineError as error:
            raise AgainstTheRules(f"{error}: the standing order was not set.") from None
        try:
            rules.apply(state, seat, action)
        except EngineError as error:
            raise AgainstTheRules(
                f"{error}: it is not legal now, so the standing order was not set."
            ) from None

    # -- a player, across every game of its address ---------------------------------------
    # Only a request that proved it holds the address (a mail from it) may act across its
    # games: a seat token proves one seat of one game, and whoever creates a game naming an
    # address is handed its token (``away_in_game`` / ``back_in_game``).

    def active_seats(self, email: str) -> list[tuple[str, int]]:
        """(game, seat) of every seat of this address in a game not over, not resigned."""
        address = email.strip().lower()
        with self.db.read() as session:
            rows = session.exec(
                select(Seat.game_id, Seat.seat)
                .join(Game, col(Game.id) == col(Seat.game_id))
                .where(func.lower(Seat.email) == address)
                .where(col(Seat.resigned).is_(False))
                .where(col(Game.finished).is_(False))
                .order_by(col(Seat.game_id), col(Seat.seat))
            ).all()
        return [(g, s) for g, s in rows]

    def away(
        self, email: str, until: datetime, *, channel: str, channel_ref: str | None = None
    ) -> list[VacationResult]:
        """The player of ``email`` is away until ``until``: a vacation in every game where it
        has a seat, each game in its own unit of work, within that game's allowance."""
        seats = self.active_seats(email)
        if not seats:
            raise Conflict("This address has no seat in a game that is still on.")
        results = [self._away_in(g, s, until, channel, channel_ref) for g, s in seats]
        if all(r.version is None for r in results):
            why = "\n".join(f"- game {r.game_id}: {note_sentence(r.note)}" for r in results)
            raise Conflict(
                "Your vacation was not recorded in any of your games, so your clocks keep "
                f"running:\n{why}"
            )
        return results

    def away_in_game(
        self, game_id: str, seat: int, until: datetime, *, channel: str
    ) -> VacationResult:
        """``seat`` is away until ``until`` in this one game (within its allowance): what a
        seat token may ask, since it proves the seat, not the address. Conflict when the
        vacation cannot be recorded here."""
        result = self._away_once(game_id, seat, until, channel, None)
        if result.version is None:
            raise Conflict(f"Your vacation was not recorded: {result.note}.")
        return result

    def back_in_game(self, game_id: str, seat: int, *, channel: str) -> VacationResult:
        """``seat``'s vacation in this one game ends now (see ``away_in_game``)."""
        result = self._back_in(game_id, seat, channel, None)
        if result.version is None:
            raise Conflict("You are not away in this game.")
        return result

    def _away_in(
        self, game_id: str, seat: int, until: datetime, channel: str, channel_ref: str | None
    ) -> VacationResult:
        try:
            return self._away_once(game_id, seat, until, channel, channel_ref)
        except ServiceError as error:
            return VacationResult(game_id, seat, None, None, None, error.message)

    def _away_once(
        self, game_id: str, seat: int, until: datetime, channel: str, channel_ref: str | None
    ) -> VacationResult:
        with self.transactions.on(game_id) as txn:
            check_can_act(txn, seat)
            clock = timed_clock(txn)
            tc = clock.time_control
            left = max(0, tc.vacation - clock.seats[seat].vacation_used)
            if left <= 0:
                return VacationResult(
                    game_id,
                    seat,
                    None,
                    None,
                    0,
                    "no vacation allowance left in this game",
                    txn.rules.name,
                    tc.vacation,
                    _due(txn, seat),
                )
            event = ce.VacationStarted(
                seat=seat, until=format_time(until), channel=channel, channel_ref=channel_ref
            )
            stored = txn.append([event], txn.state)
            after = game_clock(txn)
            assert after is not None
            mine = after.seats[seat]
            end = mine.away[-1][1] if mine.away else None
            left = max(0, tc.vacation - mine.vacation_used)
            capped = end is not None and end < until
            note = "away; the allowance ends your vacation early" if capped else "away"
            return VacationResult(
                game_id,
                seat,
                stored[-1].version,
                None if end is None else format_time(end),
                left,
                note,
                txn.rules.name,
                tc.vacation,
                _due(txn, seat),
            )

    def back(
        self, email: str, *, channel: str, channel_ref: str | None = None
    ) -> list[VacationResult]:
        """The player of ``email`` is back: its vacations end now in every game."""
        seats = self.active_seats(email)
        if not seats:
            raise Conflict("This address has no seat in a game that is still on.")
        results = [self._back_in(game, seat, channel, channel_ref) for game, seat in seats]
        if all(r.version is None for r in results):
            raise Conflict("You are not away in any game.")
        return results

    def _back_in(
        self, game_id: str, seat: int, channel: str, channel_ref: str | None
    ) -> VacationResult:
        now = self.clock.now()
        with self.transactions.on(game_id) as txn:
            clock = game_clock(txn)
            mine = None if clock is None else clock.seats.get(seat)
            ends = [b for _, b in (mine.away if mine else []) if b is not None and b > now]
            if clock is None or mine is None or not ends:
                left = allowance = None
                if clock is not None and mine is not None:
                    allowance = clock.time_control.vacation
                    left = max(0, allowance - mine.vacation_used)
                return VacationResult(
                    game_id, seat, None, None, left, "not away", txn.rules.name, allowance
                )
            event = ce.VacationEnded(seat=seat, channel=channel, channel_ref=channel_ref)
            stored = txn.append([event], txn.state)
            after = game_clock(txn)
            assert after is not None
            allowance = after.time_control.vacation
            left = max(0, allowance - after.seats[seat].vacation_used)
            return VacationResult(
                game_id,
                seat,
                stored[-1].version,
                None,
                left,
                "back",
                txn.rules.name,
                allowance,
                _due(txn, seat),
            )

    # -- reading ------------------------------------------------------------------------

    def deadlines(self, game_id: str | None = None) -> list[dict[str, Any]]:
        """Each seat's deadline row (the read model), with the seat's name: one game, or
        every game that has deadlines. For operators and the game's administrator."""
        with self.db.read() as session:
            same_seat = (col(Seat.game_id) == col(Deadline.game_id)) & (
                col(Seat.seat) == col(Deadline.seat)
            )
            query = select(Deadline, Seat).join(Seat, same_seat)
            if game_id is not None:
                query = query.where(Deadline.game_id == game_id)
            rows = session.exec(query.order_by(col(Deadline.game_id), col(Deadline.seat))).all()
            return [
                {
                    "game_id": d.game_id,
                    "seat": d.seat,
                    "name": s.name,
                    "status": "resigned" if s.resigned else d.status,
                    "due_at": d.due_at,
                    "act_at": d.act_at,
                    "standing_order": d.standing_order is not None,
                    "away_until": d.away_until,
                }
                for d, s in rows
            ]
