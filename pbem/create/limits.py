"""Limits on game creations, so that nobody can use the service to mail people at will
(docs/mail.md, "Invitations"; the ``[invitations]`` settings). In any 24 hours:

- a requester (a client address, or an organiser key) may mail ``per_requester_per_day``
  addresses through its creations: every seat with an address counts, invited or not, since
  each one is mailed (a player who has played here gets the game's first mail at once);
- an address may be named in ``games_per_address_per_day`` games and invited to
  ``per_address_per_day``, from everyone together. A creation proves no address, so the
  service cannot tell which named player asked for a game: every creation counts against
  every address it names.

Addresses are compared as ``limit_key`` writes them: in lower case, without a sub-address
(``vic+1@`` is ``vic@``), and for Gmail without dots in the local part (Gmail delivers
``v.i.c@gmail.com`` to ``vic@gmail.com``); other domains keep their dots, since for them a
dot may make another mailbox.

The check and the record of a creation are one transaction, serialised with every other
creation that shares a requester or an address: SQLite's write transactions are serialised
already (``BEGIN IMMEDIATE``); on PostgreSQL each creation first takes a transaction-level
advisory lock per key (``pg_advisory_xact_lock``), in one order, so two creations counted at
the same moment cannot both fit under a limit that only one of them fits under. Under READ
COMMITTED each statement reads what was committed before it began, so the counting that
follows the lock sees every creation that held it before.

The operator's own creations (the command line) are recorded but not limited.

Taking an open seat (``pbem.create.open_seats``) counts as a creation naming the joiner's
address, against the joiner's client address (its seat counts in ``creation_addresses``),
and besides, in any hour: ``joins_per_requester_per_hour`` seats taken from one client
address, ``joins_per_address_per_hour`` seats taken by one address (``seat_joins``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import func, text
from sqlmodel import Session, col, select

from pbem.app.config import Settings
from pbem.core.errors import TooManyRequests
from pbem.core.models import CreationAddress, SeatJoin
from pbem.core.time_source import format_time
from pbem.create.invitations import CLI

#: The window of the limits.
DAY = timedelta(days=1)
#: Domains that deliver a local part with or without its dots to the same mailbox.
_DOTLESS_DOMAINS = {"gmail.com": "gmail.com", "googlemail.com": "gmail.com"}


def limit_key(address: str) -> str:
    """The address as the limits count it: lower case, no ``+tag``, Gmail without dots."""
    local, _, domain = address.strip().lower().rpartition("@")
    # A local part that begins with "+" has no tag to strip: it is all the mailbox has.
    local = local.split("+", 1)[0] or local
    if domain in _DOTLESS_DOMAINS:
        domain = _DOTLESS_DOMAINS[domain]
        local = local.replace(".", "") or local
    return f"{local}@{domain}"


def _lock_id(key: str) -> int:
    """A signed 64-bit id for ``pg_advisory_xact_lock``; other locks of the service (if any)
    use other words before the key, so a collision is a matter of 2**-64."""
    digest = hashlib.sha256(f"pbem creation limit\0{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def serialise(session: Session, requester: str, addresses: Sequence[str]) -> None:
    """Make this creation wait for every other one that counts against the same requester or
    the same address, until this transaction ends (PostgreSQL; SQLite serialises every write
    transaction already). Locks are taken in one order, so two creations never wait for each
    other."""
    bind = session.get_bind()
    if bind.dialect.name != "postgresql":
        return
    keys = {f"requester\0{requester}"} | {f"address\0{limit_key(a)}" for a in addresses}
    for lock in sorted(_lock_id(k) for k in keys):
        session.execute(text("SELECT pg_advisory_xact_lock(:lock)"), {"lock": lock})


def check(
    session: Session,
    settings: Settings,
    now: datetime,
    requester: str,
    emails: Sequence[str | None],
    invited: Sequence[int],
) -> None:
    """TooManyRequests when this creation (its seats' ``emails``, the seats ``invited``) would
    pass a limit of the last 24 hours; run after ``serialise``, before anything is written."""
    addressed = [(seat, email) for seat, email in enumerate(emails) if email]
    if not addressed or requester == CLI:
        # The operator's own commands: the limits keep strangers from using the service
        # to mail people; the operator runs the mail server.
        return
    limits = settings.invitations
    since = format_time(now - DAY)
    if limits.per_requester_per_day > 0:
        sent = int(
            session.exec(
                select(func.count())
                .select_from(CreationAddress)
                .where(
                    CreationAddress.requester == requester,
                    col(CreationAddress.created_at) > since,
                )
            ).one()
        )
        if sent + len(addressed) > limits.per_requester_per_day:
            raise TooManyRequests(
                f"This game would mail {len(addressed)} player(s), but your games have mailed "
                f"{sent} in the last 24 hours and the limit is {limits.per_requester_per_day}: "
                "try again later (every player with an e-mail address counts, whether they "
                "have played here before or not; players without one do not)."
            )
    keys: dict[str, list[int]] = {}
    for seat, email in addressed:
        keys.setdefault(limit_key(email), []).append(seat)
    for key in sorted(keys):
        named_here = keys[key]
        shown = next(e for s, e in addressed if s == named_here[0])
        recent = select(func.count(func.distinct(CreationAddress.game_id))).where(
            CreationAddress.address_key == key, col(CreationAddress.created_at) > since
        )
        if limits.games_per_address_per_day > 0:
            games = int(session.exec(recent).one())
            if games + 1 > limits.games_per_address_per_day:
                raise TooManyRequests(
                    f"{shown} has been named in {games} new game(s) in the last 24 hours, the "
                    f"most one address may be ({limits.games_per_address_per_day}, counting "
                    "the address without case or +tag): try again tomorrow."
                )
        if limits.per_address_per_day > 0 and any(seat in invited for seat in named_here):
            invitations = int(session.exec(recent.where(col(CreationAddress.invited))).one())
            if invitations + 1 > limits.per_address_per_day:
                raise TooManyRequests(
                    f"{shown} has been invited to {invitations} game(s) in the last 24 hours, "
                    f"the most it may be ({limits.per_address_per_day}, counting the address "
                    "without case or +tag) until its player accepts one: try again tomorrow, "
                    "or ask them to accept an invitation first."
                )


def record(
    session: Session,
    game_id: str,
    requester: str,
    emails: Sequence[str | None],
    invited: Sequence[int],
    created_at: str,
) -> None:
    """Count this creation's mails against its requester and its addresses."""
    for seat, email in enumerate(emails):
        if email:
            session.add(
                CreationAddress(
                    game_id=game_id,
                    seat=seat,
                    requester=requester,
                    address_key=limit_key(email),
                    invited=seat in invited,
                    created_at=created_at,
                )
            )
    session.flush()


# -- joining open seats ------------------------------------------------------------------------

#: The window of the limits on joins.
HOUR = timedelta(hours=1)


def check_join(
    session: Session,
    settings: Settings,
    now: datetime,
    requester: str,
    email: str,
    invited: bool,
) -> None:
    """TooManyRequests when taking an open seat with ``email`` would pass a limit: the hourly
    limits on joins (per requester, per address), then those of a creation naming that one
    address (a join mails it as a creation would). Run after ``serialise``."""
    limits = settings.invitations
    since = format_time(now - HOUR)
    if requester != CLI and limits.joins_per_requester_per_hour > 0:
        joined = int(
            session.exec(
                select(func.count())
                .select_from(SeatJoin)
                .where(SeatJoin.requester == requester, col(SeatJoin.joined_at) > since)
            ).one()
        )
        if joined + 1 > limits.joins_per_requester_per_hour:
            raise TooManyRequests(
                f"{joined} seats have been taken from your address in the last hour, the most "
                f"allowed ({limits.joins_per_requester_per_hour}): try again later."
            )
    if limits.joins_per_address_per_hour > 0:
        joined = int(
            session.exec(
                select(func.count())
                .select_from(SeatJoin)
                .where(SeatJoin.address_key == limit_key(email), col(SeatJoin.joined_at) > since)
            ).one()
        )
        if joined + 1 > limits.joins_per_address_per_hour:
            raise TooManyRequests(
                f"{email} has taken {joined} open seats in the last hour, the most one address "
                f"may ({limits.joins_per_address_per_hour}): try again later."
            )
    check(session, settings, now, requester, [email], (0,) if invited else ())


def record_join(
    session: Session,
    game_id: str,
    seat: int,
    requester: str,
    email: str,
    invited: bool,
    joined_at: str,
) -> None:
    """Count this join against its requester and its address (hourly and daily)."""
    key = limit_key(email)
    session.add(
        SeatJoin(
            game_id=game_id, seat=seat, requester=requester, address_key=key, joined_at=joined_at
        )
    )
    session.add(
        CreationAddress(
            game_id=game_id,
            seat=seat,
            requester=requester,
            address_key=key,
            invited=invited,
            created_at=joined_at,
        )
    )
    session.flush()
