"""Deadline reminders: which are due, and the one mail per address that sends them.

A person is one address across games, so the reminders of an address due now or within
``WINDOW`` are coalesced into one mail listing every game where that person is expected.
Each reminder is claimed by a ``ReminderSent`` row written in the same transaction as the
outbox mail: its primary key (game, seat, due time, reminder) lets only one sweep commit
it, so a reminder goes once however many sweeps run, and a crash before the commit leaves
it for the next sweep.

Reminders go only to the late seat itself: never to a seat whose invitation waits (it
gets nothing but the invitation), a resigned seat, or a seat without an address.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import and_, exists, func, insert
from sqlmodel import Session, col, select

from engine.core import EngineError
from pbem.app.config import Settings
from pbem.clock.deadline_moves import what_will_be_played
from pbem.clock.display import deadline_text, due_text
from pbem.clock.preferences import address_key, zone_of
from pbem.clock.projection import clock_row
from pbem.clock.schedule import GameClock
from pbem.core.models import Deadline, Game, Invitation, ReminderSent, Seat
from pbem.core.repository import Loaded, seat_infos
from pbem.core.time_source import format_time
from pbem.create import invitations
from pbem.mail.models import OutboxMail
from pbem.mail.outbound import compose as c

#: Reminders due within this much of the first due one go in the same mail.
WINDOW = timedelta(hours=1)


@dataclass(frozen=True)
class DueReminder:
    """The reminders of one seat's deadline not yet sent, due by the time asked."""

    game_id: str
    seat: int
    due_at: str
    address: str
    #: the reminder keys (``before 14400s``, ``80% gone``) and when each is due
    keys: tuple[tuple[str, str], ...]


def due_reminders(
    session: Session,
    now: datetime,
    until: datetime,
    limit: int,
    addresses: Iterable[str] | None = None,
) -> list[DueReminder]:
    """Running deadlines with a reminder due by ``until`` that has no ``ReminderSent`` row,
    through the ``next_reminder_at`` index (no game is replayed). ``addresses``: only the
    seats of these addresses (their keys, ``address_key``)."""
    stamp, until_stamp = format_time(now), format_time(until)
    query = (
        select(Deadline, Seat.email)
        .join(
            Seat,
            and_(col(Seat.game_id) == col(Deadline.game_id), col(Seat.seat) == col(Deadline.seat)),
        )
        .where(
            col(Deadline.next_reminder_at) <= until_stamp,
            Deadline.status == "running",
            # A reminder after the deadline says nothing the deadline move will not.
            col(Deadline.due_at) > stamp,
            col(Seat.email).is_not(None),
            col(Seat.resigned).is_(False),
        )
    )
    if addresses is not None:
        query = query.where(func.lower(col(Seat.email)).in_(list(addresses)))
    elif until == now:
        # A seat reminded within the window has had every reminder due until now: the
        # claim took those due up to an hour ahead. So the same rows are not read again
        # at every sweep while their next reminder is still far off.
        query = query.where(
            ~exists().where(
                col(ReminderSent.game_id) == col(Deadline.game_id),
                col(ReminderSent.seat) == col(Deadline.seat),
                col(ReminderSent.due_at) == col(Deadline.due_at),
                col(ReminderSent.sent_at) > format_time(now - WINDOW),
            )
        )
    rows = session.exec(query.order_by(col(Deadline.next_reminder_at)).limit(limit)).all()
    sent = _sent(session, [d for d, _ in rows])
    out = []
    for deadline, email in rows:
        assert deadline.due_at is not None and email is not None
        keys = tuple(
            (key, when)
            for key, when in json.loads(deadline.reminders)
            if when <= until_stamp
            and (deadline.game_id, deadline.seat, deadline.due_at, key) not in sent
        )
        if keys:
            out.append(DueReminder(deadline.game_id, deadline.seat, deadline.due_at, email, keys))
    return out


def _sent(session: Session, rows: Sequence[Deadline]) -> set[tuple[str, int, str, str]]:
    if not rows:
        return set()
    found = session.exec(
        select(ReminderSent).where(col(ReminderSent.game_id).in_({d.game_id for d in rows}))
    ).all()
    return {(r.game_id, r.seat, r.due_at, r.reminder) for r in found}


@dataclass(frozen=True)
class ReminderMail:
    """One reminder mail written to the outbox."""

    address: str
    #: (game, seat) of every deadline it reminds of
    seats: tuple[tuple[str, int], ...]
    reminders: int


def send_reminders(
    session: Session,
    settings: Settings,
    address: str,
    now: datetime,
    load: Callable[[str], Loaded],
    limit: int,
) -> ReminderMail | None:
    """Claim every reminder of ``address`` due by ``now`` + ``WINDOW`` and write the one
    mail that sends them, in ``session``'s transaction (the caller commits both, or on an
    IntegrityError — another sweep claimed one first — neither). None when nothing is due
    now (the window only adds to a mail that is due anyway). ``load``: a game as it stands
    (its seats' names, and what its deadline would play)."""
    due = [
        r
        for r in due_reminders(session, now, now + WINDOW, limit, [address_key(address)])
        if not _waiting(session, r)
    ]
    stamp = format_time(now)
    if not any(when <= stamp for r in due for _, when in r.keys):
        return None
    due.sort(key=lambda r: (r.due_at, r.game_id, r.seat))
    sent_at = format_time(now)
    session.connection().execute(
        insert(ReminderSent),
        [
            {
                "game_id": r.game_id,
                "seat": r.seat,
                "due_at": r.due_at,
                "reminder": key,
                "address": r.address,
                "sent_at": sent_at,
            }
            for r in due
            for key, _ in r.keys
        ],
    )
    session.add(_mail(session, settings, due, now, load))
    session.flush()  # an error shows here, inside the caller's handling, not at commit
    return ReminderMail(
        due[0].address,
        tuple((r.game_id, r.seat) for r in due),
        sum(len(r.keys) for r in due),
    )


def _waiting(session: Session, r: DueReminder) -> bool:
    """The seat's invitation waits: it gets nothing but the invitation (as in the outbox)."""
    invitation = session.get(Invitation, (r.game_id, r.seat))
    if invitation is None or invitation.accepted_at is not None:
        return False
    seat = session.get(Seat, (r.game_id, r.seat))
    assert seat is not None
    pending = [(r.seat, invitation.address)]
    return r.seat in invitations.waiting_among(session, pending, seat_infos([seat]))


def _at_deadline(session: Session, loaded: Loaded, r: DueReminder) -> str:
    """What the deadline will play for the reminded seat, as ``pbem.clock.deadline_moves``
    would play it now: its standing order (named to the seat alone: it is its own), else
    the game's default move."""
    row = session.get(Deadline, (r.game_id, r.seat))
    order = None if row is None else row.standing_order
    state = clock_row(session, r.game_id)
    on_deadline = (
        "move"
        if state is None
        else GameClock.from_json(json.loads(state.state)).time_control.on_deadline
    )
    try:
        return what_will_be_played(loaded.rules, loaded.state, r.seat, order, on_deadline)
    except (EngineError, ValueError):  # a seat with nothing to do after all: say nothing more
        return "the game's default move will be played for you."


def _mail(
    session: Session,
    settings: Settings,
    due: Sequence[DueReminder],
    now: datetime,
    load: Callable[[str], Loaded],
) -> OutboxMail:
    by_game: dict[str, list[DueReminder]] = defaultdict(list)
    for r in due:
        by_game[r.game_id].append(r)
    games = {g.id: g for g in session.exec(select(Game).where(col(Game.id).in_(list(by_game))))}
    loaded = {g: load(g) for g in by_game}
    named = {g: loaded[g].names for g in by_game}
    # One mail, one address: its zone (if it gave one) for every entry.
    zone = zone_of(session, due[0].address)
    entries = []
    for r in due:
        game = games[r.game_id]
        # worded as in the turn mails and on the seat page
        shown = deadline_text("running", r.due_at, now, zone)
        then = _at_deadline(session, loaded[r.game_id], r)
        entries.append(
            f"- {game.game.title()}, game {r.game_id}: you play "
            f"{named[r.game_id].of(r.seat)}.\n"
            f"  Deadline: {shown}\n"
            f"  If you do not move by {due_text(r.due_at)}, {then}\n"
            f"  Your board: {c.seat_link(session, settings, r.game_id, r.seat)}"
        )
    first = due[0]
    single = len(due) == 1
    headline = (
        "your move is expected before the deadline."
        if single
        else f"your move is expected in {len(due)} games."
    )
    text = c.render(
        "reminder",
        marker=c.MARKER if single else "",
        headline=headline,
        games="\n\n".join(entries),
        after=(
            "Reply to this mail with your move, or play it on the board. To choose the "
            "move played for you if the deadline passes, reply 'default <move>'."
            if single
            else "Play each on its board, or reply to that game's latest mail (there, "
            "'default <move>' chooses the move played for you if the deadline passes)."
        ),
    )
    game = games[first.game_id]
    return c.outbox_mail(
        settings,
        kind="reminder",
        game_id=first.game_id if single else None,
        seat=first.seat if single else None,
        to_name=named[first.game_id].people[first.seat],
        to_address=first.address,
        subject=c.subject_of(game.game, first.game_id)
        if single
        else f"[pbem] Reminder: {len(due)} games wait for your move",
        text=text,
        now=now,
        version=game.version if single else None,
        head_hash=game.head_hash if single else None,
        reply_to=c.seat_reply_address(session, settings, first.game_id, first.seat, game.version)
        if single
        else None,
    )
