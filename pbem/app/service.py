"""The application service: the one way in for every entry point (API, pages, mail doors,
CLI, scheduler). Each command and query is an attribute of the service bound to the method
of the feature object that defines it, so its signature is written once, where it works,
and mypy types every call (``service.submit`` *is* ``Submission.submit``).

Each command opens a unit of work (``pbem.core.unit_of_work``) on the game, asks the engine, and
appends the events; the projections and listeners run in that same transaction. Built by
``pbem.app.bootstrap``.

``GameService`` is the one door every entry point uses; it composes the parts that hold the
work, each a module of its own, and wires their methods onto itself (no method here only
delegates; entry points never reach into the parts):

- ``pbem.create.creation``: creating a game (invitations, rate limits, idempotency);
  ``pbem.create.open_seats``: joining its open seats, and starting it with fewer;
- ``pbem.play.submission``: submitting actions;
- ``pbem.undo.commands``: undo and the decisions on undo requests;
- ``pbem.play.resignation``: resigning, and the administrator's resign-a-seat and end-the-game;
- ``pbem.play.queries``: the read side;
- ``pbem.disputes.commands``: opening, answering and resolving disputes;
- ``pbem.handover.commands``: substitutes (proposing, deciding, the newcomer accepting);
- ``pbem.talk.commands``: table talk (sending and hiding messages, the conversation);
- ``pbem.clock.deadline_moves``: what happens when a seat's deadline has passed;
- ``pbem.clock.commands``: the clock's commands (extensions, pauses, time controls, standing
  orders, vacations); ``pbem.clock.consent``: what the seats change on it by consent;
- ``pbem.play.command_checks``: the checks the commands share; ``pbem.play.results``: their answers;
- ``pbem.play.pages_data``: the reads the pages need beyond the queries;
- ``pbem.audit``: evidence, export, receipts, and a game checked against its log;
- ``pbem.rematch.commands``: proposing, agreeing to and declining a rematch of a finished game;
- ``pbem.mail.queues``: the mail queues as an operator sees them;
- ``pbem.webhooks.subscriptions``: the webhooks' subscriptions and dead letters.

The database itself is the composition root's (``pbem.app.bootstrap``) to hand to the parts:
no entry point opens a session.
"""

from __future__ import annotations

from functools import partial

from engine.core.registry import Registry
from pbem.app.config import Settings
from pbem.audit.evidence import Evidence
from pbem.audit.export import export_game
from pbem.audit.log_checks import LogChecks
from pbem.audit.receipts import check_receipt
from pbem.clock.commands import ClockCommands
from pbem.clock.consent import ClockConsent
from pbem.clock.deadline_moves import DeadlineMoves
from pbem.clock.preferences import Preferences
from pbem.core.cache import Answers, StateCache
from pbem.core.db import Database
from pbem.core.repository import Repository
from pbem.core.time_source import Clock
from pbem.core.unit_of_work import Listener, Transactions
from pbem.create.creation import GameCreation
from pbem.create.invitations import Invitations
from pbem.create.open_seats import OpenSeats
from pbem.disputes.commands import Disputes
from pbem.handover.commands import Handovers
from pbem.mail.queues import MailQueues
from pbem.play.command_checks import StalePolicy
from pbem.play.pages_data import PageReads
from pbem.play.queries import GameQueries
from pbem.play.resignation import ADMIN_CHANNEL, Resignation
from pbem.play.results import (
    Applied,
    Created,
    CreatedSeat,
    SubmitResult,
    UndoResult,
)
from pbem.play.submission import MAX_KEY, Submission
from pbem.rematch.commands import Rematches
from pbem.seats.tokens import SeatTokens
from pbem.talk.commands import Talk
from pbem.undo.commands import UndoCommands
from pbem.webhooks.subscriptions import Webhooks

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
    """The commands and queries on games (built by ``pbem.app.bootstrap.build_service``).

    Every attribute below the parts is a bound method of the part that defines it: read its
    signature and docstring there."""

    def __init__(
        self,
        db: Database,
        settings: Settings,
        clock: Clock,
        repository: Repository,
        transactions: Transactions,
    ) -> None:
        self.settings = settings
        #: the database the parts are built on; entry points never use it (they call commands)
        self._db = db
        #: the injected time (``pbem.core.time_source``)
        self.clock = clock
        #: the parts, for the composition root (``pbem.app.bootstrap``: the reply words) only;
        #: entry points call the commands and queries wired below
        self.parts = parts = Parts(db, settings, clock, repository, transactions)

        # -- creating (``pbem.create``) -------------------------------------------------------
        self.create_game = parts.creation.create_game
        self.accept_invitation = parts.invitations.accept
        self.invitation_waiting = parts.queries.invitation_waiting
        self.was_invited = parts.queries.was_invited
        self.reads_as_action = parts.queries.reads_as_action
        # open seats (``pbem.create.open_seats``)
        self.join_game = parts.open_seats.join
        self.start_game_now = parts.open_seats.start_now
        self.revoke_join_link = parts.open_seats.revoke_join_link
        self.open_games = parts.open_seats.open_games
        self.join_info = parts.open_seats.join_info

        # -- reading (``pbem.play.queries``) ------------------------------------------------
        self.load = parts.queries.load
        self.events = parts.queries.events
        self.raw_events = parts.queries.raw_events
        self.has_event_from = parts.queries.has_event_from
        self.has_seat = parts.queries.has_seat
        self.seat_info = parts.queries.seat_info
        self.plays_somewhere = parts.queries.plays_somewhere
        self.open_undo_request = parts.queries.open_undo_request
        self.undo_request = parts.queries.undo_request
        self.seat_for_token = parts.queries.seat_for_token
        self.can_see = parts.queries.can_see
        self.check_can_see = parts.queries.check_can_see
        self.is_admin = parts.queries.is_admin
        self.viewer = parts.queries.viewer
        self.viewer_seat = parts.queries.viewer_seat
        self.loaded_for = parts.queries.loaded_for
        self.described = parts.queries.described
        self.list_games = parts.queries.list_games
        self.admin_log = parts.queries.admin_log
        self.rules_for = repository.rules_for
        self.rules_of = repository.rules_of

        # -- the pages' reads (``pbem.play.pages_data``) -------------------------------------
        self.verify_game = parts.pages.verify_game
        self.seat_for_page_link = parts.pages.seat_for_page_link
        self.game_status = parts.pages.game_status
        self.clock_of = parts.pages.clock_of
        self.seat_settings = parts.pages.seat_settings
        self.log_as_of = parts.pages.log_as_of
        self.game_config = parts.pages.game_config
        self.provisional_values = parts.pages.provisional_values
        self.overridden_values = parts.pages.overridden_values
        self.config_error = parts.pages.config_error

        # -- playing (``pbem.play``) ----------------------------------------------------------
        self.submit = parts.submission.submit
        self.resign = parts.resignation.resign
        self.admin_resign = parts.resignation.admin_resign
        self.admin_end = parts.resignation.admin_end

        # -- audit (``pbem.audit``) -------------------------------------------------------
        self.check_receipt = partial(check_receipt, db)
        self.audit = parts.evidence.audit
        self.export_game = partial(export_game, db)
        self.replay = parts.log_checks.replay
        self.read_model_difference = parts.log_checks.read_model_difference
        self.rebuild_read_models = parts.log_checks.rebuild_read_models

        # -- seats (``pbem.seats.tokens``) -------------------------------------------------
        self.rotate_token = parts.tokens.rotate_token
        self.seat_for_invitation_link = parts.tokens.seat_for_invitation_link
        self.seat_link = parts.tokens.seat_link
        self.rotate_reply_key = parts.tokens.rotate_reply_key

        # -- undo (``pbem.undo.commands``) --------------------------------------------------
        self.undo = parts.undo.undo
        self.decide_undo = parts.undo.decide_undo

        # -- disputes (``pbem.disputes.commands``) ------------------------------------------
        self.disputes_of = parts.disputes.list
        self.open_dispute = parts.disputes.open
        self.answer_dispute = parts.disputes.answer
        self.resolve_dispute = parts.disputes.resolve

        # -- substitutes (``pbem.handover.commands``) -------------------------------------
        self.propose_substitute = parts.handovers.propose
        self.admin_substitute = parts.handovers.admin_propose
        self.decide_substitute = parts.handovers.decide
        self.substitute_invitation = parts.handovers.invitation
        self.accept_substitution = parts.handovers.accept
        self.substitute_waiting = parts.handovers.waiting
        # -- rematch (``pbem.rematch.commands``) --------------------------------------------
        self.propose_rematch = parts.rematches.propose
        self.agree_rematch = parts.rematches.agree
        self.decline_rematch = parts.rematches.decline
        self.rematch_status = parts.rematches.status
        self.rematch_of = parts.rematches.rematch_of
        # -- table talk (``pbem.talk.commands``) --------------------------------------------
        self.send_talk = parts.talk.send
        self.hide_talk = parts.talk.hide
        self.talk_messages = parts.talk.messages
        self.talk_recipients = parts.talk.recipients_choice

        # -- the game clock (``pbem.clock``) --------------------------------------------------
        self.deadline_passed = parts.deadline_moves.deadline_passed
        self.deadlines = parts.clocks.deadlines
        self.extend = parts.clocks.extend
        self.pause = parts.clocks.pause
        self.resume = parts.clocks.resume
        self.set_time_control = parts.clocks.set_time_control
        self.set_standing_order = parts.clocks.set_standing_order
        self.away = parts.clocks.away
        self.back = parts.clocks.back
        self.away_in_game = parts.clocks.away_in_game
        self.back_in_game = parts.clocks.back_in_game
        self.request_clock_change = parts.consent.request
        self.answer_clock_request = parts.consent.answer
        self.set_time_zone = parts.preferences.set_time_zone
        self.set_digest = parts.preferences.set_digest
        self.time_zone = parts.preferences.time_zone

        # -- the mail queues (``pbem.mail.queues``) ---------------------------------------
        self.mail_counts = parts.mail.counts
        self.dead_mails = parts.mail.dead_mails
        self.latest_inbound = parts.mail.latest_inbound
        self.requeue_dead_mail = parts.mail.requeue_dead
        self.purge_inbound = parts.mail.purge_inbound

        # -- webhooks (``pbem.webhooks.subscriptions``) -------------------------------------
        self.add_game_webhook = parts.webhooks.add_for_game
        self.game_webhooks = parts.webhooks.list_for_game
        self.remove_game_webhook = parts.webhooks.remove_for_game
        self.request_address_webhook = parts.webhooks.request_for_seat
        self.webhook_waiting = parts.webhooks.waiting_for
        self.confirm_webhook = parts.webhooks.confirm
        self.address_webhooks = parts.webhooks.list_for_address
        self.remove_address_webhook = parts.webhooks.remove_for_address
        self.remove_webhook = parts.webhooks.remove
        self.all_webhooks = parts.webhooks.all_subscriptions
        self.webhook_counts = parts.webhooks.counts
        self.dead_webhooks = parts.webhooks.dead
        self.retry_dead_webhooks = parts.webhooks.retry_dead

        #: the database's connections released (a command ending); the next use opens others
        self.release_connections = db.dispose

    @property
    def listeners(self) -> list[Listener]:
        """The listeners every append runs in its transaction (the mail outbox)."""
        return self.parts.transactions.listeners

    @property
    def cache(self) -> StateCache:
        """The states recently folded (a cache: clearing it changes no answer)."""
        return self.parts.repository.cache

    @property
    def answers(self) -> Answers:
        """The seats' descriptions of recent versions (a cache: clearing it changes no
        answer)."""
        return self.parts.repository.answers

    @property
    def registry(self) -> Registry:
        return self.parts.repository.registry


class Parts:
    """The feature objects that hold the commands and queries, on one set of transactions."""

    def __init__(
        self,
        db: Database,
        settings: Settings,
        clock: Clock,
        repository: Repository,
        transactions: Transactions,
    ) -> None:
        self.db = db
        self.repository = repository
        self.transactions = transactions
        self.queries = GameQueries(db, repository)
        self.creation = GameCreation(db, settings, clock, repository, transactions)
        self.invitations = Invitations(transactions)
        self.open_seats = OpenSeats(db, settings, clock, transactions)
        self.submission = Submission(db, settings, clock, transactions, self.queries)
        self.undo = UndoCommands(transactions)
        self.resignation = Resignation(clock, transactions)
        self.disputes = Disputes(db, clock, transactions, self.queries)
        self.handovers = Handovers(db, settings, clock, transactions)
        self.talk = Talk(db, clock, transactions, self.queries)
        self.deadline_moves = DeadlineMoves(clock, transactions)
        self.clocks = ClockCommands(db, clock, transactions)
        self.consent = ClockConsent(transactions)
        self.preferences = Preferences(db, clock)
        self.tokens = SeatTokens(db, settings, clock, self.queries)
        self.pages = PageReads(db, settings, clock, repository)
        self.evidence = Evidence(db, settings, clock, self.queries, self.clocks)
        self.log_checks = LogChecks(db, settings, repository.registry)
        self.mail = MailQueues(db, settings, clock)
        self.webhooks = Webhooks(db, settings, clock)
        self.rematches = Rematches(db, transactions, self.creation)
