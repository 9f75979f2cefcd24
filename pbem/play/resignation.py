"""Leaving a game: a seat resigns (its turns are then played automatically), the game's
administrator resigns a seat for its player, or ends the game (every seat still playing
resigns). The administrator's commands are guarded by the admin token shown once at
creation."""

from __future__ import annotations

from pbem.core import events as ev
from pbem.core.errors import Conflict
from pbem.core.time_source import Clock, format_time
from pbem.core.unit_of_work import Transactions, UnitOfWork
from pbem.mail.inbound.reply_words import CHANNEL, Done, ReplyLine, ReplyWords
from pbem.play.actions import auto_moves
from pbem.play.command_checks import check_admin, check_can_act, finish, seed
from pbem.play.results import SubmitResult

#: The channel of what the game's administrator does.
ADMIN_CHANNEL = "cli"


class Resignation:
    """Resigning seats and ending games (part of ``pbem.app.service.GameService``)."""

    def __init__(self, clock: Clock, transactions: Transactions) -> None:
        self.clock = clock
        self.transactions = transactions

    def resign(
        self, game_id: str, seat: int, *, channel: str, channel_ref: str | None = None
    ) -> SubmitResult:
        """``seat`` leaves the game: its turns are played automatically from now on; when
        one player is left, that player wins."""
        with self.transactions.on(game_id) as txn:
            check_can_act(txn, seat)
            return self._resign(txn, seat, channel, channel_ref)

    def _resign(
        self, txn: UnitOfWork, seat: int, channel: str, channel_ref: str | None
    ) -> SubmitResult:
        received = format_time(self.clock.now())
        resigned = txn.resigned | {seat}
        new_events: list[ev.Payload] = [
            ev.PlayerResigned(seat=seat, channel=channel, channel_ref=channel_ref)
        ]
        active = [s.seat for s in txn.seats if s.seat not in resigned]
        state = txn.state
        if len(active) <= 1:
            outcome = {
                "scores": [],
                "winners": active,
                "breakdown": [],
                "resigned": sorted(resigned),
            }
            new_events.append(ev.GameFinished(outcome, seed(txn), "resignation"))
        else:
            auto, state = auto_moves(txn.rules, state, resigned, received)
            new_events.extend(auto)
            new_events.extend(finish(txn, state))
        stored = txn.append(new_events, state)
        return SubmitResult(txn.game_id, stored[-1].version, (), txn.finished)

    def admin_resign(self, game_id: str, admin_token: str | None, seat: int) -> SubmitResult:
        """The administrator resigns ``seat`` for its player (one who left without a word)."""
        with self.transactions.on(game_id) as txn:
            check_admin(txn, admin_token)
            check_can_act(txn, seat)
            return self._resign(txn, seat, ADMIN_CHANNEL, None)

    def admin_end(self, game_id: str, admin_token: str | None) -> SubmitResult:
        """The administrator ends the game: every seat still playing resigns, so it ends as
        a game every player left (no winner), and its seed is revealed."""
        with self.transactions.on(game_id) as txn:
            check_admin(txn, admin_token)
            if txn.finished:
                raise Conflict(f"The game is over (it finished at version {txn.version}).")
            new_events: list[ev.Payload] = [
                ev.PlayerResigned(seat=s.seat, channel=ADMIN_CHANNEL, channel_ref=None)
                for s in txn.seats
                if not s.resigned
            ]
            outcome = {
                "scores": [],
                "winners": [],
                "breakdown": [],
                "resigned": [s.seat for s in txn.seats],
            }
            new_events.append(ev.GameFinished(outcome, seed(txn), "resignation"))
            stored = txn.append(new_events, txn.state)
            return SubmitResult(game_id, stored[-1].version, (), True)


def register_reply_words(words: ReplyWords, resignation: Resignation) -> None:
    """The reply word of leaving a game: ``resign``."""

    def resign(line: ReplyLine) -> Done:
        result = resignation.resign(line.game_id, line.seat, channel=CHANNEL, channel_ref=line.key)
        return Done(result.version, "resign")

    words.line("resign", resign)
