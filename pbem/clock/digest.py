"""The daily digest: one mail a day to each address that chose it (``digest daily`` by mail,
``pbem.clock.preferences``), listing every game where that address's seat is to act, with the
seat's name, its deadline and its board. Such an address gets no turn mails
(``pbem.mail.outbound.outbox``); every other mail, reminders included, still goes.

Once per address and UTC day: the mail is claimed by a ``DigestSent`` row (address, day)
written in the same transaction as the outbox mail, so however many runs there are (the
scheduler's job ``daily-digest``, ``pbem digest``), one commits it; a crash before the
commit leaves it for the next run. An address with nothing waiting gets no mail and claims
nothing: a later run that day sends it if a game comes to wait for it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, func, select

from pbem.app.config import Settings
from pbem.app.service import GameService
from pbem.clock.display import deadline_text
from pbem.clock.preferences import DigestSent, PlayerPreference, address_key, zone_of
from pbem.core.db import Database
from pbem.core.models import Deadline, Game, Invitation, Seat
from pbem.core.naming import Names, names_for
from pbem.core.repository import seat_infos
from pbem.core.time_source import format_time
from pbem.create import invitations
from pbem.mail.outbound import compose as c

log = logging.getLogger(__name__)

#: How often the scheduler looks for digests to send: the first run of a UTC day sends them.
INTERVAL_SECONDS = 3600


def day_of(now: datetime) -> str:
    return now.astimezone(UTC).strftime("%Y-%m-%d")


def waiting_seats(session: Session, address: str) -> list[tuple[Game, Seat]]:
    """The unfinished games where a seat of ``address`` is to act (not resigned, and not a
    seat whose invitation waits: it gets nothing but the invitation)."""
    rows = session.exec(
        select(Game, Seat)
        .join(Seat, col(Seat.game_id) == col(Game.id))
        .where(
            func.lower(col(Seat.email)) == address_key(address),
            col(Seat.resigned).is_(False),
            col(Game.finished).is_(False),
        )
        .order_by(col(Game.id), col(Seat.seat))
    ).all()
    return [
        (game, seat)
        for game, seat in rows
        if seat.seat in json.loads(game.to_act) and not _invited(session, seat)
    ]


def _invited(session: Session, seat: Seat) -> bool:
    invitation = session.get(Invitation, (seat.game_id, seat.seat))
    if invitation is None or invitation.accepted_at is not None:
        return False
    pending = [(seat.seat, invitation.address)]
    return seat.seat in invitations.waiting_among(session, pending, seat_infos([seat]))


def send_digest(
    session: Session,
    settings: Settings,
    address: str,
    now: datetime,
    names: Callable[[str], Names],
) -> int:
    """Claim today's digest of ``address`` and write its mail, in ``session``'s transaction
    (the caller commits both, or on an IntegrityError — another run claimed it first —
    neither). Returns how many games it lists (0: nothing waits, nothing written)."""
    waiting = waiting_seats(session, address)
    if not waiting:
        return 0
    key = address_key(address)
    session.add(DigestSent(address=key, day=day_of(now), sent_at=format_time(now)))
    zone = zone_of(session, key)
    entries = []
    for game, seat in waiting:
        deadline = session.get(Deadline, (game.id, seat.seat))
        when = deadline_text(
            deadline.status if deadline else None,
            deadline.due_at if deadline else None,
            now,
            zone,
        )
        entries.append(
            f"- {game.game.title()}, game {game.id}: you play {names(game.id).of(seat.seat)}.\n"
            f"  Deadline: {when}\n"
            f"  Your board: {c.seat_link(session, settings, game.id, seat.seat)}"
        )
    count = len(entries)
    text = "\n\n".join(
        [
            f"Your daily digest of {day_of(now)}: your move is expected in {count} "
            f"game{'s' if count > 1 else ''}.",
            "\n\n".join(entries),
            "Play each on its board. Reply 'digest off' to a game's mail for a mail at each "
            "turn again.",
        ]
    )
    session.add(
        c.outbox_mail(
            settings,
            kind="digest",
            game_id=None,
            seat=None,
            to_name=waiting[0][1].name,
            to_address=waiting[0][1].email or key,
            subject=f"[pbem] Daily digest: {count} game{'s' if count > 1 else ''} "
            "wait for your move",
            text=text + "\n",
            now=now,
        )
    )
    session.flush()  # an error shows here, inside the caller's handling, not at commit
    return count


@dataclass
class DigestReport:
    """What one run did: (address, games listed) of each digest sent."""

    sent: list[tuple[str, int]] = field(default_factory=list)
    #: addresses with nothing waiting, or claimed by another run first
    skipped: int = 0
    failed: int = 0

    def lines(self) -> list[str]:
        out = [f"digest to {a}: {n} game(s)" for a, n in self.sent]
        out.append(f"{len(self.sent)} digest(s), {self.skipped} skipped, {self.failed} failed")
        return out


class Digester:
    """Sends the day's digests that are not sent yet."""

    def __init__(self, db: Database, service: GameService, settings: Settings) -> None:
        #: who chose a digest is read, and each day's digest claimed, in this database
        self.db = db
        self.service = service
        self.settings = settings

    def run(self, now: datetime | None = None) -> DigestReport:
        now = now or self.service.clock.now()
        day = day_of(now)
        with self.db.read() as session:
            sent = select(DigestSent.address).where(DigestSent.day == day)
            addresses = session.exec(
                select(PlayerPreference.address).where(
                    col(PlayerPreference.digest).is_(True),
                    col(PlayerPreference.address).not_in(sent),
                )
            ).all()
        report = DigestReport()
        for address in addresses:
            try:
                with self.db.write() as session:
                    count = send_digest(session, self.settings, address, now, self._names)
            except IntegrityError:
                report.skipped += 1  # another run claimed it first: it sends it
                continue
            except Exception:  # one address's failure must not stop the others
                log.exception("digest to %s failed", address)
                report.failed += 1
                continue
            if count:
                report.sent.append((address, count))
            else:
                report.skipped += 1
        return report

    def _names(self, game_id: str) -> Names:
        loaded = self.service.load(game_id)
        return names_for(loaded.rules, loaded.state, [s.name for s in loaded.seats])
