"""The one inbound pipeline behind every door (webhook, IMAP poll, ``pbem mail-in``, /dev/mail).

1. **Store first**: the raw message is inserted under its key (the Message-ID, or the
   SHA-256 of the raw bytes when it has none). A second delivery of the same message, even
   at the same moment from another worker, finds the key taken.
2. **Process once**: a worker claims the stored message (a lease), classifies it, routes it
   (the signed reply token; failing that In-Reply-To / References), checks ``From:``, reads
   the commands and applies them (channel ``email``, the key as ``channel_ref``): moves
   through the game service, each reply word through the handler its feature registered
   in the table (``pbem.mail.inbound.reply_words``), which this module reads but never names; then
   records the message's one outcome — together with its error reply, if any, in one
   transaction.

Never answered: auto-replies, bounces (which mark the address failing when they cite a mail
we sent), mailing lists, our own mail, and mail we cannot tie to a seat of any game (no
backscatter to strangers). Error replies are limited to one per sender, kind and day; for
errors about a game, the kind includes the game's version (decision: a player who mistypes
twice in a day still hears about the second mistake once the game has moved on, while a
loop, which cannot move the game, is stopped after one reply).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import logging
from dataclasses import replace
from datetime import timedelta
from typing import Any

from sqlalchemy import text
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from pbem.app.config import Settings
from pbem.app.service import GameService
from pbem.core.db import Database
from pbem.core.errors import ServiceError, StaleVersion
from pbem.core.hot_path import fetch_first
from pbem.core.time_source import Clock, SystemClock, format_time
from pbem.create import invitation_replies
from pbem.create.events import GAME_STARTED
from pbem.mail.inbound import replies
from pbem.mail.inbound.classification import Kind
from pbem.mail.inbound.outcome import Outcome, Recorder, Result, record_outcome
from pbem.mail.inbound.reading import Incoming, read_message
from pbem.mail.inbound.reply_answers import Answers
from pbem.mail.inbound.reply_words import CHANNEL, ReplyLine, ReplyWords, failed_and_after
from pbem.mail.inbound.routing import NotRouted, Route, route_reply
from pbem.mail.models import CONFIRMED, DONE, HELD, PROCESSING, STORED, InboundMail, OutboxMail
from pbem.mail.outbound import compose as c
from pbem.mail.outbound.relay import default_owner
from pbem.play.views import summary_line

log = logging.getLogger(__name__)

SOURCES = ("webhook", "imap", "stdin", "dev")
#: The detail of a redelivery that finds the message stored and in a worker's hands.
QUEUED = (
    "stored; being processed, or, if its worker stopped, processed by the scheduler once "
    "that worker's lease runs out"
)


#: a reply's route, or (None and) the outcome that says why it has none
Routed = tuple[Route | None, Outcome]


class TooLarge(ValueError):
    pass


class Inbound:
    def __init__(
        self,
        db: Database,
        settings: Settings,
        service: GameService,
        clock: Clock | None = None,
        owner: str | None = None,
        *,
        words: ReplyWords,
    ) -> None:
        self.db = db
        self.settings = settings
        self.service = service
        #: the reply words and their handlers, filled by the features (``pbem.app.bootstrap``)
        self.words = words
        self.clock: Clock = clock or SystemClock()
        self.owner = owner or default_owner()
        if settings.mail.from_mismatch not in ("refuse", "hold"):
            raise ValueError(
                f"mail.from_mismatch is {settings.mail.from_mismatch!r}: it must be 'refuse' "
                "or 'hold'"
            )

    # -- the doors call this -----------------------------------------------------------

    def receive(self, raw: bytes, source: str) -> Result:
        """Store the message (idempotently), then process it unless that already happened."""
        self._check(raw, source)
        incoming = read_message(raw, c.own_domains(self.settings))
        key, fresh, routed = self._store(raw, source, incoming, claim=True, route=True)
        # The worker that stored the message processes it (it claimed it in the same
        # transaction); a second delivery takes over only from a worker that seems to have
        # died (see ``process``).
        if fresh:
            result = self._process_claimed(key, raw, incoming, False, False, routed)
        else:
            result = self.process(key, redelivery=True)
        return replace(result, duplicate=not fresh)

    def _check(self, raw: bytes, source: str) -> None:
        if len(raw) > self.settings.mail.max_inbound_bytes:
            raise TooLarge(
                f"the message is {len(raw)} bytes; at most "
                f"{self.settings.mail.max_inbound_bytes} are accepted"
            )
        if source not in SOURCES:
            raise ValueError(f"unknown inbound source {source!r}")

    def store(
        self, raw: bytes, source: str, incoming: Incoming | None = None, *, claim: bool = False
    ) -> tuple[str, bool]:
        """Insert the raw message under its key; (key, False) when it was already there.
        ``claim``: store it as being processed by this worker (leased, as ``process`` would
        claim it), saving a transaction when the caller processes it right away."""
        key, inserted, _ = self._store(raw, source, incoming, claim=claim, route=False)
        return key, inserted

    def _store(
        self, raw: bytes, source: str, incoming: Incoming | None, *, claim: bool, route: bool
    ) -> tuple[str, bool, Routed | None]:
        """``store``; with ``route``, a reply just stored is also routed, in the same
        session: its read costs no transaction of its own."""
        self._check(raw, source)
        incoming = incoming or read_message(raw, c.own_domains(self.settings))
        now = self.clock.now()
        key = incoming.key[:300]
        row: dict[str, Any] = {
            "key": key,
            "raw": raw,
            "size": len(raw),
            "source": source,
            "sender": incoming.sender[:320],
            "received_at": format_time(now),
            "status": STORED,
        }
        if claim:
            lease = timedelta(seconds=self.settings.mail.lease_seconds)
            row.update(
                status=PROCESSING,
                lease_owner=self.owner,
                lease_expires_at=format_time(now + lease),
            )
        row.setdefault("lease_owner", None)
        row.setdefault("lease_expires_at", None)
        try:
            # One statement, run on the driver (``pbem.core.hot_path``: it runs for every
            # message): it inserts no row when the key is taken (a second delivery, even one
            # racing this one from another worker). RETURNING: psycopg reports no
            # rowcount for this statement. Committed on its own (``autocommit``): the route's
            # read needs no transaction with it.
            with self.db.autocommit() as session:
                inserted = fetch_first(session, _STORE, row) is not None
                routed = None
                if inserted and route and incoming.kind is Kind.REPLY:
                    # A failure here must not undo the store: the message is then routed
                    # again as it is processed, where any error becomes its one outcome.
                    with contextlib.suppress(Exception):
                        routed = self._route_in(session, incoming)
        except IntegrityError:  # not expected (the conflict is handled), but never a crash
            return key, False, None
        return key, inserted, routed

    def process(
        self,
        key: str,
        *,
        sender_confirmed: bool = False,
        incoming: Incoming | None = None,
        redelivery: bool = False,
    ) -> Result:
        """Process a stored message unless it is done or another worker holds it
        (``incoming``: the message already read from the same raw bytes, if at hand;
        ``redelivery``: called for a second copy, which leaves a freshly stored message to
        the worker that stored it and takes over only once that worker's time is up)."""
        now = self.clock.now()
        stamp = format_time(now)
        lease = timedelta(seconds=self.settings.mail.lease_seconds)
        with self.db.write() as session:
            row = session.exec(
                select(InboundMail).where(InboundMail.key == key).with_for_update()
            ).one()
            leased = row.status == PROCESSING and (row.lease_expires_at or "") > stamp
            storer_at_work = (
                redelivery and row.status == STORED and row.received_at > format_time(now - lease)
            )
            held = row.status == HELD and not sender_confirmed
            if leased or storer_at_work:
                # Stored, and in a worker's hands: if that worker died, the scheduler's
                # recovery job (pbem.mail.inbound.recovery) processes it when the lease runs out.
                return Result(key, "queued", QUEUED, duplicate=True)
            if row.status == DONE or held:
                outcome, detail = row.outcome or "", row.detail or ""
                return Result(key, outcome, detail, row.game_id, row.seat, duplicate=True)
            recovered = row.status == PROCESSING  # a worker died half-way: check the log
            # The seat's confirmation, kept with the claim: a recovery applies it too.
            sender_confirmed = sender_confirmed or (recovered and row.outcome == CONFIRMED)
            if sender_confirmed:
                row.outcome = CONFIRMED
            row.status, row.lease_owner = PROCESSING, self.owner
            row.lease_expires_at = format_time(now + lease)
            session.add(row)
            raw = row.raw
        return self._process_claimed(key, raw, incoming, recovered, sender_confirmed)

    def _process_claimed(
        self,
        key: str,
        raw: bytes,
        incoming: Incoming | None,
        recovered: bool,
        sender_confirmed: bool,
        routed: Routed | None = None,
    ) -> Result:
        """Process a message this worker holds the lease of, and record its outcome
        (``routed``: the reply's route, when it was read as the message was stored)."""
        try:
            incoming = incoming or read_message(raw, c.own_domains(self.settings))
            outcome = self._handle(incoming, key, recovered, sender_confirmed, routed)
        except Exception as error:  # one outcome per message, whatever went wrong
            log.exception("inbound %s failed", key)
            incoming = None
            outcome = Outcome("failed", f"internal error: {type(error).__name__}: {error}")
        if outcome.recorded:
            route = outcome.route
            game_id, seat = (route.game_id, route.seat) if route else (None, None)
            return Result(key, outcome.outcome, outcome.detail, game_id, seat)
        try:
            return self._finish(key, incoming, outcome)
        except Exception as error:
            # Recording the outcome (or its reply) failed: record at least that, so the
            # message is not processed again; if even that fails the database is away and
            # the caller's error makes the sender (provider, MTA, IMAP) deliver it again.
            log.exception("inbound %s: recording the outcome failed", key)
            failed = Outcome("failed", f"could not record the outcome: {type(error).__name__}")
            return self._finish(key, None, failed)

    def confirm_token(self, key: str) -> str:
        return hmac.new(
            self.settings.secret_key.encode(), b"confirm\0" + key.encode(), hashlib.sha256
        ).hexdigest()[:32]

    def confirm(self, key: str, token: str) -> Result:
        """The seat confirmed (by link) a held message sent from another address."""
        if not hmac.compare_digest(self.confirm_token(key), token):
            raise ValueError("this confirmation link is not valid")
        return self.process(key, sender_confirmed=True)

    # -- deciding ------------------------------------------------------------------------

    def _handle(
        self,
        incoming: Incoming,
        key: str,
        recovered: bool,
        sender_confirmed: bool,
        routed: Routed | None = None,
    ) -> Outcome:
        if incoming.kind is Kind.BOUNCE:
            return self._bounce(incoming)
        if incoming.kind is not Kind.REPLY:
            return Outcome("ignored", f"not answered: {incoming.reason}")
        route, problem = routed or self._route(incoming)
        if route is None:
            return problem
        if not sender_confirmed and incoming.sender != (route.email or "").lower():
            if route.invitation_waiting:
                # Nothing but the invitation goes to an address before its player accepts:
                # neither an error (it would show the position) nor a link to confirm.
                return Outcome("refused", f"from {incoming.sender}: not the invited address", route)
            return self._wrong_sender(incoming, key, route)
        if recovered and self._already_applied(route.game_id, key):
            return Outcome("applied", "applied before an interruption; not applied again", route)
        if not incoming.commands and route.invitation_waiting:
            return self._invitation_not_accepted(route, incoming, "unclear")
        if not incoming.commands:
            return self._error(
                route, incoming, "empty", "We found no command in your mail.", [], None
            )
        return self._apply(incoming, key, route)

    def _bounce(self, incoming: Incoming) -> Outcome:
        bounce = incoming.bounce
        if bounce is None or not bounce.failed:
            return Outcome("ignored", "a delivery delay warning")
        with self.db.read() as session:
            ours = list(
                session.exec(
                    select(OutboxMail).where(col(OutboxMail.message_id).in_(bounce.original_ids))
                )
            )
        # Anyone can write "From: MAILER-DAEMON": a report is believed only when it cites a
        # mail we sent (its Message-ID is random, and only that mail's recipient saw it),
        # and it marks only the addresses those mails went to.
        if not ours:
            return Outcome("ignored", "a delivery report citing none of our mails: not believed")
        mailed = sorted({r.recipient.lower() for r in ours})
        named = [a for a in bounce.recipients if a in mailed] or mailed
        return Outcome("bounce", "marked failing: " + ", ".join(named), failing=named)

    def _route(self, incoming: Incoming) -> Routed:
        with self.db.read() as session:
            return self._route_in(session, incoming)

    def _route_in(self, session: Session, incoming: Incoming) -> Routed:
        """The game and seat a reply is for, read in ``session``; or, when there is none, the
        outcome that says why (``pbem.mail.inbound.routing``)."""
        found = route_reply(session, self.settings, self.service, incoming)
        if isinstance(found, NotRouted):
            return None, Outcome(found.outcome, found.detail, reply=found.reply)
        return found, Outcome("", "")

    def _wrong_sender(self, incoming: Incoming, key: str, route: Route) -> Outcome:
        if not route.email:
            return Outcome("refused", "this seat has no e-mail address", route)
        title = f"game {route.game_id}"
        if self.settings.mail.from_mismatch == "hold":
            link = (
                f"{self.settings.base_url.rstrip('/')}/inbound/confirm/"
                f"{_url_key(key)}/{self.confirm_token(key)}"
            )
            text = c.render(
                "confirm",
                title=title,
                sender=incoming.sender,
                quoted=replies.quote(incoming.commands),
                link=link,
            )
            outcome = Outcome("held", f"from {incoming.sender}: waiting for confirmation", route)
            outcome.reply = ("confirm", route.email, route.name, text)
            return outcome
        why = (
            f"A mail for your seat came from {incoming.sender or 'an unknown sender'}, which is "
            "not the address this game has for you, so it was not applied. Reply from your "
            "registered address."
        )
        outcome = self._error(route, incoming, "wrong_sender", why, [], None)
        if outcome.reply is not None:  # tell the seat's own address, not the other sender
            outcome.reply = (outcome.reply[0], route.email, route.name, outcome.reply[3])
        return outcome

    def _already_applied(self, game_id: str, key: str) -> bool:
        return self.service.has_event_from(game_id, key)

    # -- applying ------------------------------------------------------------------------

    def _apply(self, incoming: Incoming, key: str, route: Route) -> Outcome:
        svc, game, seat = self.service, route.game_id, route.seat
        done: list[str] = []
        # What the reply asks to be told: mailed once, whatever it asks (reply_answers).
        answers = Answers()
        mails: list[OutboxMail] = []
        expected = route.seen
        groups = self.words.groups(incoming.commands)
        # An invited seat's reply accepts only when it says so or holds a command for the
        # game; a decline, or anything else, changes nothing (pbem.create.invitation_replies).
        invited_now = route.invitation_waiting  # read with the route
        if invited_now:
            reading = invitation_replies.read_answer(
                groups, lambda line: svc.reads_as_action(game, seat, line)
            )
            if reading.said != "accept":
                return self._invitation_not_accepted(route, incoming, reading.said)
            groups = reading.groups  # without its answer ("Count me in!"): the rest applies
        # A reply that opens with a move accepts with it, in the move's transaction: the
        # seat then gets no turn mail for the decision its reply makes.
        accept_with_move = invited_now and bool(groups) and groups[0][0] is None
        if (
            invited_now
            and not accept_with_move
            and svc.accept_invitation(game, seat, channel=CHANNEL)
        ):
            done.append("invitation accepted")
        for index, (word, lines) in enumerate(groups):
            try:
                if word is not None:  # a feature's word: its handler applies it
                    email = route.email or ""
                    did = self.words.handle(
                        ReplyLine(game, seat, email, key, word, lines[0], invited_now)
                    )
                    if did.version is not None:
                        expected = did.version
                    if did.did is not None:
                        done.append(did.did)
                    if did.tell is not None:
                        answers.add(*did.tell)
                    continue
                if expected is None:
                    expected = svc.load(game).version
                # The reply's last commands: its outcome is written in their transaction.
                last = index == len(groups) - 1
                mails[:] = self._answer(route, answers) if last else []
                recorder = (
                    Recorder(self.settings, self.clock, key, incoming, route, done, mails)
                    if last
                    else None
                )
                result = svc.submit(
                    game,
                    seat,
                    "\n".join(lines),
                    expected_version=expected,
                    channel=CHANNEL,
                    channel_ref=key,
                    idempotency_key=f"mail:{key}:{index}"[:200],
                    stale_policy="same_decision",
                    record=recorder,
                    accept_invitation=accept_with_move and index == 0,
                )
                if result.invitation_accepted:
                    done.append("invitation accepted")
                done.extend(a.canonical for a in result.applied if a.line)
                expected = result.version
                if result.error is not None:
                    line, after = failed_and_after(lines, result.error.line, groups[index + 1 :])
                    answered = self._answer(route, answers)
                    return self._stopped(route, incoming, done, line, after, result.error, answered)
                recorded = recorder.outcome if recorder is not None else None
                if recorded is not None and not result.replayed:
                    return recorded  # written, and committed with the move
            except ServiceError as error:
                # Refused before any line was read (a stale version, too many lines): the
                # player still meant to join (False: accepted already).
                if (
                    index == 0
                    and accept_with_move
                    and svc.accept_invitation(game, seat, channel=CHANNEL)
                ):
                    done.append("invitation accepted")
                line, after = failed_and_after(lines, error.line, groups[index + 1 :])
                answered = self._answer(route, answers)
                return self._stopped(route, incoming, done, line, after, error, answered)
        # The outcome word is printed before the detail ("applied: E5"): not repeated here.
        return Outcome("applied", "; ".join(done), route, mails=self._answer(route, answers))

    def _invitation_not_accepted(
        self, route: Route, incoming: Incoming, said: invitation_replies.Answer
    ) -> Outcome:
        """A decline, or a reply that neither accepts nor declines: nothing changes, and the
        answer (once a day per kind and sender) says how to accept."""
        why = (
            "invitation declined: nothing recorded, nothing more is sent unless they accept"
            if said == "decline"
            else "not an answer to the invitation: reply accept to join, or decline"
        )
        text = invitation_replies.answer_text(said, f"game {route.game_id}", route.name)
        # Its Reply-To carries the seat, so that "accept" in answer to it is understood.
        loaded = self.service.load(route.game_id)
        outcome = Outcome("refused", why, route, version=loaded.version, head_hash=loaded.head_hash)
        outcome.reply = (
            f"invitation {said}:{route.game_id}",
            incoming.sender or (route.email or ""),
            route.name,
            text,
        )
        return outcome

    def _stopped(
        self,
        route: Route,
        incoming: Incoming,
        done: list[str],
        line: str,
        after: list[str],
        error: ServiceError,
        mails: list[OutboxMail],
    ) -> Outcome:
        """The reply stopped at ``line``: ``done`` was applied before it, ``after`` (the lines
        under it) was not reached."""
        intro = f"Applied first: {', '.join(done)}.\n\n" if done else ""
        # The quote shows which line: the error's reason names none.
        message = error.reason[:1].upper() + error.reason[1:]
        if isinstance(error, StaleVersion) and route.seen is not None:
            # In a mail, say what changed rather than the API's "look again and resubmit".
            message = (
                f"The position changed after the mail you answered (version {route.seen}), in "
                "a way that bears on this move, so it was not applied. "
            )
            # (The game is read again for the reply below: the repository's cache answers.)
            if route.seat in self.service.load(route.game_id).to_act:
                message += "Reply to this mail to play on the position below."
            else:
                message += "The position is below; you will get a mail when it is your turn."
        problem = f"{intro}This line was not applied:\n\n> {line}\n\n{message}"
        if after:
            quoted = "\n".join(f"> {later}" for later in after[:10])
            if len(after) > 10:
                quoted += f"\n(and {len(after) - 10} more)"
            problem += f"\n\nNor the lines under it, which come after it:\n\n{quoted}"
        outcome = self._error(
            route,
            incoming,
            error.code,
            problem,
            error.can_type,
            error,
            applied_first=bool(done),
        )
        outcome.outcome = "partly applied" if done else "refused"
        outcome.mails = mails
        return outcome

    def _error(
        self,
        route: Route,
        incoming: Incoming,
        kind: str,
        problem: str,
        can_type: Any,
        error: ServiceError | None,
        *,
        applied_first: bool = False,
    ) -> Outcome:
        loaded = self.service.load(route.game_id)
        rules, names = loaded.rules, loaded.names
        since: list[str] = []
        if isinstance(error, StaleVersion) and route.seen is not None:
            since = [
                summary_line(e)
                for e in self.service.events(route.game_id, route.seen, route.seat)
                if e["type"] != GAME_STARTED
            ]
        text = replies.error_text(
            self.settings,
            loaded,
            route.seat,
            route.seen,
            problem,
            can_type,
            error,
            incoming.commands,
            since,
            applied_first=applied_first,
        )
        return Outcome(
            "refused",
            " ".join(problem.split())[:500],
            route,
            reply=(
                f"{kind}:{route.game_id}:{loaded.version}",
                incoming.sender or (route.email or ""),
                route.name,
                text,
            ),
            version=loaded.version,
            head_hash=loaded.head_hash,
            # The fresh position a stale reply's error shows, drawn in its HTML part too.
            board=c.mail_board(rules, loaded.state, route.seat, names, finished=loaded.finished)
            if isinstance(error, StaleVersion)
            else None,
        )

    def _answer(self, route: Route, answers: Answers) -> list[OutboxMail]:
        """The reply's one informational mail, if it asked for any."""
        if not answers:
            return []
        loaded = self.service.load(route.game_id)
        email, now = route.email or "", self.clock.now()
        with self.db.read() as session:
            mail = answers.mail(session, self.settings, loaded, route.seat, route.name, email, now)
        return [] if mail is None else [mail]

    # -- recording the outcome -----------------------------------------------------------

    def _finish(self, key: str, incoming: Incoming | None, outcome: Outcome) -> Result:
        with self.db.write() as session:
            now = self.clock.now()
            return record_outcome(session, self.settings, now, key, incoming, outcome)


# Plain SQL: ON CONFLICT DO NOTHING is written alike for SQLite and PostgreSQL, where
# SQLAlchemy has a construct of each dialect's own.
_STORE = text(
    'INSERT INTO mail_inbound ("key", raw, size, source, sender, received_at, status, '
    "lease_owner, lease_expires_at) VALUES (:key, :raw, :size, :source, :sender, "
    ':received_at, :status, :lease_owner, :lease_expires_at) ON CONFLICT ("key") DO NOTHING '
    'RETURNING "key"'
)


def _url_key(key: str) -> str:
    return key.encode().hex()


def key_from_url(text: str) -> str:
    return bytes.fromhex(text).decode()
