"""The deadline move: what the service does when a seat's deadline has passed (the sweep,
``pbem.clock.sweep``, finds it; this acts on it, in a unit of work on the game).

Exactly once: the sweep's find is a read outside any lock, so under the game's lock the
seat's ``Deadline`` row is read again and the move is made only if it is still running, for
the same due time, and its act time has come. A second sweep, or a rerun after a crash,
then finds the row changed (the first move ended the decision, or a ``DeadlineMissed``
marked it late) and does nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.core import EngineError, Rules
from pbem.clock import events as ce
from pbem.clock.projection import clock_row
from pbem.clock.schedule import GameClock
from pbem.core import events as ev
from pbem.core.models import Deadline
from pbem.core.time_source import Clock, format_time
from pbem.core.unit_of_work import Transactions, UnitOfWork
from pbem.play.actions import action_event, auto_moves
from pbem.play.command_checks import finish

#: The channel of the moves the service makes for a late seat.
DEADLINE_CHANNEL = "deadline"


@dataclass(frozen=True)
class DeadlineAct:
    """What was done about one passed deadline."""

    game_id: str
    seat: int
    due_at: str
    #: False: the game waits (``on_deadline: wait``)
    move: bool
    #: ``standing order``, ``default``, ``standing order not legal: …`` or ``waiting``
    reason: str
    #: the canonical text of the move played (None when waiting, or when it is secret)
    played: str | None
    version: int


class DeadlineMoves:
    """Acts on passed deadlines (part of ``pbem.app.service.GameService``)."""

    def __init__(self, clock: Clock, transactions: Transactions) -> None:
        self.clock = clock
        self.transactions = transactions

    def deadline_passed(
        self, game_id: str, seat: int, due_at: str, now: datetime
    ) -> DeadlineAct | None:
        """Record that ``seat`` missed its deadline ``due_at`` and, unless the game's time
        control says to wait, play its standing order or the engine's default for it. None
        when there is nothing (any more) to do: the seat moved, another sweep acted first,
        the deadline changed (an extension, a pause) or its act time has not come."""
        with self.transactions.on(game_id) as txn:
            row = txn.session.get(Deadline, (game_id, seat))
            if (
                row is None
                or row.status != "running"
                or row.due_at != due_at
                or row.act_at is None
                or row.act_at > format_time(now)
                or txn.finished
                or seat not in txn.rules.to_act(txn.state)
                or seat in txn.resigned
            ):
                return None
            if _on_deadline(txn) == "wait":
                missed = ce.DeadlineMissed(seat=seat, due_at=due_at, move=False, reason="waiting")
                # Not a move: an undo request still waiting for answers does not lapse.
                stored = txn.append([missed], txn.state, lapse=False)
                return DeadlineAct(
                    game_id, seat, due_at, False, "waiting", None, stored[-1].version
                )
            return self._move(txn, seat, due_at, row.standing_order)

    def _move(
        self, txn: UnitOfWork, seat: int, due_at: str, standing_order: str | None
    ) -> DeadlineAct:
        rules, state = txn.rules, txn.state
        received = format_time(self.clock.now())
        event: ev.ActionApplied | None = None
        reason = "default"
        if standing_order:
            try:
                action = rules.parse_action(state, seat, standing_order)
                # The same event a submission makes (``action_event``): a secret action gets
                # its salt and commitment here too; apply refuses what is not legal now.
                event, after = action_event(
                    rules, state, seat, action, standing_order, DEADLINE_CHANNEL, None, received
                )
                reason = "standing order"
            except EngineError as e:  # syntax, not legal now, not this seat's decision
                reason = f"standing order not legal: {e}"
        if event is None:
            action = rules.auto_action(state, seat)
            text = rules.format_action(state, action)
            event, after = action_event(
                rules, state, seat, action, text, DEADLINE_CHANNEL, None, received
            )
        missed = ce.DeadlineMissed(seat=seat, due_at=due_at, move=True, reason=reason)
        new_events: list[ev.Payload] = [missed, event]
        auto, after = auto_moves(rules, after, txn.resigned, received)
        new_events.extend(auto)
        new_events.extend(finish(txn, after))
        stored = txn.append(new_events, after)
        played = None if event.secret else event.canonical
        return DeadlineAct(txn.game_id, seat, due_at, True, reason, played, stored[-1].version)


def what_will_be_played(
    rules: Rules, state: Any, seat: int, standing_order: str | None, on_deadline: str
) -> str:
    """What ``_move`` would do for ``seat`` if its deadline passed now, said to that seat (a
    reminder): its standing order when it is still legal, else the engine's default move.

    The default move is the seat's own and is named to it alone: the engines compute it
    from what the seat's view shows (Lancelot's board; Lancaster's public board, and a vote
    is "no" with no markers), as Lancelot's own "what you can type" already lists it first.
    A standing order is re-checked at the deadline, as ``_move`` does."""
    if on_deadline == "wait":
        return "the game waits for its administrator; no move is played for you."
    if standing_order:
        try:
            action = rules.parse_action(state, seat, standing_order)
            rules.apply(state, seat, action)
        except EngineError:
            default = rules.format_action(state, rules.auto_action(state, seat))
            return (
                f"your standing order '{standing_order}' is not legal in this position, so "
                f"the game's default move will be played for you: {default}"
            )
        return f"your standing order will be played: {rules.format_action(state, action)}"
    default = rules.format_action(state, rules.auto_action(state, seat))
    return f"the game's default move will be played for you: {default}"


def _on_deadline(txn: UnitOfWork) -> Any:
    """The game's ``on_deadline`` (``move`` or ``wait``), from its clock's read model."""
    row = clock_row(txn.session, txn.game_id)
    if row is None:
        return "move"
    return GameClock.from_json(json.loads(row.state)).time_control.on_deadline
