"""The application service: one method per command (create a game, submit actions, undo,
decide an undo request, resign, and the administrator's resign-a-seat and end-the-game), and
the queries every entry point asks (a game at a version, its log as a seat may see it).

Each command opens a unit of work (``pbem.core.unit_of_work``) on the game, asks the engine, and
appends the events; the projections and listeners run in that same transaction. Built by
``pbem.bootstrap``.

``GameService`` is the one door every entry point uses; it composes the parts that hold the
work, each a module of its own:

- ``pbem.create.creation``: creating a game (invitations, rate limits, idempotency);
- ``pbem.play.submission``: submitting actions;
- ``pbem.undo.commands``: undo and the decisions on undo requests;
- ``pbem.play.resignation``: resigning, and the administrator's resign-a-seat and end-the-game;
- ``pbem.play.queries``: the read side;
- ``pbem.disputes.commands``: opening, answering and resolving disputes;
- ``pbem.clock.deadline_moves``: what happens when a seat's deadline has passed;
- ``pbem.clock.commands``: the clock's commands (extensions, pauses, time controls, standing
  orders, vacations); ``pbem.clock.consent``: what the seats change on it by consent;
- ``pbem.play.command_checks``: the checks the commands share; ``pbem.play.results``: their answers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlmodel import Session

from engine.core import Rules
from engine.core.registry import Registry
from pbem.clock.commands import ClockCommands
from pbem.clock.consent import ClockConsent
from pbem.clock.deadline_moves import DeadlineAct, DeadlineMoves
from pbem.clock.preferences import Preferences
from pbem.config import Settings
from pbem.core.cache import StateCache
from pbem.core.db import Database
from pbem.core.events import StoredEvent
from pbem.core.repository import Loaded, Repository, SeatInfo
from pbem.core.time_source import Clock
from pbem.core.unit_of_work import Listener, Transactions, UnitOfWork
from pbem.create import invitations
from pbem.create.creation import GameCreation
from pbem.disputes.commands import Disputes
from pbem.play.command_checks import StalePolicy, check_admin, check_can_act, no_such_game
from pbem.play.queries import GameQueries
from pbem.play.resignation import ADMIN_CHANNEL, Resignation
from pbem.play.results import (
    Applied,
    Created,
    CreatedSeat,
    OpenUndoRequest,
    SubmitResult,
    UndoResult,
)
from pbem.play.submission import MAX_KEY, Submission
from pbem.undo.commands import UndoCommands

# What callers import from here, though it lives in the parts.
__all__ = [
    "ADMIN_CHANNEL",
    "MAX_KEY",
    "Applied",
    "Created",
    "CreatedSeat",
    "GameService",
    "StalePolicy",
    "SubmitResult",
    "UndoResult",
]


class GameService:
    """The commands and queries on games (built by ``pbem.bootstrap.build_service``)."""

    def __init__(
        self,
        db: Database,
        settings: Settings,
        clock: Clock,
        repository: Repository,
        transactions: Transactions,
    ) -> None:
        self.db = db
        self.settings = settings
        self.clock = clock
        self.repository = repository
        self.transactions = transactions
        self.queries = GameQueries(db, repository)
        self.creation = GameCreation(db, settings, clock, repository, transactions)
        self.submission = Submission(db, settings, clock, transactions, self.queries)
        self.undo_commands = UndoCommands(transactions)
        self.resignation = Resignation(clock, transactions)
        #: opening, answering and resolving disputes (``pbem.disputes.commands``)
        self.disputes = Disputes(self)
        self.deadline_moves = DeadlineMoves(clock, transactions)
        #: the clock's commands (``pbem.clock.commands``) and requests (``pbem.clock.consent``)
        self.clocks = ClockCommands(db, clock, transactions)
        self.consent = ClockConsent(transactions)
        #: what each address chose for itself (``pbem.clock.preferences``): its time zone
        self.preferences = Preferences(db, clock)

    @property
    def listeners(self) -> list[Listener]:
        """The listeners every append runs in its transaction (the mail outbox)."""
        return self.transactions.listeners

    @property
    def cache(self) -> StateCache:
        """The states recently folded (a cache: clearing it changes no answer)."""
        return self.repository.cache

    @property
    def registry(self) -> Registry:
        return self.repository.registry

    def rules_for(self, game: str) -> Rules:
        return self.repository.rules_for(game)

    # -- creating -------------------------------------------------------------------------

    def create_game(
        self,
        game: str,
        config: Mapping[str, Any],
        players: Sequence[Mapping[str, Any]],
        *,
        channel: str = "api",
        private: bool = False,
        idempotency_key: str | None = None,
        requester: str | None = None,
        organiser_key: str | None = None,
        time_control: Any = None,
    ) -> Created:
        """``private``: only the seats and the admin will see the game (``can_see``).
        ``idempotency_key``: a retry with the same key and request gets the same game.
        ``requester``: who asks (a client address), for the rate limit of invitations;
        ``organiser_key``: needed when the settings list organiser keys;
        ``time_control``: see ``pbem.clock.time_control.parse_time_control``."""
        return self.creation.create_game(
            game,
            config,
            players,
            channel=channel,
            private=private,
            idempotency_key=idempotency_key,
            requester=requester,
            organiser_key=organiser_key,
            time_control=time_control,
        )

    def accept_invitation(self, game_id: str, seat: int, *, channel: str) -> bool:
        """The seat's player accepts its invitation (``pbem.create.invitations``); False when there
        was none waiting."""
        return invitations.accept(self.transactions, game_id, seat, channel)

    def invitation_waiting(self, game_id: str, seat: int) -> bool:
        return self.queries.invitation_waiting(game_id, seat)

    def was_invited(self, game_id: str, seat: int) -> bool:
        return self.queries.was_invited(game_id, seat)

    def reads_as_action(self, game_id: str, seat: int, line: str) -> bool:
        return self.queries.reads_as_action(game_id, seat, line)

    # -- reading --------------------------------------------------------------------------

    def load(self, game_id: str, at: int | None = None) -> Loaded:
        return self.queries.load(game_id, at)

    def events(
        self, game_id: str, after: int = 0, viewer_seat: int | None = None
    ) -> list[dict[str, Any]]:
        """The log after version ``after`` as ``viewer_seat`` may see it."""
        return self.queries.events(game_id, after, viewer_seat)

    def raw_events(self, game_id: str) -> list[StoredEvent]:
        """Every event in full (operators: export, audit). Never send this to a player."""
        return self.queries.raw_events(game_id)

    def has_event_from(self, game_id: str, channel_ref: str) -> bool:
        """Whether an event of this game came through ``channel_ref`` (e.g. a Message-ID)."""
        return self.queries.has_event_from(game_id, channel_ref)

    def has_seat(self, game_id: str, seat: int) -> bool:
        return self.seat_info(game_id, seat) is not None

    def seat_info(self, game_id: str, seat: int) -> SeatInfo | None:
        return self.queries.seat_info(game_id, seat)

    def plays_somewhere(self, email: str) -> bool:
        """Whether ``email`` is the address of a seat, in some game, that is not waiting on
        an invitation."""
        return self.queries.plays_somewhere(email)

    def open_undo_request(self, game_id: str) -> int | None:
        """The undo request of this game waiting for answers (its version), if any."""
        return self.queries.open_undo_request(game_id)

    def undo_request(self, game_id: str) -> OpenUndoRequest | None:
        """The undo request waiting for answers, with who agreed and who is still awaited."""
        return self.queries.undo_request(game_id)

    def seat_for_token(self, game_id: str, token: str | None) -> int:
        """The seat a bearer token belongs to in this game, or Forbidden."""
        return self.queries.seat_for_token(game_id, token)

    def can_see(self, game_id: str, *, seat: int | None = None, token: str | None = None) -> bool:
        """Whether a viewer may see this game at all: anyone a public one; a private one
        only its seats (``seat``, already authenticated by the caller, or a seat ``token``)
        and its admin (the admin ``token``). False when there is no such game."""
        return self.queries.can_see(game_id, seat=seat, token=token)

    def check_can_see(
        self, game_id: str, *, seat: int | None = None, token: str | None = None
    ) -> None:
        """GameNotFound unless ``can_see``: a private game is not confirmed to exist."""
        if not self.can_see(game_id, seat=seat, token=token):
            raise no_such_game(game_id)

    def is_admin(self, game_id: str, token: str | None) -> bool:
        return self.queries.is_admin(game_id, token)

    def list_games(self, limit: int = 100) -> list[dict[str, Any]]:
        return self.queries.list_games(limit)

    # -- submitting -----------------------------------------------------------------------

    def submit(
        self,
        game_id: str,
        seat: int,
        text: str,
        *,
        expected_version: int,
        channel: str,
        channel_ref: str | None = None,
        idempotency_key: str | None = None,
        received_at: Any = None,
        stale_policy: StalePolicy = "strict",
        record: Callable[[Session, SubmitResult], None] | None = None,
        accept_invitation: bool = False,
    ) -> SubmitResult:
        """Apply the command lines of ``text`` in order, in one transaction.

        ``record``: called in that transaction once something was applied, with the result,
        so that what the caller writes about it (the inbound mail's outcome) commits with the
        move or not at all, without a transaction of its own. It is not called for a
        submission that applies nothing or returns the stored result of an earlier one.
        ``accept_invitation``: the seat's invitation is accepted in the same transaction
        (a reply to an invitation that holds a move)."""
        return self.submission.submit(
            game_id,
            seat,
            text,
            expected_version=expected_version,
            channel=channel,
            channel_ref=channel_ref,
            idempotency_key=idempotency_key,
            received_at=received_at,
            stale_policy=stale_policy,
            record=record,
            accept_invitation=accept_invitation,
        )

    def resign(
        self, game_id: str, seat: int, *, channel: str, channel_ref: str | None = None
    ) -> SubmitResult:
        """``seat`` leaves the game: its turns are played automatically from now on; when
        one player is left, that player wins."""
        return self.resignation.resign(game_id, seat, channel=channel, channel_ref=channel_ref)

    # -- undo -----------------------------------------------------------------------------

    def undo(
        self,
        game_id: str,
        seat: int,
        *,
        to_version: int | None = None,
        expected_version: int | None = None,
        channel: str,
        channel_ref: str | None = None,
    ) -> UndoResult:
        """Take back ``seat``'s latest actions (or go back to ``to_version``): directly when
        only this seat acted since, otherwise by asking every other seat."""
        return self.undo_commands.undo(
            game_id,
            seat,
            to_version=to_version,
            expected_version=expected_version,
            channel=channel,
            channel_ref=channel_ref,
        )

    def decide_undo(
        self,
        game_id: str,
        seat: int,
        request: int,
        accept: bool,
        *,
        channel: str,
        channel_ref: str | None = None,
    ) -> UndoResult:
        return self.undo_commands.decide_undo(
            game_id, seat, request, accept, channel=channel, channel_ref=channel_ref
        )

    # -- deadlines -------------------------------------------------------------------------

    def deadline_passed(
        self, game_id: str, seat: int, due_at: str, now: datetime
    ) -> DeadlineAct | None:
        """``seat`` missed its deadline ``due_at``: record it and (unless the game waits)
        play its standing order or the engine's default, once however many sweeps ask; None
        when there was nothing (any more) to do."""
        return self.deadline_moves.deadline_passed(game_id, seat, due_at, now)

    # -- administration (guarded by the admin token shown once at creation) ----------------

    def admin_resign(self, game_id: str, admin_token: str | None, seat: int) -> SubmitResult:
        """The administrator resigns ``seat`` for its player (one who left without a word)."""
        return self.resignation.admin_resign(game_id, admin_token, seat)

    def admin_end(self, game_id: str, admin_token: str | None) -> SubmitResult:
        """The administrator ends the game: every seat still playing resigns, so it ends as
        a game every player left (no winner), and its seed is revealed."""
        return self.resignation.admin_end(game_id, admin_token)

    def admin_log(self, game_id: str, admin_token: str | None) -> list[dict[str, Any]]:
        """The whole log with nothing hidden (secret actions, addresses, message ids): what
        an operator sees, for the game's administrator."""
        return self.queries.admin_log(game_id, admin_token)

    # -- checks the disputes share with the commands (``pbem.play.command_checks``) -------------

    def _check_can_act(self, txn: UnitOfWork, seat: int) -> None:
        check_can_act(txn, seat)

    def _check_admin(self, txn: UnitOfWork, admin_token: str | None) -> None:
        check_admin(txn, admin_token)
