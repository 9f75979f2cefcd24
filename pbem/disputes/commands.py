"""The dispute commands: a seat says an action of the log went wrong (``DisputeOpened``); it
ends with ``DisputeResolved``, dismissed with a reason or upheld. What may be disputed and
what upholding retracts is ``pbem.disputes.rules``'s to say; who may open one when is
``pbem.disputes.limits``.

Who upholds: every other active seat's consent (``DisputeAnswered`` with ``agree``), or the
game's administrator alone; a seat that disagrees leaves the dispute to the administrator.

Decisions where the issue was silent: a finished game takes no new dispute (its seed is
public, nothing can be retracted); the text of a dispute is read by every seat (the mails
and the form say so).

A dispute must not stall the game (docs/deadlines.md): the opener's own clock keeps
running, and the others' stop for at most one decision's time (``pbem.clock.schedule``).

``Disputes`` is composed into the game service (``GameService.disputes``); the mail door
(``pbem.disputes.replies``), the API, the pages and the CLI call it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import col, select

from pbem.core import events as ev
from pbem.core.db import Database
from pbem.core.errors import AgainstTheRules, BadRequest, Conflict, GameNotFound
from pbem.core.models import Dispute
from pbem.core.repository import game_or_404
from pbem.core.time_source import Clock
from pbem.core.unit_of_work import Transactions, UnitOfWork
from pbem.create.player_names import link_refusal
from pbem.disputes import events as dispute_events
from pbem.disputes.display import resolution_reasons, row_json
from pbem.disputes.limits import check_may_open
from pbem.disputes.projection import answerable, open_disputes
from pbem.disputes.rules import (
    MAX_TEXT,
    administrator_only,
    consent_refusal,
    disputed_versions,
    revealed_by,
    seat_names,
    uphold_plan,
)
from pbem.play.command_checks import check_admin, check_can_act
from pbem.play.queries import GameQueries
from pbem.undo import rules as undo_rules

#: The channel of what the administrator does from the command line.
ADMIN_CHANNEL = "cli"


@dataclass(frozen=True)
class DisputeResult:
    game_id: str
    #: the game's version after the command
    version: int
    dispute: int
    #: open | agreed (waiting for others) | disagreed | dismissed | upheld
    status: str
    retracted: tuple[int, ...] = ()
    revealed: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "dispute": self.dispute,
            "status": self.status,
            "retracted": list(self.retracted),
            "revealed": list(self.revealed),
        }


class Disputes:
    """Opening, answering and resolving disputes, on the game service's transactions."""

    def __init__(
        self, db: Database, clock: Clock, transactions: Transactions, queries: GameQueries
    ) -> None:
        self.db = db
        self.clock = clock
        self.transactions = transactions
        self.queries = queries

    # -- reading --------------------------------------------------------------------------

    def list(self, game_id: str) -> list[dict[str, Any]]:
        """Every dispute of the game, oldest first, with the players named."""
        with self.db.read() as session:
            game_or_404(session, game_id)
            rows = session.exec(
                select(Dispute).where(Dispute.game_id == game_id).order_by(col(Dispute.dispute))
            ).all()
        if not rows:
            return []
        names = self.queries.load(game_id).names
        events = self.queries.raw_events(game_id)
        reasons = resolution_reasons(events)
        out = []
        for r in rows:
            item = row_json(r, names, reasons)
            if r.status == "open":
                # The page offers "agree" only where consent can uphold the dispute.
                item["administrator_only"] = administrator_only(events, min(json.loads(r.versions)))
            out.append(item)
        return out

    def open_one(self, game_id: str, seat: int | None = None) -> int | None:
        """The open dispute (its number) that ``seat`` may answer, if there is exactly one
        (``seat`` None: the game's only open dispute). Conflict naming them when several
        are: an answer must say which."""
        with self.db.read() as session:
            rows = answerable(open_disputes(session, game_id), seat)
        if len(rows) > 1:
            numbers = ", ".join(str(r.dispute) for r in rows)
            raise Conflict(
                f"Disputes {numbers} are open: say which you answer, as "
                f"'agree {rows[0].dispute}' or 'disagree {rows[0].dispute}'."
            )
        return rows[0].dispute if rows else None

    # -- commands -------------------------------------------------------------------------

    def open(
        self,
        game_id: str,
        seat: int,
        first: int,
        last: int | None,
        text: str,
        *,
        channel: str,
        channel_ref: str | None = None,
    ) -> DisputeResult:
        """``seat`` disputes the actions from version ``first`` to ``last`` (inclusive)."""
        text = " ".join(text.split())
        if not text:
            raise BadRequest("Say what went wrong: a dispute needs a few words of explanation.")
        if len(text) > MAX_TEXT or "\x00" in text:
            raise BadRequest(f"A dispute's text has at most {MAX_TEXT} characters of text.")
        if refusal := link_refusal(text, "A dispute's text"):
            raise BadRequest(refusal)  # mailed to every player (pbem.create.player_names)
        last = first if last is None else last
        with self.transactions.on(game_id) as txn:
            # The service's own checks: refused in the words of every other command.
            check_can_act(txn, seat)
            events = txn.read()
            versions = disputed_versions(events, txn.version, first, last)
            check_may_open(txn, events, open_disputes(txn.session, game_id), seat, self.clock.now())
            opened = dispute_events.DisputeOpened(
                seat=seat,
                versions=tuple(versions),
                text=text,
                channel=channel,
                channel_ref=channel_ref,
            )
            stored = txn.append([opened], txn.state, lapse=False)
            return DisputeResult(game_id, stored[-1].version, stored[-1].version, "open")

    def answer(
        self,
        game_id: str,
        seat: int,
        dispute: int,
        agree: bool,
        *,
        channel: str,
        channel_ref: str | None = None,
    ) -> DisputeResult:
        """Another seat agrees to retract the disputed actions (or does not). The last
        agreement upholds the dispute; a disagreement leaves it to the administrator."""
        with self.transactions.on(game_id) as txn:
            check_can_act(txn, seat)
            row = _open_row(txn, dispute)
            if row.seat == seat:
                raise AgainstTheRules(
                    "You opened this dispute: the other players answer it (or the "
                    "administrator decides)."
                )
            answers = {int(k): v for k, v in json.loads(row.answers).items()}
            if seat in answers:
                word = "agreed to" if answers[seat] else "disagreed with"
                raise Conflict(f"You already {word} dispute {dispute}.")
            answered = dispute_events.DisputeAnswered(
                dispute=dispute, seat=seat, agree=agree, channel=channel, channel_ref=channel_ref
            )
            if not agree:
                stored = txn.append([answered], txn.state, lapse=False)
                return DisputeResult(game_id, stored[-1].version, dispute, "disagreed")
            # Checked at the first agreement already: consent that cannot uphold is refused
            # at once, not after every seat has answered.
            plan = uphold_plan(txn, row)
            if plan.crossed:
                raise AgainstTheRules(consent_refusal(txn, plan.crossed))
            agreed = {s for s, v in answers.items() if v} | {seat}
            waiting = {s.seat for s in txn.seats if not s.resigned} - {row.seat} - agreed
            if waiting:
                stored = txn.append([answered], txn.state, lapse=False)
                return DisputeResult(game_id, stored[-1].version, dispute, "agreed")
            reason = "every other player agreed to retract the disputed actions"
            return self._uphold(txn, row, plan, seat, reason, channel, [answered])

    def resolve(
        self,
        game_id: str,
        admin_token: str | None,
        dispute: int,
        *,
        uphold: bool,
        reason: str,
        channel: str = ADMIN_CHANNEL,
    ) -> DisputeResult:
        """The administrator dismisses the dispute (with a reason) or upholds it, retracting
        the disputed actions even across a draw or a reveal."""
        reason = " ".join(reason.split())
        if len(reason) > MAX_TEXT or "\x00" in reason:
            raise BadRequest(f"A reason has at most {MAX_TEXT} characters of text.")
        if not uphold and not reason:
            raise BadRequest("Say why the dispute is dismissed: every player reads the reason.")
        if refusal := link_refusal(reason, "The reason"):
            raise BadRequest(refusal)
        with self.transactions.on(game_id) as txn:
            check_admin(txn, admin_token)
            row = _open_row(txn, dispute)
            if not uphold:
                resolved = dispute_events.DisputeResolved(
                    dispute=dispute,
                    opener=row.seat,
                    seat=None,
                    outcome="dismissed",
                    by="administrator",
                    reason=reason,
                    to_version=None,
                    retracted=(),
                    revealed=(),
                    channel=channel,
                )
                stored = txn.append([resolved], txn.state, lapse=False)
                return DisputeResult(game_id, stored[-1].version, dispute, "dismissed")
            if txn.finished:
                raise Conflict(
                    f"The game is over (it finished at version {txn.version}): nothing can be "
                    "retracted any more; dismiss the dispute with a reason."
                )
            plan = uphold_plan(txn, row)
            reason = reason or "the administrator upheld the dispute"
            return self._uphold(txn, row, plan, None, reason, channel, [])

    # -- the remedy -----------------------------------------------------------------------

    def _uphold(
        self,
        txn: UnitOfWork,
        row: Dispute,
        plan: undo_rules.Plan,
        decider: int | None,
        reason: str,
        channel: str,
        before: Sequence[ev.Payload],
    ) -> DisputeResult:
        revealed = tuple(revealed_by(txn.read(), plan.crossed, seat_names(txn)))
        # ``decider``: the seat whose agreement completed the consent, None for the
        # administrator: the event says who decided, never the opener in their place.
        resolved = dispute_events.DisputeResolved(
            dispute=row.dispute,
            opener=row.seat,
            seat=decider,
            outcome="upheld",
            by="administrator" if decider is None else "consent",
            reason=reason,
            to_version=plan.to_version,
            retracted=tuple(plan.versions),
            revealed=revealed,
            channel=channel,
        )
        # The references of the answers are on the DisputeAnswered events, each its own
        # seat's: the retraction carries none.
        retracted = ev.ActionsRetracted(
            seat=row.seat,
            request=None,
            to_version=plan.to_version,
            versions=tuple(plan.versions),
            channel=channel,
            channel_ref=None,
        )
        stored = txn.append([*before, resolved, retracted], txn.state_at(plan.to_version))
        return DisputeResult(
            txn.game_id,
            stored[-1].version,
            row.dispute,
            "upheld",
            tuple(plan.versions),
            revealed,
        )


def _open_row(txn: UnitOfWork, dispute: int) -> Dispute:
    # Disputes are numbered by their event's version: anything else names none (and a
    # number too large for the database's integers must not reach it).
    row = txn.session.get(Dispute, (txn.game_id, dispute)) if 1 <= dispute <= txn.version else None
    if row is None:
        raise GameNotFound(f"There is no dispute {dispute} in this game.")
    if row.status != "open":
        raise Conflict(f"Dispute {dispute} is already resolved ({row.status}).")
    return row
