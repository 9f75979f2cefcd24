"""An incoming message's one outcome, and writing it: the message row marked done (or held),
its error reply and its mails, the addresses a bounce marked failing, and a working
sender's mark cleared — in the transaction the caller gives, which for an applied reply is
the transaction of its move (``Recorder``), so the move and its outcome commit together."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from sqlmodel import Session

from pbem.app.config import Settings
from pbem.core.hot_path import update_row
from pbem.core.time_source import Clock, format_time
from pbem.mail.inbound import replies
from pbem.mail.inbound.reading import Incoming
from pbem.mail.inbound.routing import Route
from pbem.mail.models import DONE, HELD, InboundMail, OutboxMail
from pbem.mail.outbound.html_part import MailBoard
from pbem.mail.outbound.relay import clear_failure, record_failure
from pbem.play.results import SubmitResult


@dataclass(frozen=True)
class Result:
    """The one outcome of an incoming message."""

    key: str
    outcome: str
    detail: str
    game_id: str | None = None
    seat: int | None = None
    #: True when this delivery found the message already stored (and processed or in hand)
    duplicate: bool = False


@dataclass
class Outcome:
    """What processing a message came to, before it is written."""

    outcome: str
    detail: str
    route: Route | None = None
    #: (kind of error for the rate limit, recipient, recipient name, text)
    reply: tuple[str, str, str, str] | None = None
    mails: list[OutboxMail] = field(default_factory=list)
    #: addresses a bounce reported as failing
    failing: list[str] = field(default_factory=list)
    #: the game version the reply shows (its Reply-To carries it), and its head hash: the
    #: reply's receipt, as every mail of the game has
    version: int | None = None
    head_hash: str | None = None
    #: already written, in the transaction that applied the reply's commands
    recorded: bool = False
    #: the board the reply's text shows (a stale reply's fresh position), drawn in its HTML part
    board: MailBoard | None = None


def record_outcome(
    session: Session,
    settings: Settings,
    now: datetime,
    key: str,
    incoming: Incoming | None,
    outcome: Outcome,
    *,
    in_move: bool = False,
) -> Result:
    """Write the message's outcome (and its mails) in ``session``'s transaction
    (``in_move``: the transaction of the reply's move, ``Recorder``)."""
    route = outcome.route
    for mail in outcome.mails:
        session.add(mail)
    if outcome.reply is not None and incoming is not None:
        kind, to_address, to_name, reply_text = outcome.reply
        reply = replies.reply_mail(
            session,
            settings,
            incoming,
            kind=kind,
            to_address=to_address,
            to_name=to_name,
            text=reply_text,
            game_id=route.game_id if route else None,
            seat=route.seat if route else None,
            version=outcome.version,
            head_hash=outcome.head_hash,
            now=now,
            board=outcome.board,
        )
        if reply is not None:
            session.add(reply)
    for address in outcome.failing:
        record_failure(session, address, "the mail to this address bounced", now)
    if (
        route is not None
        and route.sender_failing
        and incoming is not None
        and outcome.outcome in ("applied", "partly applied")
    ):
        clear_failure(session, incoming.sender)
    game_id, seat = (route.game_id, route.seat) if route else (None, None)
    # One statement (the row is not read first, nor tracked by the session): it runs for
    # every message, in the transaction of its move when it applied one
    # (``pbem.core.hot_path``).
    values = {
        "status": HELD if outcome.outcome == "held" else DONE,
        "kind": incoming.kind.value if incoming is not None else None,
        "outcome": outcome.outcome,
        "detail": _db_text(outcome.detail)[:4000],
        "game_id": game_id,
        "seat": seat,
        "processed_at": format_time(now),
        "lease_owner": None,
        "lease_expires_at": None,
    }
    where = {"key": key}
    if in_move and session.get_bind().dialect.name == "postgresql":
        # Sent without waiting for its answer (in PostgreSQL's pipelined write, it goes with
        # the COMMIT), so its row count is not checked here. The row cannot be missing: this
        # worker stored or claimed it, and holds its lease, and only finished messages are
        # ever deleted (pbem.mail.inbound.retention); the move's events name the message all the
        # same (their channel reference is its key).
        update_row(session, InboundMail, where, values, wait=False)
    elif update_row(session, InboundMail, where, values) != 1:
        raise LookupError(f"inbound message {key!r} is not stored")
    return Result(key, outcome.outcome, outcome.detail, game_id, seat)


class Recorder:
    """Writes a reply's outcome in the transaction of its last commands, when they all
    applied (``GameService.submit``'s ``record``): the move and the message's one outcome
    commit together, in one transaction instead of two. Any other ending (an error to
    answer) is written afterwards, as before."""

    def __init__(
        self,
        settings: Settings,
        clock: Clock,
        key: str,
        incoming: Incoming,
        route: Route,
        done: list[str],
        mails: list[OutboxMail],
    ) -> None:
        self.settings, self.clock = settings, clock
        self.key, self.incoming, self.route = key, incoming, route
        self.done, self.mails = done, mails
        #: set once the outcome was written (it commits with the submission)
        self.outcome: Outcome | None = None

    def __call__(self, session: Session, result: SubmitResult) -> None:
        if result.error is not None:
            return
        accepted = ["invitation accepted"] if result.invitation_accepted else []
        done = [*self.done, *accepted, *(a.canonical for a in result.applied if a.line)]
        # The outcome word is printed before the detail ("applied: E5"): not repeated here.
        outcome = Outcome("applied", "; ".join(done), self.route, mails=self.mails)
        now = self.clock.now()
        record_outcome(session, self.settings, now, self.key, self.incoming, outcome, in_move=True)
        outcome.recorded = True
        self.outcome = outcome


def _db_text(value: str) -> str:
    """PostgreSQL text cannot hold NUL; no stored description needs other controls either."""
    return re.sub(r"[\x00-\x08\x0b-\x1f\x7f]", " ", value)
