"""The ``game_clocks`` and ``deadlines`` read models: a timed game's clock (the fold of its
events, ``pbem.clock.schedule``) and, per seat, when its decision is due, when the sweep
acts on it and when it is reminded.

A game gets a clock with its first ``TimeControlSet`` (at creation, or when its
administrator gives an untimed game a time control); until then it has neither row.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

from sqlmodel import Session, col, select

from pbem.clock import events as ce
from pbem.clock.schedule import GameClock
from pbem.clock.time_control import TimeControl
from pbem.core import events as ev
from pbem.core.models import Deadline, GameClockState, Invitation, Seat
from pbem.core.projections.runner import ReadModel
from pbem.core.time_source import format_time


def project(
    session: Session, game_id: str, events: Sequence[ev.StoredEvent], to_act: frozenset[int]
) -> None:
    if not events:
        return
    row = clock_row(session, game_id)
    if row is None:
        if not any(e.type == ce.TIME_CONTROL_SET for e in events):
            return
        seats = session.exec(select(Seat).where(Seat.game_id == game_id)).all()
        clock = GameClock.start(TimeControl(), [s.seat for s in seats])
        for s in seats:
            clock.seats[s.seat].resigned = s.resigned
        # (given a time control mid-game: who still has to accept its invitation)
        for invitation in session.exec(
            select(Invitation).where(
                Invitation.game_id == game_id, col(Invitation.accepted_at).is_(None)
            )
        ).all():
            if invitation.seat in clock.seats:
                clock.seats[invitation.seat].invited = True
        row = GameClockState(game_id=game_id, state="")
        remember_clock(session, game_id, row)
    else:
        clock = GameClock.from_json(json.loads(row.state))
    clock.step(events, to_act)
    row.state = ev.canonical_json(clock.to_json())
    session.add(row)
    for seat in clock.seats.values():
        deadline = session.get(Deadline, (game_id, seat.seat))
        if deadline is None:
            deadline = Deadline(game_id=game_id, seat=seat.seat, status="idle")
        due, act_at = clock.due_at(seat), clock.act_at(seat)
        reminders = clock.reminders(seat)
        away = [b for a, b in seat.away if b is not None]
        deadline.status = clock.status(seat)
        deadline.owes_since = _text(seat.owes_since)
        deadline.due_at = _text(due)
        deadline.act_at = _text(act_at)
        deadline.reminders = ev.canonical_json([[k, format_time(t)] for k, t in reminders])
        deadline.next_reminder_at = format_time(reminders[0][1]) if reminders else None
        deadline.bank = seat.bank
        deadline.standing_order = seat.standing_order
        deadline.away_until = format_time(max(away)) if away else None
        session.add(deadline)


#: ``session.info`` key: game id -> its ``game_clocks`` row (None: the game has none), as this
#: transaction read it
_CLOCK_ROWS = "pbem.game_clocks"


def clock_row(session: Session, game_id: str) -> GameClockState | None:
    """The game's ``game_clocks`` row, read once per transaction: every append's projection
    and every turn mail asks, and an untimed game has no row for the session's identity map
    to remember (so each ``session.get`` of it would go to the database again)."""
    known: dict[str, GameClockState | None] = session.info.setdefault(_CLOCK_ROWS, {})
    if game_id not in known:
        known[game_id] = session.get(GameClockState, game_id)
    return known[game_id]


def remember_clock(session: Session, game_id: str, row: GameClockState | None) -> None:
    """What this transaction knows of the game's clock row (read with the game, or made)."""
    session.info.setdefault(_CLOCK_ROWS, {})[game_id] = row


def forget_clocks(session: Session) -> None:
    """Forget the rows read (their table is about to be rewritten)."""
    session.info.pop(_CLOCK_ROWS, None)


def _text(when: datetime | None) -> str | None:
    return None if when is None else format_time(when)


#: registered by the composition root (``pbem.app.bootstrap.register_features``), after
#: ``seats`` and ``invitations``: a game given a time control mid-game reads who resigned and
#: who has yet to accept from them. ``game_clocks`` is written by the deadlines' projection,
#: which folds the clock the deadlines are computed from; its row is read with the game's
#: when a write transaction locks it, since every append's projection and turn mail asks.
READ_MODELS = (
    ReadModel(Deadline, "game_id", ("seat",), project),
    ReadModel(
        GameClockState,
        "game_id",
        ("game_id",),
        None,
        preload=remember_clock,
        forget=forget_clocks,
    ),
)
