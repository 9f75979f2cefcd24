"""Submitting actions: the command lines of one submission applied in order in one
transaction, idempotent retries answered with the stored result, and a submission made on an
older version judged by its stale policy (``pbem.play.command_checks``)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from engine.core import ActionSyntaxError, EngineError, IllegalActionError, NotYourTurnError
from pbem.app.config import Settings
from pbem.core import events as ev
from pbem.core import store
from pbem.core.db import Database
from pbem.core.errors import (
    AgainstTheRules,
    BadRequest,
    Conflict,
    ServiceError,
    StaleVersion,
    Unreadable,
)
from pbem.core.hot_path import insert_rows
from pbem.core.models import IdempotencyKey
from pbem.core.naming import names_for
from pbem.core.time_source import Clock, format_time
from pbem.core.unit_of_work import Transactions, UnitOfWork
from pbem.create import events as creation_events
from pbem.create import invitations
from pbem.play.actions import action_event, auto_moves
from pbem.play.command_checks import (
    StalePolicy,
    can_type,
    can_type_at,
    check_can_act,
    check_version,
    finish,
)
from pbem.play.queries import GameQueries
from pbem.play.results import Applied, SubmitResult
from pbem.play.views import describe

#: The longest idempotency key (the column's size).
MAX_KEY = 200


class Submission:
    """Applies submitted actions (part of ``pbem.app.service.GameService``)."""

    def __init__(
        self,
        db: Database,
        settings: Settings,
        clock: Clock,
        transactions: Transactions,
        queries: GameQueries,
    ) -> None:
        self.db = db
        self.settings = settings
        self.clock = clock
        self.transactions = transactions
        self.queries = queries

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

        ``accept_invitation``: the seat's player answers its invitation with these commands
        (a reply holding a move): the acceptance is appended with them, in the same
        transaction, so the seat is not sent a turn mail for the decision it is making; it
        stands even when no line applies (the player meant to join)."""
        if idempotency_key is not None and (
            not 1 <= len(idempotency_key) <= MAX_KEY
            or any(ord(c) < 32 or c == "\x7f" for c in idempotency_key)
        ):
            raise BadRequest(
                f"An idempotency key has 1 to {MAX_KEY} printable characters, without control "
                f"characters (the one sent has {len(idempotency_key)} characters)."
            )
        if "\x00" in text:
            raise Unreadable(
                "The submission contains a NUL character: send the command as plain text.",
            )
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        request_hash = hashlib.sha256(
            ev.canonical_json(
                {"seat": seat, "text": text, "expected_version": expected_version}
            ).encode()
        ).hexdigest()
        received = format_time(received_at or self.clock.now())
        try:
            with self.transactions.on(game_id, idempotency_key=idempotency_key) as txn:
                session = txn.session
                kept = txn.kept_result
                if kept is not None:
                    return replayed(kept.request_hash, kept.result, request_hash)
                check_can_act(txn, seat)
                check_version(txn, seat, expected_version, stale_policy)
                accepting = accept_invitation and invitations.is_waiting(session, game_id, seat)
                if not lines:
                    raise Unreadable("The submission has no command in it.", can_type(txn, seat))
                if len(lines) > self.settings.max_command_lines:
                    raise BadRequest(
                        f"At most {self.settings.max_command_lines} command lines at once "
                        f"({len(lines)} were sent)."
                    )
                new_events, applied, state, error = self._apply_lines(
                    txn, seat, lines, channel, channel_ref, received
                )
                if accepting:
                    new_events = [
                        creation_events.InvitationAccepted(seat=seat, channel=channel),
                        *new_events,
                    ]
                if not new_events:
                    assert error is not None
                    raise error
                stored = txn.append(new_events, state)
                version = stored[-1].version
                actions = [p for e in stored if isinstance(p := e.payload, ev.ActionApplied)]
                versions = [e.version for e in stored if e.type == ev.ACTION_APPLIED]
                applied_rows = tuple(
                    Applied(v, p.seat, p.text, p.canonical, line)
                    for v, p, line in zip(versions, actions, applied, strict=True)
                )
                result = SubmitResult(
                    game_id,
                    version,
                    applied_rows,
                    txn.finished,
                    error,
                    invitation_accepted=accepting,
                )
                loaded = txn.loaded()
                if idempotency_key is not None:
                    # A plain INSERT (nothing reads the row back in this transaction).
                    insert_rows(
                        session,
                        IdempotencyKey,
                        [
                            {
                                "game_id": game_id,
                                "key": idempotency_key,
                                "seat": seat,
                                "request_hash": request_hash,
                                "result": ev.canonical_json(result.to_json()),
                                "created_at": received,
                            },
                        ],
                    )
                if record is not None:
                    record(session, result)
        except (IntegrityError, store.VersionTaken):
            # Lost a race the lock should have prevented: the answer is the same as for a
            # stale version (or the stored result, if it was this very request).
            if idempotency_key is not None:
                with self.db.read() as session:
                    replay = stored_result(session, game_id, idempotency_key, request_hash)
                if replay is not None:
                    return replay
            current = self.queries.load(game_id)
            raise StaleVersion(
                f"The game moved on to version {current.version} while you submitted.",
                current.version,
                describe(current, seat),
            ) from None
        # The game as it is now, so that callers can answer without reading it again.
        return replace(result, loaded=loaded)

    def _apply_lines(
        self,
        txn: UnitOfWork,
        seat: int,
        lines: Sequence[str],
        channel: str,
        channel_ref: str | None,
        received: str,
    ) -> tuple[list[ev.Payload], list[int], Any, ServiceError | None]:
        rules, state = txn.rules, txn.state
        new_events: list[ev.Payload] = []
        applied: list[int] = []
        error: ServiceError | None = None
        for number, line in enumerate(lines, start=1):
            if not rules.to_act(state):
                error = Conflict(f"Line {number} was not applied: the game is over.")
                break
            if seat not in rules.to_act(state):
                names = names_for(rules, state, [s.name for s in txn.seats])
                waiting = f"waiting for {names.many(rules.to_act(state))}"
                try:
                    rules.parse_action(state, seat, line)
                except ActionSyntaxError:
                    # A line that is no command at all (prose, a signature): that is what the
                    # player must hear first, not only whose turn it is (still refused as
                    # out of turn, 422: whose turn it is decides before what was written).
                    error = _not_applied(
                        number,
                        line,
                        "it reads as no command of this game, and it is not your turn now "
                        f"either; {waiting}.",
                    )
                    break
                except EngineError:
                    pass  # a move, not allowed now: whose turn it is says why
                error = _not_applied(number, line, f"it is not your turn now; {waiting}.")
                break
            try:
                action = rules.parse_action(state, seat, line)
                event, state = action_event(
                    rules, state, seat, action, line, channel, channel_ref, received
                )
            except ActionSyntaxError as e:
                can_type = e.can_type or tuple(can_type_at(rules, state, seat))
                error = Unreadable(
                    f"{e} (line {number}).", can_type, number, reason=str(e), command=line
                )
                break
            except (IllegalActionError, NotYourTurnError, EngineError) as e:
                error = AgainstTheRules(
                    f"{e} (line {number}).", number, reason=str(e), command=line
                )
                break
            new_events.append(event)
            applied.append(number)
            auto, state = auto_moves(rules, state, txn.resigned, received)
            new_events.extend(auto)
            applied.extend(0 for _ in auto)
        new_events.extend(finish(txn, state))
        return new_events, applied, state, error


def _not_applied(number: int, line: str, reason: str) -> AgainstTheRules:
    """Line ``number`` of a submission refused for ``reason`` (which names no line)."""
    message = f"Line {number} ({line[:60]!r}) was not applied: {reason}"
    return AgainstTheRules(message, number, reason=reason, command=line)


def stored_result(
    session: Session, game_id: str, key: str, request_hash: str
) -> SubmitResult | None:
    query = select(IdempotencyKey.request_hash, IdempotencyKey.result).where(
        IdempotencyKey.game_id == game_id, IdempotencyKey.key == key
    )
    row = session.exec(query).first()
    if row is None:
        return None
    kept_hash, kept_result = row
    return replayed(kept_hash, kept_result, request_hash)


def replayed(kept_hash: str, kept_result: str, request_hash: str) -> SubmitResult:
    """The kept result of an earlier submission with the same idempotency key; Conflict when
    that submission was another one (``request_hash``)."""
    if kept_hash != request_hash:
        raise Conflict(
            "This idempotency key was already used for a different submission; use a new "
            "key for a new submission."
        )
    return SubmitResult.from_json(json.loads(kept_result), replayed=True)
