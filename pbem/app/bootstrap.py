"""The composition root: builds the service and its parts from the settings. The CLI, the web
app, the scheduler, the tests and the benchmarks all build it here."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError, ProgrammingError

import engine
from engine.core.registry import Registry
from pbem.app.config import Settings
from pbem.app.service import GameService
from pbem.clock import events as clock_events
from pbem.clock import mail_news as clock_mails
from pbem.clock import projection as clock_projection
from pbem.clock import replies as clock_replies
from pbem.clock.notices import ClockNotices
from pbem.core.db import Database
from pbem.core.errors import DatabaseUnusable
from pbem.core.event_base import register as register_events
from pbem.core.projections.runner import register_read_models
from pbem.core.repository import Repository
from pbem.core.time_source import Clock, SystemClock
from pbem.core.unit_of_work import Listener, Transactions, register_lapse_rules
from pbem.create import events as creation_events
from pbem.create import invitation_replies
from pbem.create import mails as create_mails
from pbem.create import projection as create_projection
from pbem.disputes import events as dispute_events
from pbem.disputes import mails as dispute_mails
from pbem.disputes import projection as disputes_projection
from pbem.disputes import replies as disputes
from pbem.handover import events as handover_events
from pbem.handover import mails as handover_mails
from pbem.handover import projection as handover_projection
from pbem.handover import replies as handover_replies
from pbem.mail.inbound import reply_answers
from pbem.mail.inbound.pipeline import Inbound
from pbem.mail.inbound.reply_words import ReplyWords
from pbem.mail.outbound.mail_planners import MailPlanners
from pbem.mail.outbound.outbox import OutboxListener
from pbem.play import mails as play_mails
from pbem.play import resignation
from pbem.rematch import events as rematch_events
from pbem.rematch import mails as rematch_mails
from pbem.rematch import projection as rematch_projection
from pbem.rematch import replies as rematch_replies
from pbem.talk import coalescing as talk_coalescing
from pbem.talk import events as talk_events
from pbem.talk import mails as talk_mails
from pbem.talk import notices as talk_notices
from pbem.talk import projection as talk_projection
from pbem.talk import replies as talk_replies
from pbem.undo import commands as undo_commands
from pbem.undo import events as undo_events
from pbem.undo import mails as undo_mails
from pbem.undo import projection as undo_projection
from pbem.undo import rules as undo_rules
from pbem.webhooks import replies as webhook_replies
from pbem.webhooks.listener import WebhookListener
from pbem.webhooks.notices import register_builtin_notices, register_notice

if TYPE_CHECKING:
    # Built by the commands that use them (``pbem sweep``, ``digest``, ``mail relay``, the
    # scheduler), so a process that builds only the service (``pbem mail-in``) skips them.
    from pbem.clock.digest import Digester
    from pbem.clock.sweep import Sweeper
    from pbem.mail.outbound.relay import Relay
    from pbem.webhooks.relay import WebhookRelay

# -- the features' event types, read models and lapse rules, registered with the core's ----


def register_features() -> None:
    """Every feature's event types, read models and lapse rules, registered with the core's
    registries (``pbem.core.event_base.register``,
    ``pbem.core.projections.runner.register_read_models``,
    ``pbem.core.unit_of_work.register_lapse_rules``), which name no feature.
    ``build_service`` calls it; anything that reads or writes events without a service (a
    script, the tests' shared setup) calls it first. Calling it again changes nothing."""
    register_events(
        *creation_events.CREATION_EVENTS,
        *undo_events.UNDO_EVENTS,
        *dispute_events.DISPUTE_EVENTS,
        *clock_events.CLOCK_EVENTS,
        *handover_events.HANDOVER_EVENTS,
        *rematch_events.REMATCH_EVENTS,
        *talk_events.TALK_EVENTS,
    )
    # In the order they are projected, after the core's games and seats.
    register_read_models(
        undo_projection.READ_MODEL,
        disputes_projection.READ_MODEL,
        create_projection.READ_MODEL,
        handover_projection.READ_MODEL,  # after ``seats``, which it reads
        # after ``seats`` and ``invitations``, which the deadlines' projection reads
        *clock_projection.READ_MODELS,
        *rematch_projection.READ_MODELS,
        talk_projection.READ_MODEL,
    )
    # What lapses when an append moves the game on: an undo request waiting for answers.
    register_lapse_rules(undo_rules.lapse_waiting_request)
    # The webhook notices of the core's and the clock's events (a feature registers its own
    # with ``pbem.webhooks.notices.register_notice``, e.g. table talk's ``TableTalkSent``).
    register_builtin_notices(clock_events.DEADLINE_MISSED)
    register_notice(talk_events.TABLE_TALK_SENT, talk_notices.table_talk_notice)


def open_database(settings: Settings) -> Database:
    return Database(
        settings.database_url,
        busy_timeout_ms=settings.sqlite_busy_timeout_ms,
        pool_size=settings.database_pool_size,
    )


@contextmanager
def database_errors(database_url: Callable[[], str]) -> Iterator[None]:
    """The database's errors of connection and schema (not running, no such file or table)
    raised as ``DatabaseUnusable``, naming ``database_url()`` with its password hidden."""
    try:
        yield
    except (OperationalError, ProgrammingError) as e:
        shown = make_url(database_url()).render_as_string(hide_password=True)
        reason = str(e.orig or e).strip().splitlines()[0]
        raise DatabaseUnusable(shown, reason) from None


def upgrade_database(settings: Settings, revision: str = "head") -> set[str]:
    """The schema of ``settings``' database created or upgraded to ``revision`` (Alembic);
    returns the revisions it is at then. The connections are released before it returns."""
    from pbem.core.migrate import current_revisions, upgrade

    database = open_database(settings)
    try:
        upgrade(database, revision)
        return current_revisions(database)
    finally:
        database.dispose()


def default_listeners(settings: Settings, clock: Clock) -> list[Listener]:
    """The listeners every append runs inside its transaction: the mail outbox, the mails of
    the clock's requests, and the webhook outbox."""
    return [
        outbox_listener(settings, clock),
        ClockNotices(settings, clock),
        WebhookListener(settings, clock),
    ]


def build_service(
    settings: Settings,
    *,
    db: Database | None = None,
    clock: Clock | None = None,
    registry: Registry | None = None,
    listeners: Sequence[Listener] | None = None,
) -> GameService:
    """The application service on ``settings``' database (or ``db``), with the mail outbox
    as its listener unless ``listeners`` says otherwise."""
    clock = clock or SystemClock()
    logging.getLogger("pbem").setLevel(settings.log_level.upper())
    register_features()
    db = db or open_database(settings)
    repository = Repository(
        engine.REGISTRY if registry is None else registry,
        cache_size=settings.state_cache_size,
        snapshot_every=settings.snapshot_every,
        secret_key=settings.secret_key,
    )
    if listeners is None:
        listeners = default_listeners(settings, clock)
    transactions = Transactions(db, clock, repository, listeners)
    return GameService(db, settings, clock, repository, transactions)


def reply_words(service: GameService) -> ReplyWords:
    """Every word a reply may hold besides moves, each registered by its feature with the
    handler that applies it through ``service`` (``pbem.mail.inbound.reply_words``)."""
    words = ReplyWords()
    reply_answers.register_reply_words(words)  # help, show
    parts = service.parts
    invitation_replies.register_reply_words(words, parts.queries)  # join
    undo_commands.register_reply_words(words, parts.undo, parts.queries)
    resignation.register_reply_words(words, parts.resignation)  # resign
    disputes.register_reply_words(words, parts.disputes)  # dispute, agree, disagree
    # default, away until, back, extend, pause, resume, agree/disagree extend …, time zone,
    # digest
    clock_replies.register_reply_words(words, service, service.clock)
    # substitute … with …, agree substitute, refuse substitute
    handover_replies.register_reply_words(words, parts.handovers, parts.queries)
    webhook_replies.register_reply_words(words, service)  # webhook, webhooks, webhook remove
    # rematch, rematch same seats, rematch no, no rematch
    rematch_replies.register_reply_words(words, parts.rematches)
    talk_replies.register_reply_words(words, parts.talk)  # say …, to Bob: …
    return words


def build_inbound(service: GameService, settings: Settings | None = None) -> Inbound:
    """The inbound mail pipeline: it applies replies through ``service`` (with the mail
    settings of ``settings``, the service's own by default), their words through the
    handlers of ``reply_words``."""
    settings = settings or service.settings
    return Inbound(service.parts.db, settings, service, service.clock, words=reply_words(service))


def mail_dir(settings: Settings) -> str:
    return settings.mail.mail_dir or str(settings.var_path / "mail")


def build_relay(service: GameService, settings: Settings | None = None) -> Relay:
    """The relay that sends the outbox (over SMTP, or into the mail folder)."""
    from pbem.mail.outbound.relay import Relay
    from pbem.mail.outbound.smtp import transport_for

    settings = settings or service.settings
    transport = transport_for(settings.mail.smtp_url, mail_dir(settings))
    return Relay(service.parts.db, settings, transport, service.clock)


def build_webhook_relay(service: GameService, settings: Settings | None = None) -> WebhookRelay:
    """The relay that delivers the webhook outbox."""
    from pbem.webhooks.relay import WebhookRelay

    return WebhookRelay(service.parts.db, settings or service.settings, service.clock)


def build_sweeper(service: GameService, settings: Settings | None = None) -> Sweeper:
    """The deadline sweep: acts on passed deadlines and sends reminders through ``service``."""
    from pbem.clock.sweep import Sweeper
    from pbem.webhooks.listener import reminder_notices

    settings = settings or service.settings
    return Sweeper(service.parts.db, service, settings, reminder_notices(settings))


def build_digester(service: GameService, settings: Settings | None = None) -> Digester:
    """The daily digest: one mail a day to each address that chose it, through ``service``."""
    from pbem.clock.digest import Digester

    return Digester(service.parts.db, service, settings or service.settings)


# -- the mails of an append ------------------------------------------------------------------


def mail_planners() -> MailPlanners:
    """Which mails each append causes, each planner its feature's, beside its mail texts
    (``pbem.mail.outbound.mail_planners``). Each seat gets one mail per append: that of the
    first planner below, in this order, that writes it one."""
    return MailPlanners(
        # The lines every mail carries while something is open, after the bounce notices.
        notices=[
            dispute_mails.OPEN_DISPUTES,
            clock_mails.NEWS_LINES,
            undo_mails.PENDING_REQUEST,
            rematch_mails.ORIGIN,  # the new game's first mails: a rematch of …
        ],
        mails=[
            create_mails.INVITED,  # an invitation waits: nothing but the invitation
            create_mails.JOINED,  # the game as it stands, on accepting
            handover_mails.HANDED_OVER,  # the newcomer's first mail: everything so far
            create_mails.WAITING,  # a seat in a game waiting for players
            play_mails.GAME_OVER,
            rematch_mails.NEWS,  # every seat of a finished game, resigned or not
            play_mails.RESIGNED,  # nothing more, once resigned
            talk_mails.TALK,  # table talk: its own mail to its recipients, nothing else
            play_mails.TURN,
            undo_mails.REQUEST,  # to answer with accept or decline
            handover_mails.PROPOSED,  # to answer with agree or refuse substitute
            handover_mails.DECIDED,
            play_mails.CONFIRMATION,
            dispute_mails.NEWS,
            clock_mails.NEWS,
            undo_mails.LAPSED,
            create_mails.STARTED,
            undo_mails.RETRACTED,
            play_mails.RESIGNATION,
        ],
        # A message's mail still waiting, dropped when a turn mail now carries it.
        settle=[talk_coalescing.drop_carried],
    )


def outbox_listener(settings: Settings, clock: Clock | None = None) -> OutboxListener:
    """The mail outbox, planning each append's mails with ``mail_planners``."""
    return OutboxListener(settings, mail_planners(), clock)
