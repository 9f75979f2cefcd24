"""The mails of undo: an undo request, to answer with ``accept`` or ``decline`` (and the line
every mail carries while it waits), a request that lapsed, and the news of actions taken back.
The outbox asks these planners through the table the composition root fills
(``pbem.mail.outbound.mail_planners``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from pbem.core import events as ev
from pbem.core.repository import SeatInfo
from pbem.mail.outbound.mail_planners import (
    AppendMails,
    Mail,
    MailPlanner,
    SeatMail,
    StandingNotice,
)
from pbem.undo import events as undo_events
from pbem.undo.projection import waiting_request


@dataclass(frozen=True)
class _PendingUndo:
    """An undo request waiting for answers, as the mails of this append describe it."""

    request: int
    seat: int
    to_version: int
    answered: frozenset[int]


def _pending_undo(append: AppendMails) -> _PendingUndo | None:
    """The undo request still open after this append: the one just made, or an earlier one
    (every mail says so while it waits). The append lapsed any other
    (``pbem.undo.rules.lapse_waiting_request``)."""
    if append.game_over:
        return None
    made = append.first(undo_events.UNDO_REQUESTED)
    if made is not None:
        d = made.payload
        assert isinstance(d, undo_events.UndoRequested)
        return _PendingUndo(made.version, d.seat, d.to_version, frozenset())
    row = waiting_request(append.ctx.session, append.ctx.game_id)
    if row is None:
        return None
    answered = frozenset(json.loads(row.accepted_by))
    return _PendingUndo(row.request, row.seat, row.to_version, answered)


def _pending_lines(append: AppendMails) -> Callable[[int], str] | None:
    pending = _pending_undo(append)
    if pending is None:
        return None
    names = append.names

    def line(viewer: int) -> str:
        if pending.seat == viewer:
            return (
                f"Your undo request {pending.request} (back to version {pending.to_version}) "
                "is waiting for the others' answers."
            )
        if viewer in pending.answered:
            return (
                f"{names.of(pending.seat)} asks to take the game back to version "
                f"{pending.to_version}; you accepted, the others have yet to answer."
            )
        return (
            f"{names.of(pending.seat)} asks to take the game back to version "
            f"{pending.to_version} (undo request {pending.request}): reply 'accept' to "
            "agree or 'decline' to refuse, on a line of its own. Any move in the game "
            "lets the request lapse."
        )

    return line


def _request(append: AppendMails) -> SeatMail:
    made = append.first(undo_events.UNDO_REQUESTED)
    assert made is not None
    p = made.payload
    assert isinstance(p, undo_events.UndoRequested)
    by = p.seat

    def mail(seat: SeatInfo) -> Mail | None:
        if seat.seat == by:
            return None
        return Mail("notice", append.notice(seat, "an undo request."))

    return mail


def _lapsed(append: AppendMails) -> SeatMail:
    # Every seat the request concerned (its maker and those asked) hears of it.
    return lambda seat: Mail("notice", append.notice(seat, "an undo request lapsed."))


def _retracted(append: AppendMails) -> SeatMail:
    return lambda seat: Mail("notice", append.notice(seat, "news of the game."))


#: While an undo request waits, every mail says so (and asks the others to answer it).
PENDING_REQUEST = StandingNotice(_pending_lines)
#: Another seat asks to undo: the request, to answer with ``accept`` or ``decline``.
REQUEST = MailPlanner(_request, on=frozenset({undo_events.UNDO_REQUESTED}))
#: An undo request lapsed (a move was made while it waited).
LAPSED = MailPlanner(_lapsed, on=frozenset({undo_events.UNDO_LAPSED}))
#: Actions were taken back (an undo, or a dispute upheld).
RETRACTED = MailPlanner(_retracted, on=frozenset({ev.ACTIONS_RETRACTED}))
