"""Evidence for disputed steps, assembled: for an action of the log, what its seat had in
front of it (the mail of the outbox for that seat, or the page's board), what it sent (the
raw inbound message kept for every mail that became an action: Message-ID, From, Date,
receipt time), what was read from it, the canonical action, the legal actions at that point
(the game refolded to the version before it), and the deadline state.

Evidence respects hidden information: a seat sees the evidence of its own actions and the
public record of the others' (their secret choices hidden until revealed, as in the log);
the game's administrator sees everything. ``pbem audit``, the API and the audit page all
read it through the service (``Evidence.audit`` is its ``audit``).
"""

from __future__ import annotations

import json
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

from sqlmodel import col, select

from pbem.app.config import Settings
from pbem.clock.commands import ClockCommands
from pbem.clock.history import NO_TIME_CONTROL, game_deadlines, step_deadlines
from pbem.core import events as ev
from pbem.core.db import Database
from pbem.core.errors import BadRequest, GameNotFound
from pbem.core.models import Dispute, GameClockState
from pbem.core.naming import Names
from pbem.core.read_models import appends
from pbem.core.time_source import Clock
from pbem.disputes.display import resolution_reasons, row_json
from pbem.mail.inbound.reading import read_message
from pbem.mail.models import InboundMail, OutboxMail
from pbem.mail.outbound.compose import own_domains
from pbem.play.queries import GameQueries
from pbem.play.views import board_for_people, visible_events

#: The longest raw message shown whole (a larger one is cut, saying so).
MAX_RAW = 100_000


class Evidence:
    """The evidence of a game's disputed steps, read in its own transactions."""

    def __init__(
        self,
        db: Database,
        settings: Settings,
        clock: Clock,
        queries: GameQueries,
        clocks: ClockCommands,
    ) -> None:
        self.db = db
        self.settings = settings
        self.clock = clock
        self.queries = queries
        self.clocks = clocks

    def audit(
        self,
        game_id: str,
        *,
        viewer: int | None,
        admin: bool,
        version: int | None = None,
    ) -> dict[str, Any]:
        """The disputes of the game, each with the evidence of its steps; with ``version``, the
        evidence of that step alone. ``viewer``: the seat looking (None: the public);
        ``admin``: the game's administrator (or an operator), who sees everything."""
        loaded = self.queries.load(game_id)
        seats = len(loaded.seats)
        if viewer is not None and not 0 <= viewer < seats:
            # Else the report silently falls back to the public record, as if it were the seat's.
            raise BadRequest(
                f"There is no seat {viewer} in this game: its seats are 0 to {seats - 1}."
            )
        names = loaded.names
        events = self.queries.raw_events(game_id)
        visible = {
            e["version"]: e for e in visible_events(events, viewer, everything=admin, names=names)
        }
        with self.db.read() as session:
            rows = session.exec(
                select(Dispute).where(Dispute.game_id == game_id).order_by(col(Dispute.dispute))
            ).all()
            clock = session.get(GameClockState, game_id)
            state = None if clock is None else clock.state
            # Each step's deadline as the clock stood then: the log folded append by append.
            deadlines = step_deadlines(appends(session, loaded.rules, events), range(seats))
        now = self.clock.now()
        out: dict[str, Any] = {
            "game_id": game_id,
            "version": loaded.version,
            "head_hash": loaded.head_hash,
            "seen_by": "administrator" if admin else ("public" if viewer is None else viewer),
            "deadline": game_deadlines(state, self.clocks.deadlines(game_id), names, now),
        }
        if version is not None:
            out["steps"] = [
                self._step(game_id, events, visible, version, viewer, admin, names, deadlines)
            ]
            return out
        disputes = []
        reasons = resolution_reasons(events)
        for row in rows:
            item = row_json(row, names, reasons)
            item["steps"] = [
                self._step(game_id, events, visible, v, viewer, admin, names, deadlines)
                for v in json.loads(row.versions)
            ]
            disputes.append(item)
        out["disputes"] = disputes
        return out

    def _step(
        self,
        game_id: str,
        events: list[ev.StoredEvent],
        visible: dict[int, dict[str, Any]],
        version: int,
        viewer: int | None,
        admin: bool,
        names: Names,
        deadlines: dict[int, str],
    ) -> dict[str, Any]:
        """The evidence of one step; ``deadlines``: ``step_deadlines`` of the game's log."""
        stored = next((e for e in events if e.version == version), None)
        if stored is None or not isinstance(p := stored.payload, ev.ActionApplied):
            raise GameNotFound(
                f"Version {version} is not a move of this game: evidence is kept for moves "
                "(see the log for their versions)."
            )
        retracted_by = next(
            (
                e.version
                for e in events
                if isinstance(q := e.payload, ev.ActionsRetracted) and version in q.versions
            ),
            None,
        )
        step: dict[str, Any] = {
            "version": version,
            "seat": p.seat,
            "by": names.of(p.seat),
            # the log's own record of the step, as this viewer may see it
            "record": visible[version],
            "retracted_by": retracted_by,
            "deadline": deadlines.get(version, NO_TIME_CONTROL),
        }
        if not (admin or viewer == p.seat):
            step["evidence"] = "public record only: the evidence of a move is its player's own"
            return step
        before = self.queries.load(game_id, at=version - 1)
        rules = before.rules
        step["evidence"] = "full"
        step["channel"] = p.channel
        step["received_at"] = p.received_at
        step["text"] = p.text
        step["canonical"] = p.canonical
        step["action"] = p.action
        step["legal"] = [
            rules.format_action(before.state, a) for a in rules.legal_actions(before.state, p.seat)
        ]
        sent = self._inbound(p.channel_ref) if p.channel == "email" else None
        step["sent"] = sent
        step["parsed"] = sent.pop("commands") if sent and "commands" in sent else [p.text]
        # A move by mail answered a mail; any other (the page, the API, the command line) was
        # decided on the position, as the seat's view showed it.
        seen = self._seen(game_id, p.seat, version, sent) if p.channel == "email" else None
        step["seen"] = seen or {
            "kind": "page",
            "version": version - 1,
            "board": board_for_people(rules, before.state, p.seat, names),
        }
        return step

    def _inbound(self, key: str | None) -> dict[str, Any] | None:
        """The raw message kept for a mail that became an action, and what was read from it."""
        if key is None:
            return None
        with self.db.read() as session:
            row = session.get(InboundMail, key)
            if row is None:
                return {"kept": False, "key": key, "note": "the raw message is no longer kept"}
            raw, received, source = bytes(row.raw), row.received_at, row.source
        message = message_from_bytes(raw, policy=policy.compat32)
        text = raw.decode("utf-8", errors="replace")
        incoming = read_message(raw, own_domains(self.settings))
        return {
            "kept": True,
            "key": key,
            "message_id": _header(message, "Message-ID"),
            "from": _header(message, "From"),
            "date": _header(message, "Date"),
            "in_reply_to": _header(message, "In-Reply-To"),
            "received_at": received,
            "source": source,
            "raw": text[:MAX_RAW]
            + ("\n[… cut: the message is longer]" if len(text) > MAX_RAW else ""),
            "commands": list(incoming.commands),
        }

    def _seen(
        self,
        game_id: str,
        seat: int,
        version: int,
        sent: dict[str, Any] | None,
    ) -> dict[str, Any] | None:
        """The mail the seat had in front of it: the one its reply answered (In-Reply-To), or
        else the latest mail to that seat before the step."""
        answered = ((sent or {}).get("in_reply_to") or "").strip().strip("<>")
        with self.db.read() as session:
            row = None
            if answered:
                row = session.exec(
                    select(OutboxMail).where(
                        OutboxMail.message_id == answered,
                        OutboxMail.game_id == game_id,
                        OutboxMail.seat == seat,
                    )
                ).first()
            if row is None:
                row = session.exec(
                    select(OutboxMail)
                    .where(
                        OutboxMail.game_id == game_id,
                        OutboxMail.seat == seat,
                        col(OutboxMail.version) < version,
                    )
                    .order_by(col(OutboxMail.id).desc())
                ).first()
            if row is None:
                return None
            return {
                "kind": "mail",
                "message_id": row.message_id,
                "subject": row.subject,
                "version": row.version,
                "created_at": row.created_at,
                "sent_at": row.sent_at,
                "text": _body(bytes(row.message)),
            }


def _body(raw: bytes) -> str:
    message = message_from_bytes(raw, policy=policy.default)
    assert isinstance(message, EmailMessage)
    part = message.get_body(preferencelist=("plain",))
    # Its lines as the seat's mail program showed them: a part of a multipart mail (each of
    # ours is text and HTML) keeps the CRLFs a whole text mail's content did not.
    return str(part.get_content()).replace("\r\n", "\n") if part is not None else ""


def _header(message: Any, name: str) -> str | None:
    value = message.get(name)
    return None if value is None else " ".join(str(value).split())


def text_report(report: dict[str, Any]) -> str:
    """The report as ``pbem audit`` prints it."""
    lines = [
        f"game {report['game_id']} at version {report['version']} "
        f"(head {report['head_hash'][:16]}); deadlines: {report['deadline']}"
    ]
    if "steps" in report:
        for step in report["steps"]:
            lines.extend(_step_text(step))
        return "\n".join(lines)
    if not report["disputes"]:
        lines.append("no disputes")
    for d in report["disputes"]:
        about = ", ".join(str(v) for v in d["versions"])
        lines.append("")
        lines.append(
            f"dispute {d['dispute']} ({d['status']}) by {d['by']} about version(s) {about}: "
            f"“{d['text']}”"
        )
        if d["agreed"] or d["disagreed"]:
            agreed = ", ".join(d["agreed_names"]) or "nobody"
            disagreed = ", ".join(d["disagreed_names"]) or "nobody"
            lines.append(f"  agreed: {agreed}; disagreed: {disagreed}")
        if d["resolved"]:
            lines.append(f"  resolved at version {d['resolved']}: {d['reason']}")
        for step in d["steps"]:
            lines.extend(_step_text(step))
    return "\n".join(lines)


def _step_text(step: dict[str, Any]) -> list[str]:
    out = [f"  step {step['version']} by {step['by']}: {step['record'].get('text', '')}"]
    if step["retracted_by"]:
        out.append(f"    retracted at version {step['retracted_by']}")
    if step["evidence"] != "full":
        out.append(f"    {step['evidence']}")
        return out
    seen = step["seen"]
    if seen["kind"] == "mail":
        out.append(
            f"    had in front of it: mail {seen['message_id']} (version {seen['version']}, "
            f"{seen['subject']!r})"
        )
        out.extend("      | " + line for line in seen["text"].splitlines())
    else:
        out.append(f"    had in front of it: the page at version {seen['version']}")
        out.extend("      | " + line for line in seen["board"].splitlines())
    sent = step["sent"]
    if sent and sent.get("kept"):
        out.append(
            f"    sent: Message-ID {sent['message_id']}, From {sent['from']}, "
            f"Date {sent['date']}, received {sent['received_at']} ({sent['source']})"
        )
        out.extend("      > " + line for line in sent["raw"].splitlines())
    elif sent:
        out.append(f"    sent: {sent['key']} ({sent['note']})")
    else:
        out.append(f"    sent through {step['channel']} at {step['received_at']}: {step['text']!r}")
    out.append(f"    read from it: {step['parsed']}")
    out.append(f"    canonical action: {step['canonical']}")
    out.append(f"    legal then: {', '.join(step['legal'])}")
    out.append(f"    deadline: {step['deadline']}")
    return out
