"""Who may hand a seat to a substitute, and when (docs/mail.md, "Substitutes").

- The game's administrator may propose a newcomer for any seat still played, at any time
  while the game runs; that needs no one's consent.
- A seat may propose a newcomer for another seat only once that seat has missed
  ``substitute_after_missed`` deadlines **in a row** (the game's time control; 2 unless it
  says otherwise; 0 leaves it to the administrator). A missed deadline is a
  ``DeadlineMissed`` of the seat (the sweep played its standing order or default move, or
  the game waited for the administrator); the count starts again whenever the seat acts
  itself, and at a hand-over. Decision (the issue was silent): in a row, so that a player who
  missed two deadlines months apart is not replaced for it.
- Every other seat still playing (not the seat being replaced, which cannot block it) must
  agree; the proposer agrees by proposing; one refusal ends the proposal.
- One proposal waits at a time in a game; the administrator's replaces one that waits.
- The seat changes hands when the newcomer accepts (``pbem.handover.commands``); until then
  the old player still plays it.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import Session, col, select

from pbem.clock import events as ce
from pbem.clock.display import when_text
from pbem.clock.time_control import TimeControl
from pbem.core import events as ev
from pbem.core.errors import BadRequest, Conflict, Forbidden, TooManyRequests
from pbem.core.header_text import clean_address
from pbem.core.models import SeatHandover
from pbem.core.naming import Names
from pbem.core.repository import SeatInfo
from pbem.core.time_source import format_time, parse_time
from pbem.create.player_names import check_player_name, same_name
from pbem.handover import events as handover_events
from pbem.mail.outbound.headers import check_display_name

#: the statuses of a proposal still waiting: for the seats' answers, or for the newcomer
WAITING = ("open", "agreed")
#: the longest newcomer's name (the seats table's column holds 200)
MAX_NAME = 100
#: Substitute proposals a game may make in any 24 hours (the administrator's and the seats'
#: together): each may mail an invitation to an address typed by whoever proposes it.
PROPOSALS_PER_DAY = 3


@dataclass(frozen=True)
class Newcomer:
    name: str
    email: str


def check_newcomer(
    name: str, email: str, seats: Sequence[SeatInfo], seat: int, names: Names
) -> Newcomer:
    """The newcomer's name and address, checked; BadRequest saying what to change."""
    name = " ".join(str(name).split())
    email = str(email).strip()
    if not name:
        raise BadRequest("Name the newcomer: 'substitute Red with Dan <dan@example.org>'.")
    if len(name) > MAX_NAME:
        raise BadRequest(f"The newcomer's name is longer than {MAX_NAME} characters.")
    if any(unicodedata.category(c) == "Cc" for c in name):
        # A bell or a terminal's escape would reach the mails and the operator's log as sent.
        raise BadRequest("The newcomer's name holds a control character: write it as text.")
    try:
        check_display_name(name)  # as the mail layer writes it in the invitation's To:
        check_player_name(name)
    except ValueError as e:
        raise BadRequest(f"The newcomer's name {e}.") from None
    check_name_free(name, seats, seat, names)
    try:
        email = clean_address(email)
    except ValueError as e:
        raise BadRequest(f"The newcomer's address: {e}.") from None
    for other in seats:
        if other.email and other.email.lower() == email.lower():
            if other.seat == seat:
                raise BadRequest("That is the address of the seat's own player.")
            # One person playing two seats would see both seats' secrets.
            raise BadRequest("That address already plays another seat of this game.")
    return Newcomer(name, email)


def check_name_free(name: str, seats: Sequence[SeatInfo], seat: int, names: Names) -> None:
    """BadRequest when ``name`` reads as another player's name or as a seat's colour: the
    mails and the table talk ("to Bob: …") name players by both, so a twin would pass for
    the other (or make "to Bob:" fit two seats). The seat's own old name is free."""
    for other in seats:
        if other.seat != seat and same_name(other.name, name):
            raise BadRequest(
                f"{other.name!r} already plays in this game: choose another name for the "
                "newcomer, so that the others can tell them apart."
            )
    for label in names.labels:
        if label and same_name(label, name):
            raise BadRequest(
                f"{label!r} is a seat's colour in this game: choose another name for the "
                "newcomer, so that the others can tell them apart."
            )


def missed_in_a_row(events: Sequence[ev.StoredEvent], seat: int) -> int:
    """The deadlines ``seat`` missed since it last acted itself (or was handed over)."""
    count = 0
    for e in events:
        p = e.payload if e.type in _COUNTED else None
        if isinstance(p, ce.DeadlineMissed) and p.seat == seat:
            count += 1
        elif isinstance(p, ev.ActionApplied) and p.seat == seat:
            if p.channel not in ("deadline", "auto"):
                count = 0
        elif isinstance(p, handover_events.SeatHandedOver) and p.seat == seat:
            count = 0
    return count


_COUNTED = frozenset({ce.DEADLINE_MISSED, ev.ACTION_APPLIED, handover_events.SEAT_HANDED_OVER})


def time_control_of(events: Sequence[ev.StoredEvent]) -> TimeControl:
    """The game's time control as its log last set it."""
    found = TimeControl()
    for e in events:
        if e.type == ce.TIME_CONTROL_SET and isinstance(p := e.payload, ce.TimeControlSet):
            found = TimeControl.from_json(p.time_control)
    return found


def check_seat_may_propose(
    events: Sequence[ev.StoredEvent], seats: Sequence[SeatInfo], by: int, seat: int, names: Names
) -> None:
    """Forbidden unless ``by`` may propose a newcomer for ``seat`` (the module's rules)."""
    if by == seat:
        raise Forbidden(
            "You cannot propose a substitute for your own seat: ask the game's administrator, "
            "or resign."
        )
    if not any(s.seat not in (by, seat) and not s.resigned for s in seats):
        # Consent is the other players': with none but the proposer, they would choose their
        # own opponent (a second address of theirs, say) and play both seats.
        raise Forbidden(
            "No other player is left to agree to a substitute: only the game's administrator "
            "can hand this seat over."
        )
    needed = time_control_of(events).substitute_after_missed
    if needed <= 0:
        raise Forbidden(
            "In this game only the administrator can hand a seat to a substitute (its time "
            "control sets substitute_after_missed to 0)."
        )
    missed = missed_in_a_row(events, seat)
    if missed < needed:
        raise Forbidden(
            f"{names.of(seat)} has missed {missed} deadline{'s' if missed != 1 else ''} in a "
            f"row; the other players can propose a substitute after {needed}. The game's "
            "administrator can hand the seat over at any time."
        )


def check_target(seats: Sequence[SeatInfo], seat: int, names: Names) -> None:
    if not 0 <= seat < len(seats):
        raise BadRequest(f"There is no seat {seat} in this game.")
    if seats[seat].resigned:
        raise Conflict(
            f"{names.of(seat)} has resigned: its turns are played automatically and it cannot "
            "be handed to a substitute."
        )


def deciders(row: SeatHandover, seats: Sequence[SeatInfo]) -> frozenset[int]:
    """The seats whose consent the proposal needs: every seat still playing but its own."""
    return frozenset(s.seat for s in seats if not s.resigned and s.seat != row.seat)


def awaited(row: SeatHandover, seats: Sequence[SeatInfo]) -> frozenset[int]:
    """The deciders that have not agreed yet (empty: agreed)."""
    return deciders(row, seats) - frozenset(agreed_by(row))


def agreed_by(row: SeatHandover) -> list[int]:
    found: list[int] = json.loads(row.agreed_by)
    return found


def waiting_proposal(session: Session, game_id: str) -> SeatHandover | None:
    """The game's proposal still waiting (for answers, or for the newcomer), if any."""
    return session.exec(
        select(SeatHandover)
        .where(SeatHandover.game_id == game_id, col(SeatHandover.status).in_(WAITING))
        .order_by(col(SeatHandover.proposal).desc())
    ).first()


def handed_over(session: Session, game_id: str) -> list[SeatHandover]:
    """The game's hand-overs done, oldest first."""
    return list(
        session.exec(
            select(SeatHandover)
            .where(SeatHandover.game_id == game_id, SeatHandover.status == "handed_over")
            .order_by(col(SeatHandover.proposal))
        ).all()
    )


# -- the mail line ---------------------------------------------------------------------------

#: ``substitute Red with Dan <dan@example.org>`` (the seat by colour, player's name or number)
_PROPOSAL = re.compile(
    r"^substitute\s+(?P<seat>.+?)\s+with\s+(?P<name>[^<>]+?)\s*<(?P<email>[^<>\s]+)>\s*\.?$",
    re.IGNORECASE,
)
PROPOSAL_FORM = "substitute Red with Dan <dan@example.org>"


def read_proposal(line: str, names: Names) -> tuple[int, str, str]:
    """The seat, newcomer's name and address a mail line proposes; BadRequest otherwise."""
    match = _PROPOSAL.match(" ".join(line.split()))
    if match is None:
        raise BadRequest(
            f"Write a proposal as '{PROPOSAL_FORM}': the seat (its colour or player), "
            "'with', the newcomer's name and address in angle brackets."
        )
    return seat_named(match.group("seat"), names), match.group("name"), match.group("email")


def seat_named(said: str, names: Names) -> int:
    """The seat ``said`` names: its colour ("Red"), its player ("Ann"), both ("Ann (Red)")
    or its number; BadRequest listing the seats otherwise."""
    wanted = " ".join(said.split()).lower()
    for seat in range(len(names.people)):
        label = names.label(seat)
        known = {names.of(seat).lower(), names.people[seat].lower(), str(seat)}
        if label:
            known.add(label.lower())
        if wanted in known:
            return seat
    raise BadRequest(
        f"{said[:40]!r} is not a seat of this game; the seats are "
        f"{names.many(range(len(names.people)))}."
    )


def check_proposals_today(events: Sequence[ev.StoredEvent], now: datetime) -> None:
    """TooManyRequests when the game made ``PROPOSALS_PER_DAY`` proposals in the last 24
    hours: a proposal's invitation goes to a typed address, so the admin token (or a seat)
    must not mail strangers without end."""
    since = format_time(now - timedelta(hours=24))
    recent = [
        e.recorded_at
        for e in events
        if e.type == handover_events.SUBSTITUTE_PROPOSED and e.recorded_at > since
    ]
    if len(recent) >= PROPOSALS_PER_DAY:
        frees = parse_time(sorted(recent)[-PROPOSALS_PER_DAY]) + timedelta(hours=24)
        raise TooManyRequests(
            f"This game proposed {PROPOSALS_PER_DAY} substitutes in the last 24 hours, as "
            f"many as a game may (each mails an invitation): the next may be proposed from "
            f"{when_text(frees)}."
        )
