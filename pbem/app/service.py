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

from collections.abc import Callable
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from engine.core.registry import Registry
from pbem.app.config import Settings
from pbem.clock.commands import ClockCommands
from pbem.clock.preferences import Preferences
from pbem.core.cache import Answers, StateCache
from pbem.core.db import Database
from pbem.core.repository import Repository
from pbem.core.time_source import Clock
from pbem.core.unit_of_work import Listener, Transactions
from pbem.create.creation import GameCreation
from pbem.create.invitations import Invitations
from pbem.disputes.commands import Disputes
from pbem.handover.commands import Handovers
from pbem.play.command_checks import StalePolicy
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
from pbem.talk.commands import Talk
from pbem.undo.commands import UndoCommands

if TYPE_CHECKING:
    # The parts no reply and no move uses, built (and imported) when first asked for
    # (``Parts``), so that ``pbem mail-in`` and ``pbem show`` skip them at start.
    from pbem.audit.evidence import Evidence
    from pbem.audit.log_checks import LogChecks
    from pbem.audit.receipts import ReceiptCheck
    from pbem.clock.consent import ClockConsent
    from pbem.clock.deadline_moves import DeadlineMoves
    from pbem.create.open_seats import OpenSeats
    from pbem.mail.queues import MailQueues
    from pbem.play.pages_data import PageReads
    from pbem.seats.tokens import SeatTokens
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


T = TypeVar("T")


class _OfPart(Generic[T]):
    """A command or query of a part that ``Parts`` builds when first asked for: the bound
    method (or function) ``of(parts)`` gives, looked up on first use and then kept on the
    service (a plain attribute from there on, as those ``GameService.__init__`` sets)."""

    def __init__(self, of: Callable[[Parts], T]) -> None:
        self._of = of
        self._name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, service: None, owner: type) -> _OfPart[T]: ...
    @overload
    def __get__(self, service: GameService, owner: type) -> T: ...
    def __get__(self, service: GameService | None, owner: type) -> _OfPart[T] | T:
        if service is None:
            return self
        value = self._of(service.parts)
        # Kept on the instance: this non-data descriptor is not asked again.
        service.__dict__[self._name] = value
        return value


class GameService:
    """The commands and queries on games (built by ``pbem.app.bootstrap.build_service``).

    Every attribute below the parts is a bound method of the part that defines it: read its
    signature and docstring there. Those of the parts no reply and no move uses are declared
    in the class body (``_OfPart``): their part is built, and its module imported, when one
    of them is first used (a web request, an administrator's command), not at every start of
    ``pbem mail-in``."""

    # -- open seats (``pbem.create.open_seats``) ----------------------------------------------
    join_game = _OfPart(lambda parts: parts.open_seats.join)
    start_game_now = _OfPart(lambda parts: parts.open_seats.start_now)
    revoke_join_link = _OfPart(lambda parts: parts.open_seats.revoke_join_link)
    open_games = _OfPart(lambda parts: parts.open_seats.open_games)
    join_info = _OfPart(lambda parts: parts.open_seats.join_info)

    # -- the pages' reads (``pbem.play.pages_data``) -----------------------------------------
    verify_game = _OfPart(lambda parts: parts.pages.verify_game)
    seat_for_page_link = _OfPart(lambda parts: parts.pages.seat_for_page_link)
    game_status = _OfPart(lambda parts: parts.pages.game_status)
    clock_of = _OfPart(lambda parts: parts.pages.clock_of)
    seat_settings = _OfPart(lambda parts: parts.pages.seat_settings)
    log_as_of = _OfPart(lambda parts: parts.pages.log_as_of)
    game_config = _OfPart(lambda parts: parts.pages.game_config)
    provisional_values = _OfPart(lambda parts: parts.pages.provisional_values)
    overridden_values = _OfPart(lambda parts: parts.pages.overridden_values)
    config_error = _OfPart(lambda parts: parts.pages.config_error)

    # -- audit (``pbem.audit``) ---------------------------------------------------------------
    check_receipt = _OfPart(lambda parts: parts.check_receipt)
    audit = _OfPart(lambda parts: parts.evidence.audit)
    export_game = _OfPart(lambda parts: parts.export_game)
    replay = _OfPart(lambda parts: parts.log_checks.replay)
    read_model_difference = _OfPart(lambda parts: parts.log_checks.read_model_difference)
    rebuild_read_models = _OfPart(lambda parts: parts.log_checks.rebuild_read_models)

    # -- seats (``pbem.seats.tokens``) --------------------------------------------------------
    rotate_token = _OfPart(lambda parts: parts.tokens.rotate_token)
    seat_for_invitation_link = _OfPart(lambda parts: parts.tokens.seat_for_invitation_link)
    seat_link = _OfPart(lambda parts: parts.tokens.seat_link)
    rotate_reply_key = _OfPart(lambda parts: parts.tokens.rotate_reply_key)

    # -- the game clock: a passed deadline (the sweep's), and changes by consent ------------
    deadline_passed = _OfPart(lambda parts: parts.deadline_moves.deadline_passed)
    request_clock_change = _OfPart(lambda parts: parts.consent.request)
    answer_clock_request = _OfPart(lambda parts: parts.consent.answer)

    # -- the mail queues (``pbem.mail.queues``) -----------------------------------------------
    mail_counts = _OfPart(lambda parts: parts.mail.counts)
    dead_mails = _OfPart(lambda parts: parts.mail.dead_mails)
    latest_inbound = _OfPart(lambda parts: parts.mail.latest_inbound)
    requeue_dead_mail = _OfPart(lambda parts: parts.mail.requeue_dead)
    purge_inbound = _OfPart(lambda parts: parts.mail.purge_inbound)

    # -- webhooks (``pbem.webhooks.subscriptions``) -------------------------------------------
    add_game_webhook = _OfPart(lambda parts: parts.webhooks.add_for_game)
    game_webhooks = _OfPart(lambda parts: parts.webhooks.list_for_game)
    remove_game_webhook = _OfPart(lambda parts: parts.webhooks.remove_for_game)
    request_address_webhook = _OfPart(lambda parts: parts.webhooks.request_for_seat)
    webhook_waiting = _OfPart(lambda parts: parts.webhooks.waiting_for)
    confirm_webhook = _OfPart(lambda parts: parts.webhooks.confirm)
    address_webhooks = _OfPart(lambda parts: parts.webhooks.list_for_address)
    remove_address_webhook = _OfPart(lambda parts: parts.webhooks.remove_for_address)
    remove_webhook = _OfPart(lambda parts: parts.webhooks.remove)
    all_webhooks = _OfPart(lambda parts: parts.webhooks.all_subscriptions)
    webhook_counts = _OfPart(lambda parts: parts.webhooks.counts)
    dead_webhooks = _OfPart(lambda parts: parts.webhooks.dead)
    retry_dead_webhooks = _OfPart(lambda parts: parts.webhooks.retry_dead)

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

        # -- playing (``pbem.play``) ----------------------------------------------------------
        self.submit = parts.submission.submit
        self.resign = parts.resignation.resign
        self.admin_resign = parts.resignation.admin_resign
        self.admin_end = parts.resignation.admin_end

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
        self.set_time_zone = parts.preferences.set_time_zone
        self.set_digest = parts.preferences.set_digest
        self.time_zone = parts.preferences.time_zone

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
    """The feature objects that hold the commands and queries, on one set of transactions.

    Those of the moves and of the replies' words are built with it; the others (open seats,
    the pages' reads, audit, seat links, the deadline sweep's moves, clock changes by consent,
    the mail queues, webhooks) when first asked for, their modules imported then. Two threads
    of the web service asking first at once may each build one: a part holds only what it is
    built on, so either serves."""

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
        self.invitations = Invitations(transactions)
        self.submission = Submission(db, settings, clock, transactions, self.queries)
        self.undo = UndoCommands(transactions)
        self.resignation = Resignation(clock, transactions)
        self.disputes = Disputes(db, clock, transactions, self.queries)
        self.handovers = Handovers(db, settings, clock, transactions)
        self.talk = Talk(db, clock, transactions, self.queries)
        self.clocks = ClockCommands(db, clock, transactions)
        self.preferences = Preferences(db, clock)
        self.rematches = Rematches(db, transactions, self.creation)

    @cached_property
    def open_seats(self) -> OpenSeats:
        from pbem.create.open_seats import OpenSeats

        return OpenSeats(self.db, self.settings, self.clock, self.transactions)

    @cached_property
    def deadline_moves(self) -> DeadlineMoves:
        from pbem.clock.deadline_moves import DeadlineMoves

        return DeadlineMoves(self.clock, self.transactions)

    @cached_property
    def consent(self) -> ClockConsent:
        from pbem.clock.consent import ClockConsent

        return ClockConsent(self.transactions)

    @cached_property
    def tokens(self) -> SeatTokens:
        from pbem.seats.tokens import SeatTokens

        return SeatTokens(self.db, self.settings, self.clock, self.queries)

    @cached_property
    def pages(self) -> PageReads:
        from pbem.play.pages_data import PageReads

        return PageReads(self.db, self.settings, self.clock, self.repository)

    @cached_property
    def evidence(self) -> Evidence:
        from pbem.audit.evidence import Evidence

        return Evidence(self.db, self.settings, self.clock, self.queries, self.clocks)

    @cached_property
    def log_checks(self) -> LogChecks:
        from pbem.audit.log_checks import LogChecks

        return LogChecks(self.db, self.settings, self.repository.registry)

    @cached_property
    def check_receipt(self) -> partial[ReceiptCheck]:
        from pbem.audit.receipts import check_receipt

        return partial(check_receipt, self.db)

    @cached_property
    def export_game(self) -> partial[dict[str, Any]]:
        from pbem.audit.export import export_game

        return partial(export_game, self.db)

    @cached_property
    def mail(self) -> MailQueues:
        from pbem.mail.queues import MailQueues

        return MailQueues(self.db, self.settings, self.clock)

    @cached_property
    def webhooks(self) -> Webhooks:
        from pbem.webhooks.subscriptions import Webhooks

        return Webhooks(self.db, self.settings, self.clock)
