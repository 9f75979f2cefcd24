"""The rematch commands: propose a rematch of a finished game, agree to it, decline it; and,
once every seat agreed, start it (create the new game through the ordinary creation command
and name it in the finished game's log).

Who may: only a seat of the finished game, each for itself (the doors authenticate the seat:
its bearer token, its page session, its reply address). Nothing here is open while the game
is being played.

Exactly once: the agreement that completes a proposal is committed first (the proposal is
then ``agreed``: no decline or second proposal can follow); the creation carries an
idempotency key made of the finished game and the proposal, so two starts (two doors at the
same moment, or a start retried after a crash) create one game; and ``RematchStarted`` is
appended under the finished game's lock only while the proposal has none. A start that
failed (the creation refused, say by the limits on creations) is retried by the next
``rematch`` or agreement of any seat.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from pbem.clock import events as clock_events
from pbem.core import events as ev
from pbem.core import store
from pbem.core.db import Database
from pbem.core.errors import BadRequest, Conflict, Forbidden, GameNotFound, TooManyRequests
from pbem.core.models import Game, Seat
from pbem.core.naming import names_for
from pbem.core.unit_of_work import Transactions, UnitOfWork
from pbem.create.creation import GameCreation
from pbem.rematch import events as re
from pbem.rematch import projection as rp
from pbem.rematch.models import RematchOrigin, RematchProposal
from pbem.seats import credentials


@dataclass(frozen=True)
class RematchResult:
    """What a rematch command did."""

    game_id: str
    #: proposed | agreed (the seat's agreement; others are awaited) | declined | started
    #: | already (the seat had agreed already: nothing changed)
    status: str
    proposal: int
    #: the new game, once every seat agreed
    new_game_id: str | None = None


@dataclass(frozen=True)
class RematchStatus:
    """A finished game's latest rematch proposal, as pages and the API show it."""

    proposal: int
    seat: int
    seating: str
    #: open | declined | agreed | started
    status: str
    agreed: tuple[int, ...]
    waiting: tuple[int, ...]
    declined_by: int | None
    new_game_id: str | None


def new_order(seats: int, seating: str) -> list[int]:
    """The old seats in the new game's order: ``rotate`` moves every player one seat on (the
    old second seat plays first, the old first seat last); ``same`` keeps them."""
    if seating == re.SAME:
        return list(range(seats))
    return [(i + 1) % seats for i in range(seats)]


def read_seating(word: str | None) -> str | None:
    """A seating as people write it (``rotate``, ``rotated``, ``same``, ``same seats``,
    ``keep``), or None for none given; BadRequest otherwise."""
    if word is None or not word.strip():
        return None
    said = " ".join(word.lower().split())
    if said in ("rotate", "rotated", "rotate seats"):
        return re.ROTATE
    if said in ("same", "same seats", "keep", "keep seats"):
        return re.SAME
    raise BadRequest(
        f"A rematch's seats are 'rotate' (every player moves one seat on, the default) or "
        f"'same seats' (not {said[:30]!r})."
    )


class Rematches:
    """The rematch commands and queries (part of ``pbem.app.service.GameService``)."""

    def __init__(self, db: Database, transactions: Transactions, creation: GameCreation) -> None:
        self.db = db
        self.transactions = transactions
        self.creation = creation

    # -- commands --------------------------------------------------------------------------

    def propose(
        self,
        game_id: str,
        seat: int,
        seating: str | None = None,
        *,
        channel: str,
        channel_ref: str | None = None,
    ) -> RematchResult:
        """Propose a rematch (``seating``: rotate, the default, or same); while a proposal is
        open, proposing joins it (an agreement) unless it asks for other seats (refused:
        decline it first)."""
        if seating is not None and seating not in re.SEATINGS:
            raise BadRequest(f"A rematch's seating is one of {', '.join(re.SEATINGS)}.")
        with self.transactions.on(game_id) as txn:
            _check_seat(txn, seat)
            row = _latest(txn.session, game_id)
            _refuse_started(txn, row)
            if row is not None and row.status in (rp.OPEN, rp.AGREED):
                if seating is not None and seating != row.seating:
                    names = _names(txn)
                    raise Conflict(
                        f"{names.of(row.seat)} proposed a rematch with "
                        f"{_seating_words(row.seating)}: agree to it, or decline it and "
                        "propose your own."
                    )
                result = _agree(txn, row, seat, channel, channel_ref)
            else:
                _check_proposals_left(txn.session, game_id)
                proposed = re.RematchProposed(
                    seat=seat,
                    seating=seating or re.ROTATE,
                    channel=channel,
                    channel_ref=channel_ref,
                )
                stored = txn.append([proposed], txn.state, lapse=False)
                proposal = stored[-1].version
                row = txn.session.get(RematchProposal, (game_id, proposal))
                assert row is not None
                result = RematchResult(game_id, "proposed", proposal)
            everyone = row.status == rp.AGREED
        if everyone:
            return self._start(game_id, result.proposal, channel)
        return result

    def agree(
        self,
        game_id: str,
        seat: int,
        proposal: int | None = None,
        *,
        channel: str,
        channel_ref: str | None = None,
    ) -> RematchResult:
        """Agree to the open proposal (``proposal``: its number, when the door names it)."""
        with self.transactions.on(game_id) as txn:
            row = _open_proposal(txn, game_id, seat, proposal)
            result = _agree(txn, row, seat, channel, channel_ref)
            everyone = row.status == rp.AGREED
        if everyone:
            return self._start(game_id, result.proposal, channel)
        return result

    def decline(
        self,
        game_id: str,
        seat: int,
        proposal: int | None = None,
        *,
        channel: str,
        channel_ref: str | None = None,
    ) -> RematchResult:
        """Decline the open proposal: it ends, and every seat is told. A proposal every seat
        agreed to can no longer be declined (its game is being created)."""
        with self.transactions.on(game_id) as txn:
            row = _open_proposal(txn, game_id, seat, proposal)
            if row.status == rp.AGREED:
                raise Conflict("Every player agreed to this rematch: it is being started.")
            declined = re.RematchDeclined(
                proposal=row.proposal, seat=seat, channel=channel, channel_ref=channel_ref
            )
            txn.append([declined], txn.state, lapse=False)
            return RematchResult(game_id, "declined", row.proposal)

    def _start(self, game_id: str, proposal: int, channel: str) -> RematchResult:
        """Create the new game of a proposal every seat agreed to, once, and name it in the
        finished game's log."""
        with self.db.read() as session:
            plan = _plan(session, game_id, proposal)
        if plan.started is not None:
            return RematchResult(game_id, "started", proposal, plan.started)
        created = self.creation.create_game(
            plan.game,
            plan.config,
            plan.players,
            channel=channel,
            private=plan.private,
            # The same proposal always names the same key: a second start gets this game.
            idempotency_key=f"rematch {game_id} {proposal}",
            vouched_requester=f"rematch:{game_id}",
            time_control=plan.time_control,
            admin_token_hash=plan.admin_token_hash,
            linked=[re.RematchOf(game_id=game_id, proposal=proposal, seating=plan.seating)],
        )
        with self.transactions.on(game_id) as txn:
            row = txn.session.get(RematchProposal, (game_id, proposal))
            assert row is not None
            if row.new_game_id is not None:  # another start recorded it first
                return RematchResult(game_id, "started", proposal, row.new_game_id)
            started = re.RematchStarted(proposal=proposal, game_id=created.id)
            txn.append([started], txn.state, lapse=False)
        return RematchResult(game_id, "started", proposal, created.id)

    # -- queries ---------------------------------------------------------------------------

    def status(self, game_id: str) -> RematchStatus | None:
        """The game's latest rematch proposal, if any."""
        with self.db.read() as session:
            row = _latest(session, game_id)
            if row is None:
                return None
            seats = _seat_numbers(session, game_id)
            agreed = tuple(json.loads(row.agreed_by))
            waiting = tuple(s for s in seats if s not in agreed) if row.status == rp.OPEN else ()
            return RematchStatus(
                row.proposal, row.seat, row.seating, row.status, agreed, waiting,
                row.declined_by, row.new_game_id,
            )  # fmt: skip

    def rematch_of(self, game_id: str) -> str | None:
        """The finished game this game is a rematch of, if it is one."""
        with self.db.read() as session:
            row = session.get(RematchOrigin, game_id)
            return row.of_game_id if row is not None else None


# -- the checks and reads the commands share ----------------------------------------------


#: New rematch proposals a finished game takes: each (and each decline) mails every seat,
#: so proposing and declining in a loop would flood the others' mailboxes.
MAX_PROPOSALS = 3


def _check_proposals_left(session: Session, game_id: str) -> None:
    made = session.exec(
        select(func.count())
        .select_from(RematchProposal)
        .where(col(RematchProposal.game_id) == game_id)
    ).one()
    if made >= MAX_PROPOSALS:
        raise TooManyRequests(
            f"This game had {MAX_PROPOSALS} rematch proposals, as many as a game takes (each "
            "mails every player): create the new game yourself, with the same players."
        )


def _check_seat(txn: UnitOfWork, seat: int) -> None:
    if not 0 <= seat < len(txn.seats):
        raise Forbidden(f"There is no seat {seat} in this game.")
    if not txn.finished:
        raise Conflict(
            "The game is not over: a rematch can be proposed once it has ended (every "
            "player's final mail offers one)."
        )
    if any(not s.email for s in txn.seats):
        # A rematch's players get their links by mail: a seat played only through the API
        # would never learn its new token.
        raise Conflict(
            "A rematch needs every player's e-mail address (its players get their links by "
            "mail), and a seat of this game has none: create the new game yourself."
        )


def _refuse_started(txn: UnitOfWork, row: RematchProposal | None) -> None:
    if row is not None and row.status == rp.STARTED:
        raise Conflict(
            f"This game's rematch has started: game {row.new_game_id}. Propose the next one "
            "when that game ends."
        )


def _open_proposal(
    txn: UnitOfWork, game_id: str, seat: int, proposal: int | None
) -> RematchProposal:
    """The proposal a seat answers (agree or decline): the game's latest, still open."""
    _check_seat(txn, seat)
    row = _latest(txn.session, game_id)
    _refuse_started(txn, row)
    return _open(row, proposal)


def _open(row: RematchProposal | None, proposal: int | None) -> RematchProposal:
    if row is None or row.status not in (rp.OPEN, rp.AGREED):
        raise Conflict(
            "No rematch is proposed in this game: propose one with 'rematch' (by mail) or "
            "the rematch button on the game's page."
        )
    if proposal is not None and proposal != row.proposal:
        raise Conflict(
            f"Rematch proposal {proposal} is not the open one (proposal {row.proposal} is)."
        )
    return row


def _agree(
    txn: UnitOfWork, row: RematchProposal, seat: int, channel: str, channel_ref: str | None
) -> RematchResult:
    if seat in json.loads(row.agreed_by):
        return RematchResult(txn.game_id, "already", row.proposal)
    agreed = re.RematchAgreed(
        proposal=row.proposal, seat=seat, channel=channel, channel_ref=channel_ref
    )
    # The projection updates ``row`` itself (the session's one object for it): its status
    # says whether every seat has agreed now.
    txn.append([agreed], txn.state, lapse=False)
    return RematchResult(txn.game_id, "agreed", row.proposal)


def _latest(session: Session, game_id: str) -> RematchProposal | None:
    return session.exec(
        select(RematchProposal)
        .where(RematchProposal.game_id == game_id)
        .order_by(col(RematchProposal.proposal).desc())
        .limit(1)
    ).first()


def _seat_numbers(session: Session, game_id: str) -> list[int]:
    return list(
        session.exec(
            select(Seat.seat).where(col(Seat.game_id) == game_id).order_by(col(Seat.seat))
        ).all()
    )


def _names(txn: UnitOfWork) -> Any:
    return names_for(txn.rules, txn.state, [s.name for s in txn.seats])


def _seating_words(seating: str) -> str:
    return "everyone keeping their seat" if seating == re.SAME else "the seats rotated by one"


@dataclass(frozen=True)
class _Plan:
    """The new game of a proposal, as the creation command is asked for it."""

    game: str
    config: dict[str, Any]
    players: list[dict[str, Any]]
    private: bool
    seating: str
    time_control: dict[str, Any] | None
    admin_token_hash: str | None
    #: the new game, when the proposal's start was recorded already
    started: str | None


def _plan(session: Session, game_id: str, proposal: int) -> _Plan:
    row = session.get(RematchProposal, (game_id, proposal))
    game = session.get(Game, game_id)
    if row is None or game is None:
        raise GameNotFound(f"There is no rematch proposal {proposal} in game {game_id!r}.")
    log = store.read(session, game_id)
    created = log[0].payload
    assert isinstance(created, ev.GameCreated)
    # The time control in force at the end (the latest one set), without the seats'
    # extensions and pauses, which belonged to that game.
    timing = None
    for e in log:
        if isinstance(e.payload, clock_events.TimeControlSet):
            timing = e.payload.time_control
    seats = {
        s.seat: s for s in session.exec(select(Seat).where(col(Seat.game_id) == game_id)).all()
    }
    players = [
        {"name": seats[old].name, "email": seats[old].email}
        for old in new_order(len(seats), row.seating)
    ]
    # The configuration as created (variants, expansions), under the rules' current
    # version: ``create_game`` takes the registry's current one (docs/mail.md, "Rematch").
    return _Plan(
        game=created.game,
        config=dict(created.config),
        players=players,
        private=created.private,
        seating=row.seating,
        time_control=timing,
        admin_token_hash=credentials.admin_token_hash(session, game_id),
        started=row.new_game_id,
    )
