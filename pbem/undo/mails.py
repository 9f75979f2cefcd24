"""The mails of undo: an undo request, to answer with ``accept`` or ``decline`` (and the line
every mail carries while it waits), a request that lapsed, and the news of actions taken back.
The outbox asks these planners through the table the composition root fills
(``pbem.mail.outbound.mail_planners``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pbem.core import events as ev
from pbem.core import store
from pbem.core.events import StoredEvent
from pbem.core.repository import SeatInfo
from pbem.mail.outbound.mail_planners import (
    AppendMails,
    Mail,
    MailPlanner,
    SeatMail,
    StandingNotice,
)
from pbem.play.views import action_words, moves_text, versions_text, visible_events
from pbem.undo import events as undo_events
from pbem.undo.projection import waiting_request


@dataclass(frozen=True)
class _PendingUndo:
    """An undo request waiting for answers, as the mails of this append describe it."""

    request: int
    seat: int
    to_version: int
    answered: frozenset[int]
    #: the action versions it would take back
    versions: tuple[int, ...] = ()


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
        return _PendingUndo(made.version, d.seat, d.to_version, frozenset(), d.versions)
    row = waiting_request(append.ctx.session, append.ctx.game_id)
    if row is None:
        return None
    answered = frozenset(json.loads(row.accepted_by))
    asked = next((e for e in _log_from(append, row.request) if e.version == row.request), None)
    versions = (
        asked.payload.versions
        if asked is not None and isinstance(asked.payload, undo_events.UndoRequested)
        else ()
    )
    return _PendingUndo(row.request, row.seat, row.to_version, answered, versions)


def _log_from(append: AppendMails, first: int) -> Sequence[StoredEvent]:
    """The log from version ``first`` on: the append's tail when it reaches that far back
    (nearly always: an undo takes back the latest moves), else read from the store."""
    history = append.history
    if history and history[0].version <= first:
        return history
    return store.read(append.session, append.ctx.game_id, after=first - 1)


def _moves(append: AppendMails, pending: _PendingUndo) -> Callable[[int], str]:
    """What the request would take back, as each seat may see it ("Ann (Red) placed a
    knight on E5 (version 4), …"); a secret action stays what the engine's public log says
    of it ("Ann (Red) has voted")."""
    if not pending.versions:
        return lambda viewer: f"the moves after version {pending.to_version}"
    log = _log_from(append, min(pending.versions))

    def moves(viewer: int) -> str:
        described = {
            e["version"]: action_words(e["data"], append.names)
            for e in visible_events(log, viewer, names=append.names)
            if e["version"] in pending.versions
        }
        return moves_text(pending.versions, described) or versions_text(list(pending.versions))

    return moves


def _pending_lines(append: AppendMails) -> Callable[[int], str] | None:
    pending = _pending_undo(append)
    if pending is None:
        return None
    names = append.names
    moves = _moves(append, pending)

    def line(viewer: int) -> str:
        taken = moves(viewer)
        if pending.seat == viewer:
            return (
                f"Your undo request {pending.request} is waiting for the others' answers. "
                f"It takes back: {taken}; the game would go back to version "
                f"{pending.to_version}."
            )
        if viewer in pending.answered:
            return (
                f"{names.of(pending.seat)} asks to take back: {taken}. You accepted; the "
                "others have yet to answer."
            )
        return (
            f"{names.of(pending.seat)} asks to take back: {taken}. The game would go back "
            f"to version {pending.to_version} (undo request {pending.request}). Reply "
            "'accept' to agree or 'decline' to refuse, on a line of its own. Any move in "
            "the game lets the request lapse."
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
