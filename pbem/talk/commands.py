"""The commands of table talk: a seat sends a message (``TableTalkSent``) to every seat or
to some, and the game's administrator hides one (``TableTalkHidden``); with the reads of the
conversation as a seat, or the administrator, may see it.

Who may: a seat of the game (its token, page session or reply address: the doors find the
seat, this checks it is one), within the limits of ``pbem.talk.limits``; only the game's
administrator (its admin token) hides. A message never moves the game on: it is appended
with ``lapse=False`` (an undo request waiting for answers stays open), changes no deadline,
and the stale-reply rule passes over it.

``Talk`` is composed into the game service (``GameService.send_talk`` …); the mail door
(``pbem.talk.replies``), the API and the pages call it.
"""

from __future__ import annotations

import json
import secrets
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import col, select

from pbem.core import events as ev
from pbem.core.db import Database
from pbem.core.errors import BadRequest, Conflict, GameNotFound
from pbem.core.naming import Names
from pbem.core.repository import game_or_404
from pbem.core.time_source import Clock
from pbem.core.unit_of_work import Transactions, UnitOfWork
from pbem.play.command_checks import check_admin
from pbem.play.queries import GameQueries
from pbem.talk import events as talk_events
from pbem.talk.limits import check_may_write, clean_text
from pbem.talk.projection import TableTalk
from pbem.talk.recipients import check_seats
from pbem.talk.visibility import HIDDEN


@dataclass(frozen=True)
class TalkResult:
    game_id: str
    #: the game's version after the command: the message's (or the hiding's) own
    version: int
    #: the seats the message is for; () for every seat
    recipients: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"version": self.version, "recipients": list(self.recipients)}


class Talk:
    """Sending and hiding messages, and reading the conversation."""

    def __init__(
        self, db: Database, clock: Clock, transactions: Transactions, queries: GameQueries
    ) -> None:
        self.db = db
        self.clock = clock
        self.transactions = transactions
        self.queries = queries

    # -- commands -------------------------------------------------------------------------

    def send(
        self,
        game_id: str,
        seat: int,
        text: str,
        to: Sequence[int] = (),
        *,
        channel: str,
        channel_ref: str | None = None,
    ) -> TalkResult:
        """``seat`` writes ``text`` to the seats ``to`` (empty: to every seat)."""
        text = clean_text(text)
        with self.transactions.on(game_id) as txn:
            recipients = check_seats(len(txn.seats), seat, to)
            if channel_ref is not None and (
                sent_before := _sent_before(txn, seat, recipients, text, channel_ref)
            ):
                # The same words from the same reply (a reply processed again after a
                # crash, or the line written twice): sent once.
                return TalkResult(game_id, sent_before, recipients)
            check_may_write(txn, seat, self.clock.now())
            sent = talk_events.TableTalkSent(
                seat=seat,
                recipients=recipients,
                text=text,
                channel=channel,
                channel_ref=channel_ref,
                salt=secrets.token_hex(16),
            )
            # Not a move: nothing waiting for the players' answers lapses.
            stored = txn.append([sent], txn.state, lapse=False)
            return TalkResult(game_id, stored[-1].version, recipients)

    def hide(
        self,
        game_id: str,
        admin_token: str | None,
        message: int,
        reason: str,
        *,
        channel: str = "cli",
    ) -> TalkResult:
        """The administrator hides the message at version ``message``, saying why: those who
        could read it read the reason in its place."""
        reason = " ".join(reason.replace("\x00", " ").split())
        if not reason:
            raise BadRequest("Say why the message is hidden: its readers see the reason.")
        if any(unicodedata.category(c) == "Cc" for c in reason):
            # As a message's own words (pbem.talk.limits.clean_text): its readers get it.
            raise BadRequest("A reason may not hold a control character: write it as text.")
        if len(reason) > talk_events.MAX_TEXT:
            raise BadRequest(f"A reason has at most {talk_events.MAX_TEXT} characters.")
        with self.transactions.on(game_id) as txn:
            check_admin(txn, admin_token)
            row = txn.session.get(TableTalk, (game_id, message)) if message >= 1 else None
            if row is None:
                raise GameNotFound(f"There is no message at version {message} in this game.")
            if row.hidden_at is not None:
                raise Conflict(f"The message at version {message} is hidden already.")
            hidden = talk_events.TableTalkHidden(
                message=message, by="administrator", reason=reason, channel=channel
            )
            stored = txn.append([hidden], txn.state, lapse=False)
            return TalkResult(game_id, stored[-1].version, ())

    # -- reading --------------------------------------------------------------------------

    def messages(
        self, game_id: str, seat: int | None, *, admin: bool = False
    ) -> list[dict[str, Any]]:
        """The messages ``seat`` may read, oldest first (``admin``: every message, as the
        administrator sees them, hidden ones with their words; ``seat`` None and not
        ``admin``: none, table talk is among the players)."""
        if seat is None and not admin:
            return []
        with self.db.read() as session:
            game_or_404(session, game_id)
            rows = session.exec(
                select(TableTalk)
                .where(TableTalk.game_id == game_id)
                .order_by(col(TableTalk.version))
            ).all()
        if not rows:
            return []
        names = self._names(game_id)
        out = []
        for r in rows:
            recipients = [int(s) for s in json.loads(r.recipients)]
            if not admin and recipients and seat != r.seat and seat not in recipients:
                continue
            hidden = r.hidden_reason is not None
            item = {
                "version": r.version,
                "seat": r.seat,
                "from": names.of(r.seat),
                "to": recipients,
                "to_names": [names.of(s) for s in recipients] or ["everyone"],
                "text": HIDDEN.format(reason=r.hidden_reason) if hidden and not admin else r.text,
                "hidden": hidden,
                "sent_at": r.sent_at,
                "channel": r.channel,
                "mine": r.seat == seat,
            }
            if admin:
                item["hidden_reason"] = r.hidden_reason
            out.append(item)
        return out

    def recipients_choice(self, game_id: str, seat: int) -> list[dict[str, Any]]:
        """The other seats a message may be written to: each seat's number and name."""
        names = self._names(game_id)
        return [{"seat": s, "name": names.of(s)} for s in range(len(names.people)) if s != seat]

    def names(self, game_id: str) -> Names:
        """The game's seats named for people (the mail door reads recipients with them)."""
        return self._names(game_id)

    def _names(self, game_id: str) -> Names:
        return self.queries.load(game_id).names


def _sent_before(
    txn: UnitOfWork, seat: int, recipients: tuple[int, ...], text: str, channel_ref: str
) -> int | None:
    """The version of the message ``seat`` sent with these words to these seats from
    ``channel_ref`` (a reply's Message-ID), if it did."""
    rows = txn.session.exec(
        select(TableTalk).where(
            TableTalk.game_id == txn.game_id,
            TableTalk.seat == seat,
            TableTalk.channel_ref == channel_ref,
        )
    ).all()
    wanted = ev.canonical_json(list(recipients))
    return next((r.version for r in rows if r.text == text and r.recipients == wanted), None)
