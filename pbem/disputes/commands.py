"""Disputes: a seat says an action of the log went wrong (``DisputeOpened``); it ends with
``DisputeResolved``, dismissed with a reason or upheld. An upheld dispute retracts the
disputed actions and everything played after them, exactly as a consented undo does
(``pbem.undo.rules.plan`` decides what, ``ActionsRetracted`` does it; nothing is deleted).

Who upholds: every other active seat's consent (``DisputeAnswered`` with ``agree``), or the
game's administrator alone. Consent never crosses an irreversible step (a draw, a reveal):
only the administrator may, and the log then says which hidden information those steps had
already revealed, since it stays known to every player. A seat that disagrees leaves the
dispute to the administrator.

Decisions where the issue was silent: a finished game takes no new dispute (its seed is
public, nothing can be retracted); the text of a dispute is read by every seat (the mails
and the form say so).

A dispute must not stall the game (docs/deadlines.md): the opener's own clock keeps
running, and the others' stop for at most one decision's time (``pbem.clock.schedule``);
who may open one when is ``pbem.disputes.limits``.

``Disputes`` is composed into the game service (``GameService.disputes``); the mail door,
the API, the pages and the CLI call it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, select

from pbem.core import events as ev
from pbem.core.db import Database
from pbem.core.errors import AgainstTheRules, BadRequest, Conflict, GameNotFound
from pbem.core.events import StoredEvent
from pbem.core.models import Dispute
from pbem.core.naming import Names, names_for
from pbem.core.numbers import NumberError, read_int
from pbem.core.repository import game_or_404
from pbem.core.time_source import Clock
from pbem.core.unit_of_work import Transactions, UnitOfWork
from pbem.create.player_names import link_refusal
from pbem.disputes.limits import check_may_open
from pbem.mail.inbound.reply_words import Done, ReplyLine, ReplyWords
from pbem.play.command_checks import check_admin, check_can_act
from pbem.play.queries import GameQueries
from pbem.undo import rules as undo_rules

#: The longest text of a dispute (a few sentences; a mail line is at most 200 characters).
MAX_TEXT = 2000
#: The most versions one dispute may name (a range is for a few related moves).
MAX_RANGE = 200
#: The channel of what the administrator does from the command line.
ADMIN_CHANNEL = "cli"

#: ``41`` or ``41-43`` (also ``41..43``, ``v41``)
_RANGE = re.compile(
    r"^v?([0-9]{1,9})(?:\s*(?:-|–|\.\.)\s*v?([0-9]{1,9}))?$", re.IGNORECASE | re.ASCII
)
#: A mail line: ``dispute 41: I wrote knight 2, not knight 1``, ``agree 45``, ``disagree``.
_MAIL_LINE = re.compile(
    r"^(?P<word>dispute|agree|disagree)\b\s*(?P<what>[^:]*?)\s*(?::\s*(?P<text>.*))?$",
    re.IGNORECASE,
)
#: The words a mail line may begin with to open or answer a dispute.
MAIL_WORDS = ("dispute", "agree", "disagree")


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


def parse_versions(text: str) -> tuple[int, int]:
    """``"41"`` -> (41, 41); ``"41-43"`` -> (41, 43); BadRequest saying what to write."""
    match = _RANGE.match(text.strip())
    if match is None:
        raise BadRequest(
            f"Name the version you dispute as a number, or a range such as 41-43 (not "
            f"{text.strip()[:40]!r})."
        )
    first = read_int(match.group(1), what="the first version")
    last = read_int(match.group(2), what="the last version") if match.group(2) else first
    if last < first:
        # Read backwards it may name other moves than meant: the writer says which.
        raise BadRequest(
            f"The first version must not be after the last: write {last}-{first}, not "
            f"{first}-{last}."
        )
    return first, last


def resolution_reasons(events: Sequence[StoredEvent]) -> dict[int, str]:
    """The reason of each resolved dispute (by its DisputeResolved version): a dismissal's
    reason, or for an upheld dispute the remedy in words."""
    return {e.version: p.reason for e in events if isinstance(p := e.payload, ev.DisputeResolved)}


def administrator_only(events: Sequence[StoredEvent], first: int) -> bool:
    """Whether upholding a dispute of the moves from version ``first`` on would take back
    an irreversible step (a draw, a reveal), which the players' consent cannot: only the
    administrator may. ``events``: the log from ``first`` on (or all of it)."""
    retracted = ev.retracted_versions(events)
    return any(
        e.version >= first
        and e.version not in retracted
        and isinstance(p := e.payload, ev.ActionApplied)
        and p.irreversible
        for e in events
    )


def row_json(
    row: Dispute, names: Names | None = None, reasons: dict[int, str] | None = None
) -> dict[str, Any]:
    """A dispute as the API and pages show it (every seat may read all of it); ``reasons``:
    ``resolution_reasons`` of the game's log, for the reason of a resolved one."""
    answers = {int(k): v for k, v in json.loads(row.answers).items()}
    out: dict[str, Any] = {
        "dispute": row.dispute,
        "seat": row.seat,
        "versions": json.loads(row.versions),
        "text": row.text,
        "status": row.status,
        "agreed": sorted(s for s, v in answers.items() if v),
        "disagreed": sorted(s for s, v in answers.items() if not v),
        "opened_at": row.opened_at,
        "resolved": row.resolved,
        "reason": None if row.resolved is None else (reasons or {}).get(row.resolved),
    }
    if names is not None:
        # People read names, never seat numbers: "Ann (Red)".
        out["by"] = names.of(row.seat)
        out["agreed_names"] = [names.of(s) for s in out["agreed"]]
        out["disagreed_names"] = [names.of(s) for s in out["disagreed"]]
    return out


def open_disputes(session: Session, game_id: str) -> list[Dispute]:
    """The game's open disputes, oldest first (through the ``(game_id, status)`` index)."""
    return list(
        session.exec(
            select(Dispute)
            .where(Dispute.game_id == game_id, Dispute.status == "open")
            .order_by(col(Dispute.dispute))
        ).all()
    )


def answerable(rows: Sequence[Dispute], seat: int | None) -> list[Dispute]:
    """The open disputes ``seat`` may still answer: another seat's, not answered by it yet
    (``seat`` None: every open one)."""
    if seat is None:
        return list(rows)
    return [r for r in rows if r.seat != seat and str(seat) not in json.loads(r.answers)]


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
            versions = _disputed(events, txn.version, first, last)
            check_may_open(txn, events, open_disputes(txn.session, game_id), seat, self.clock.now())
            opened = ev.DisputeOpened(
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
            answered = ev.DisputeAnswered(
                dispute=dispute, seat=seat, agree=agree, channel=channel, channel_ref=channel_ref
            )
            if not agree:
                stored = txn.append([answered], txn.state, lapse=False)
                return DisputeResult(game_id, stored[-1].version, dispute, "disagreed")
            # Checked at the first agreement already: consent that cannot uphold is refused
            # at once, not after every seat has answered.
            plan = self._plan(txn, row)
            if plan.crossed:
                raise AgainstTheRules(_consent_refusal(txn, plan.crossed))
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
                resolved = ev.DisputeResolved(
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
            plan = self._plan(txn, row)
            reason = reason or "the administrator upheld the dispute"
            return self._uphold(txn, row, plan, None, reason, channel, [])

    # -- the remedy -----------------------------------------------------------------------

    def _plan(self, txn: UnitOfWork, row: Dispute) -> undo_rules.Plan:
        """What upholding retracts: the disputed actions and everything played after them,
        by the rules of a consented undo (never across a resignation)."""
        names = _names(txn)
        first = min(json.loads(row.versions))
        return undo_rules.plan(
            txn.read(),
            txn.version,
            row.seat,
            first - 1,
            txn.resigned,
            consent=True,
            name_of=names.of,
            cross_irreversible=True,
        )

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
        revealed = tuple(revealed_by(txn.read(), plan.crossed, _names(txn)))
        # ``decider``: the seat whose agreement completed the consent, None for the
        # administrator: the event says who decided, never the opener in their place.
        resolved = ev.DisputeResolved(
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


def revealed_by(events: Sequence[StoredEvent], crossed: Sequence[int], names: Names) -> list[str]:
    """Plain words for what the irreversible steps ``crossed`` had revealed: the step
    itself (its public log: a draw, the votes) and the secret choices it made public."""
    by_version = {e.version: e for e in events}
    retracted = ev.retracted_versions(events)
    lines: list[str] = []
    previous_reveal = 0
    effective = [e for e in events if e.type == ev.ACTION_APPLIED and e.version not in retracted]
    for version in crossed:
        p = by_version[version].payload
        assert isinstance(p, ev.ActionApplied)
        log = " ".join(names.lines(p.log))
        line = (
            f"Version {version} ({names.of(p.seat)}: {p.canonical}) drew randomness or "
            f"revealed hidden information, which every player has seen"
        )
        line += f": {log}" if log else "."
        secrets = [
            e
            for e in effective
            if previous_reveal < e.version < version
            and isinstance(q := e.payload, ev.ActionApplied)
            and q.secret
        ]
        if isinstance(p, ev.ActionApplied) and p.secret:
            secrets.append(by_version[version])
        if secrets:
            choices = ", ".join(
                f"{names.of(_action(e).seat)}: {_action(e).canonical} (version {e.version})"
                for e in secrets
            )
            line += f" It made these secret choices public: {choices}."
        lines.append(line)
        previous_reveal = version
    return lines


def apply_mail_line(
    disputes: Disputes, game_id: str, seat: int, line: str, channel_ref: str
) -> tuple[int, str]:
    """A mail's dispute line (``dispute 41: …``, ``agree 45``, ``disagree``): the game's
    version after it, and what was done, in a few words."""
    match = _MAIL_LINE.match(" ".join(line.split()))
    if match is None:
        raise BadRequest(
            "Write a dispute as 'dispute 41: what went wrong' (the version, a colon, then "
            "your words), or answer one with 'agree 45' or 'disagree 45'."
        )
    word, what, text = match.group("word").lower(), match.group("what"), match.group("text")
    if word == "dispute":
        if not what:
            raise BadRequest(
                "Name the version you dispute: 'dispute 41: what went wrong' (the versions "
                "are in the log of your mails and on the game page)."
            )
        try:
            first, last = parse_versions(what)
        except BadRequest:
            raise BadRequest(
                "Write a dispute as 'dispute 41: what went wrong': the version (or a range "
                "such as 41-43), a colon, then your words."
            ) from None
        result = disputes.open(
            game_id, seat, first, last, text or "", channel="email", channel_ref=channel_ref
        )
        return result.version, f"dispute {result.dispute} opened"
    if what:
        number = re.sub(r"^dispute\s*", "", what, flags=re.IGNORECASE)
        try:
            dispute = read_int(number, what="the dispute's number")
        except NumberError:
            raise BadRequest(
                f"'{word} 45' names the dispute by its number (not {what[:20]!r})."
            ) from None
    else:
        found = disputes.open_one(game_id, seat)
        if found is None:
            raise Conflict("There is no dispute waiting for an answer.")
        dispute = found
    result = disputes.answer(
        game_id, seat, dispute, word == "agree", channel="email", channel_ref=channel_ref
    )
    return result.version, f"{word} {dispute}"


def dispute_headline(new: Sequence[StoredEvent]) -> str | None:
    """The headline of the notice every seat gets when a dispute is opened or resolved."""
    for e in new:
        if e.type == ev.DISPUTE_OPENED:
            return "a move is disputed."
        if isinstance(p := e.payload, ev.DisputeResolved):
            return f"dispute {p.dispute} is {p.outcome}."
    return None


def dispute_notice(
    row: Dispute | None, viewer: int, names: Names, *, consent_possible: bool = True
) -> str:
    """What every mail says while a dispute is open (``row``: one of ``open_disputes``,
    read once for all the mails of an append): what it is about, and how to answer.
    ``consent_possible``: False when upholding it would cross a draw or a reveal
    (``administrator_only``): then no seat is asked to agree."""
    if row is None:
        return ""
    versions = json.loads(row.versions)
    about = (
        f"version {versions[0]}" if len(versions) == 1 else f"versions {versions[0]}-{versions[-1]}"
    )

    line = f"Dispute {row.dispute}: {names.of(row.seat)} disputes {about}: “{row.text}”."
    answers = {int(k): v for k, v in json.loads(row.answers).items()}
    if viewer == row.seat:
        line += (
            " The other players and the game's administrator have been told. Your own clock "
            "keeps running meanwhile."
        )
    elif viewer in answers:
        line += " You answered; the others or the administrator decide."
    elif not consent_possible:
        line += (
            " Taking those moves back would go back across a draw or a reveal: only the "
            f"game's administrator can uphold this dispute. Reply 'disagree {row.dispute}' if "
            "you think the moves stand."
        )
    else:
        line += (
            f" Reply 'agree {row.dispute}' to retract those moves (and what was played after "
            f"them), or 'disagree {row.dispute}' to leave it to the game's administrator."
        )
    return line


def _disputed(events: Sequence[StoredEvent], head: int, first: int, last: int) -> list[int]:
    """The actions in effect from ``first`` to ``last``, or why there are none."""
    if not 1 <= first <= last < head + 1:
        raise AgainstTheRules(
            f"The game is at version {head}: name versions from "
            f"{undo_rules.FIRST_POSITION + 1} to {head} "
            f"(not {first if first == last else f'{first}-{last}'})."
        )
    if last - first >= MAX_RANGE:
        raise BadRequest(f"A dispute names at most {MAX_RANGE} versions at once.")
    retracted = ev.retracted_versions(events)
    versions = [
        e.version
        for e in events
        if first <= e.version <= last and e.type == ev.ACTION_APPLIED and e.version not in retracted
    ]
    if not versions:
        span = f"version {first}" if first == last else f"versions {first} to {last}"
        raise AgainstTheRules(
            f"There is no move in effect at {span}: a dispute is about moves played "
            "(see the game's log), not about other events or moves already taken back."
        )
    return versions


def _open_row(txn: UnitOfWork, dispute: int) -> Dispute:
    # Disputes are numbered by their event's version: anything else names none (and a
    # number too large for the database's integers must not reach it).
    row = txn.session.get(Dispute, (txn.game_id, dispute)) if 1 <= dispute <= txn.version else None
    if row is None:
        raise GameNotFound(f"There is no dispute {dispute} in this game.")
    if row.status != "open":
        raise Conflict(f"Dispute {dispute} is already resolved ({row.status}).")
    return row


def _consent_refusal(txn: UnitOfWork, crossed: Sequence[int]) -> str:
    names = _names(txn)
    steps = []
    for e in txn.read():
        if e.version in crossed:
            p = _action(e)
            steps.append(f"version {e.version} ({names.of(p.seat)}: {p.canonical})")
    return (
        f"Retracting these moves would go back across {', '.join(steps)}, which drew "
        "randomness or revealed hidden information: the players' consent cannot undo that. "
        "Only the game's administrator can uphold this dispute."
    )


def _names(txn: UnitOfWork) -> Names:
    return names_for(txn.rules, txn.state, [s.name for s in txn.seats])


def _action(e: StoredEvent) -> ev.ActionApplied:
    p = e.payload
    assert isinstance(p, ev.ActionApplied)
    return p


def register_reply_words(words: ReplyWords, disputes: Disputes) -> None:
    """The reply words of disputes, each the first word of its line: ``dispute 41: …``
    opens one, ``agree 45`` / ``disagree 45`` answer one (``apply_mail_line``)."""

    def answer(line: ReplyLine) -> Done:
        version, did = apply_mail_line(disputes, line.game_id, line.seat, line.text, line.key)
        return Done(version, did)

    for word in MAIL_WORDS:
        words.first_word(word, answer)
