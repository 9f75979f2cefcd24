"""Routing a reply: the game and seat an incoming mail is for.

The reply address carries a signed token for (game, seat), checked against the seat's
current reply-key version (``pbem mail rotate-key`` revokes old addresses); a client that
dropped the ``+token`` is routed by the mail it answers (In-Reply-To, References), unless
that mail went out before the seat's key was last rotated. A mail
that cannot be tied to a seat is answered only when its sender plays somewhere, so the
service never becomes a source of backscatter to strangers.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session, select

from pbem.app.config import Settings
from pbem.app.service import GameService
from pbem.mail.inbound import replies
from pbem.mail.inbound.reading import Incoming
from pbem.mail.models import OutboxMail, SeatReplyKey
from pbem.mail.outbound import compose as c
from pbem.mail.outbound.address import BadToken, find_token, peek, verify


@dataclass
class Route:
    """The seat a reply is for, and what routing it read of that seat."""

    game_id: str
    seat: int
    #: the version the player saw (from the token or the mail answered); None: unknown
    seen: int | None
    email: str | None
    name: str
    #: the seat was invited and its player had yet to accept, when the reply was routed
    invitation_waiting: bool = False
    #: the sender's address was marked failing when the reply was routed (its mail reaches
    #: us, so an applied reply clears the mark)
    sender_failing: bool = True


@dataclass(frozen=True)
class NotRouted:
    """Why a mail has no seat, and the answer to send, if any: (kind of error for the rate
    limit, recipient, recipient name, text)."""

    outcome: str
    detail: str
    reply: tuple[str, str, str, str] | None = None


def route_reply(
    session: Session, settings: Settings, service: GameService, incoming: Incoming
) -> Route | NotRouted:
    """The game and seat ``incoming`` is for, read in ``session``."""
    token = find_token(incoming.recipients, domain=settings.mail.reply_domain)
    # One read: the seat, its reply-key version and its invitation together.
    if token is not None:
        try:
            claimed = peek(token)
            game_id = str(claimed.game_id)
            routed = c.seat_with_key(session, game_id, claimed.seat, incoming.sender)
            signed = verify(settings.secret_key, token, routed.key_version)
        except BadToken as error:
            return _unrouted(service, incoming, "bad_address", str(error))
        seen: int | None = signed.version_seen
        seat_no = signed.seat
    else:
        found = _by_thread(session, incoming)
        if found is None:
            return _unrouted(
                service,
                incoming,
                "unrouted",
                "We could not tell which game this mail is for: please reply to the latest "
                "mail of your game (keeping its reply address).",
            )
        game_id, seat_no, seen, sent_at = found
        # The mail answered went out before the seat's links were replaced (``pbem
        # rotate-token``, ``pbem mail rotate-key``): its Message-ID may have leaked with them.
        rotated = session.get(SeatReplyKey, (game_id, seat_no))
        if rotated is not None and rotated.rotated_at > sent_at:
            return _unrouted(
                service,
                incoming,
                "bad_address",
                "The mail you answered was sent before this seat's links and reply addresses "
                "were replaced, so replies to it are refused: reply to the latest mail of your "
                "game.",
            )
        routed = c.seat_with_key(session, game_id, seat_no, incoming.sender)
    seat = routed.seat
    if seat is None:
        return NotRouted("ignored", f"no seat {seat_no} in game {game_id}")
    return Route(
        game_id, seat_no, seen, seat.email, seat.name, routed.invitation_waiting,
        routed.sender_failing,
    )  # fmt: skip


def _by_thread(session: Session, incoming: Incoming) -> tuple[str, int, int, str] | None:
    """Fallback for clients that drop the +token: the mail the reply answers (its game,
    seat, version and when it was written)."""
    ids = [*reversed(incoming.in_reply_to), *reversed(incoming.references)]
    for message_id in ids:
        row = session.exec(select(OutboxMail).where(OutboxMail.message_id == message_id)).first()
        if row is not None and row.game_id is not None and row.seat is not None:
            return row.game_id, row.seat, row.version or 0, row.created_at
    return None


def _unrouted(service: GameService, incoming: Incoming, kind: str, why: str) -> NotRouted:
    # Answer only addresses that play somewhere: a stranger (or a forged sender) gets
    # nothing, so we never become a source of backscatter.
    if not (incoming.sender and service.plays_somewhere(incoming.sender)):
        return NotRouted("refused", why)
    text = c.render(
        "error",
        marker=c.MARKER,
        title="pbem",
        headline=replies.NOT_APPLIED,
        problem=why,
        quoted=replies.quote(incoming.commands),
        fresh="",
        can_type="",
        rules="",
        receipt="",
    )
    return NotRouted("refused", why, (kind, incoming.sender, incoming.sender_name, text))
