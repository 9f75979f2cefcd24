"""Invitations: mail to an address that never played is an invitation, and nothing else is
sent to it until its player accepts (docs/mail.md, "Invitations").

- At creation, the seats whose address has never played are *invited* (GameCreated's
  ``invited``). An address has played when one of its seats, in any game, is not waiting on
  an invitation: it was not invited (its address had played before), or it accepted.
- Creations are limited per requester (a client address or an organiser key) and per
  recipient address, in any 24 hours (``pbem.create.limits``); a creation over a limit
  is refused (429) and changes nothing.
- An operator may require an organiser key to create games (``organiser_keys``).
- The player accepts by the link in the invitation or by replying to it: an
  ``InvitationAccepted`` event in the game's log. The mail outbox (a listener) holds back
  every mail to an invited seat until then, and then sends the one mail that matters: the
  game as it stands (``pbem.mail.outbound.outbox``).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from collections.abc import Sequence

from sqlalchemy import and_, func, or_
from sqlmodel import Session, col, select

from pbem.app.config import Settings
from pbem.core.errors import Forbidden
from pbem.core.models import Invitation, Seat
from pbem.core.repository import SeatInfo
from pbem.core.unit_of_work import Transactions
from pbem.create import events as creation_events

#: The requester of games created on the command line (by the operator).
CLI = "cli"


# -- who may create games ----------------------------------------------------------------------


def requester_for(settings: Settings, organiser_key: str | None, requester: str | None) -> str:
    """Who asks for a game, for the rate limit: the organiser key's id when keys are required
    (Forbidden without a known one), else the requester the door names (a client address)."""
    keys = settings.invitations.organiser_keys
    if not keys:
        return (requester or CLI)[:100]
    given = (organiser_key or "").strip()
    if not given:
        raise Forbidden(
            "Creating a game here needs an organiser key: send it in the 'Organiser-Key' "
            "header (on the /new page, its field). Ask the operator of this service for one."
        )
    if not any(hmac.compare_digest(given.encode(), k.encode()) for k in keys):
        raise Forbidden("This organiser key is not one this service knows.")
    return "organiser:" + hashlib.sha256(given.encode()).hexdigest()[:16]


def client_requester(remote_addr: str | None) -> str:
    """The requester of a creation by a client at ``remote_addr`` (the doors' requester when
    no organiser key is needed). An IPv6 client counts by its /64: a network is handed a
    whole /64 at the least, and each of its 2**64 addresses must not be a budget of its own.
    An IPv4 address on a dual-stack socket (``::ffff:a.b.c.d``) counts as that address."""
    if not remote_addr:
        return "ip:unknown"
    try:
        address = ipaddress.ip_address(remote_addr)
    except ValueError:
        return f"ip:{remote_addr}"[:100]
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return f"ip:{address.ipv4_mapped}"
        return f"ip:{ipaddress.ip_network(f'{address}/64', strict=False)}"
    return f"ip:{address}"


# -- who is invited ----------------------------------------------------------------------------


def has_played(session: Session, address: str) -> bool:
    """Whether ``address`` has a seat, in any game, that is not waiting on an invitation."""
    found = session.exec(
        select(Seat.game_id)
        .outerjoin(
            Invitation,
            and_(
                col(Invitation.game_id) == col(Seat.game_id),
                col(Invitation.seat) == col(Seat.seat),
            ),
        )
        .where(
            func.lower(col(Seat.email)) == address.lower(),
            or_(col(Invitation.game_id).is_(None), col(Invitation.accepted_at).is_not(None)),
        )
        .limit(1)
    ).first()
    return found is not None


def to_invite(session: Session, emails: Sequence[str | None]) -> tuple[int, ...]:
    """The seats (by index) whose address has never played."""
    known: dict[str, bool] = {}
    invited = []
    for seat, email in enumerate(emails):
        if not email:
            continue
        address = email.lower()
        if address not in known:
            known[address] = has_played(session, address)
        if not known[address]:
            invited.append(seat)
    return tuple(invited)


# -- whose mails wait --------------------------------------------------------------------------


def waiting_seats(session: Session, game_id: str, seats: Sequence[SeatInfo]) -> frozenset[int]:
    """The seats of this game whose mails wait: invited, not accepted, and their address has
    not played anywhere since (accepting any game lets the address's mails through)."""
    pending = session.exec(
        select(Invitation).where(
            Invitation.game_id == game_id, col(Invitation.accepted_at).is_(None)
        )
    ).all()
    return waiting_among(session, [(row.seat, row.address) for row in pending], seats)


def waiting_among(
    session: Session, pending: Sequence[tuple[int, str]], seats: Sequence[SeatInfo]
) -> frozenset[int]:
    """``waiting_seats`` when the game's invitations not accepted yet are known: ``pending``
    holds their (seat, address)."""
    if not pending:
        return frozenset()
    emails = {s.seat: s.email for s in seats}
    return frozenset(
        seat for seat, address in pending if emails.get(seat) and not has_played(session, address)
    )


def is_waiting(session: Session, game_id: str, seat: int) -> bool:
    """Whether this seat's player has yet to accept its invitation."""
    row = session.get(Invitation, (game_id, seat))
    return row is not None and row.accepted_at is None


def was_invited(session: Session, game_id: str, seat: int) -> bool:
    return session.get(Invitation, (game_id, seat)) is not None


class Invitations:
    """Accepting an invitation, on the service's transactions."""

    def __init__(self, transactions: Transactions) -> None:
        self.transactions = transactions

    def accept(self, game_id: str, seat: int, *, channel: str) -> bool:
        """The seat's player accepts its invitation: an ``InvitationAccepted`` event; False
        when there was nothing to accept (not invited, or accepted already)."""
        with self.transactions.on(game_id) as txn:
            if not is_waiting(txn.session, game_id, seat):
                return False
            # Not an action: an undo request stays open (``lapse``), the position is unchanged.
            txn.append(
                [creation_events.InvitationAccepted(seat=seat, channel=channel)],
                txn.state,
                lapse=False,
            )
            return True
