"""The commands of substitutes (``pbem.handover.rules`` says who may, and when): a seat
proposes a newcomer for a seat that missed its deadlines, or the administrator does for
any seat; the other seats agree or refuse; the newcomer accepts by the link in their
invitation, and the seat changes hands.

At the hand-over, in the one transaction that appends ``SeatHandedOver``: the seat's bearer
token is replaced (the old one is refused as replaced) and its reply key rotated, which
revokes every page link, invitation link and reply address handed out for the seat; the
newcomer's first mail carries the new ones. The old player gets one last mail saying so.

``Handovers`` is composed into the game service (``GameService``); the mail door
(``pbem.handover.replies``), the API and the pages call it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pbem.app.config import Settings
from pbem.core.db import Database
from pbem.core.errors import Conflict, Forbidden
from pbem.core.models import SeatHandover
from pbem.core.naming import Names, names_for
from pbem.core.repository import game_or_404, seat_infos, seats_of
from pbem.core.time_source import Clock, format_time
from pbem.core.unit_of_work import Transactions, UnitOfWork
from pbem.create.invitations import is_waiting
from pbem.handover import events as he
from pbem.handover import rules, texts
from pbem.mail.outbound import compose as c
from pbem.mail.outbound.address import HANDOVER, BadToken, make_token, peek, verify
from pbem.play.command_checks import check_admin, check_can_act
from pbem.seats.credentials import replace_seat_token


@dataclass(frozen=True)
class HandoverResult:
    game_id: str
    #: the game's version after the command
    version: int
    proposal: int
    seat: int
    #: open (the others decide) | agreed (the newcomer is invited) | refused | handed_over
    status: str

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "proposal": self.proposal,
            "seat": self.seat,
            "status": self.status,
        }


def _names(txn: UnitOfWork) -> Names:
    return names_for(txn.rules, txn.state, [s.name for s in txn.seats])


def _check_running(txn: UnitOfWork) -> None:
    if txn.finished:
        raise Conflict(f"The game is over (it finished at version {txn.version}).")


class Handovers:
    """Proposing, deciding and accepting a substitute, on the game service's transactions."""

    def __init__(
        self, db: Database, settings: Settings, clock: Clock, transactions: Transactions
    ) -> None:
        self.db = db
        self.settings = settings
        self.clock = clock
        self.transactions = transactions

    # -- proposing --------------------------------------------------------------------------

    def propose(
        self,
        game_id: str,
        by: int,
        seat: int,
        name: str,
        email: str,
        *,
        channel: str,
        channel_ref: str | None = None,
    ) -> HandoverResult:
        """Seat ``by`` proposes a newcomer for ``seat``, which missed its deadlines."""
        with self.transactions.on(game_id) as txn:
            check_can_act(txn, by)
            infos, names = txn.seat_infos(), _names(txn)
            rules.check_target(infos, seat, names)
            rules.check_seat_may_propose(txn.read(), infos, by, seat, names)
            if rules.waiting_proposal(txn.session, game_id) is not None:
                raise Conflict(
                    "Another substitute proposal is waiting; it must be decided (or its "
                    "newcomer accept) first."
                )
            newcomer = rules.check_newcomer(name, email, infos, seat, names)
            rules.check_proposals_today(txn.read(), self.clock.now())
            return self._proposed(txn, seat, by, newcomer, channel, channel_ref)

    def admin_propose(
        self,
        game_id: str,
        admin_token: str | None,
        seat: int,
        name: str,
        email: str,
        *,
        channel: str,
    ) -> HandoverResult:
        """The administrator hands ``seat`` to a newcomer (no consent needed; it replaces a
        proposal still waiting)."""
        with self.transactions.on(game_id) as txn:
            check_admin(txn, admin_token)
            _check_running(txn)
            infos, names = txn.seat_infos(), _names(txn)
            rules.check_target(infos, seat, names)
            newcomer = rules.check_newcomer(name, email, infos, seat, names)
            rules.check_proposals_today(txn.read(), self.clock.now())
            return self._proposed(txn, seat, None, newcomer, channel, None)

    def _proposed(
        self,
        txn: UnitOfWork,
        seat: int,
        by: int | None,
        newcomer: rules.Newcomer,
        channel: str,
        channel_ref: str | None,
    ) -> HandoverResult:
        event = he.SubstituteProposed(
            seat=seat,
            by_seat=by,
            name=newcomer.name,
            email=newcomer.email,
            channel=channel,
            channel_ref=channel_ref,
        )
        stored = txn.append([event], txn.state, lapse=False)
        return self._settled(txn, stored[-1].version, stored[-1].version)

    def _settled(self, txn: UnitOfWork, proposal: int, version: int) -> HandoverResult:
        """The proposal after an append; agreed: its newcomer's invitation goes out with it."""
        row = txn.session.get(SeatHandover, (txn.game_id, proposal))
        assert row is not None, "the projection records every proposal"
        if row.status == "agreed":
            txn.session.add(self._invitation(txn, row))
        return HandoverResult(txn.game_id, version, proposal, row.seat, row.status)

    def _invitation(self, txn: UnitOfWork, row: SeatHandover) -> Any:
        names = _names(txn)
        keys = c.key_version(txn.session, txn.game_id, row.seat)
        token = make_token(
            self.settings.secret_key, txn.game_id, row.seat, keys, row.proposal, purpose=HANDOVER
        )
        base = self.settings.base_url.rstrip("/")
        others = [s for s in range(len(txn.seats)) if s != row.seat]
        text = texts.INVITATION.substitute(
            title=f"{txn.rules.name.title()}, game {txn.game_id}",
            name=row.new_name,
            game=txn.rules.name.title(),
            service=base,
            seat=names.label(row.seat) or f"seat {row.seat}",
            old=txn.seats[row.seat].name,
            players=names.many(others),
            accept_link=f"{base}/handover/{txn.game_id}?link={token}",
            rules_link=c.rules_link(self.settings, txn.rules),
            receipt=c.receipt(txn.version, txn.head_hash),
        )
        return c.outbox_mail(
            self.settings,
            kind="substitute",
            game_id=txn.game_id,
            seat=None,
            to_name=row.new_name,
            to_address=row.new_email,
            subject=c.subject_for(txn.rules, txn.game_id),
            text=text,
            now=self.clock.now(),
            version=txn.version,
            head_hash=txn.head_hash,
        )

    # -- deciding ---------------------------------------------------------------------------

    def decide(
        self,
        game_id: str,
        seat: int,
        agree: bool,
        *,
        proposal: int | None = None,
        channel: str,
        channel_ref: str | None = None,
    ) -> HandoverResult:
        """``seat`` agrees to or refuses the proposal waiting (``proposal``: the one the
        page showed; another is refused as stale)."""
        with self.transactions.on(game_id) as txn:
            check_can_act(txn, seat)
            row = rules.waiting_proposal(txn.session, game_id)
            if row is None or row.status != "open" or (proposal not in (None, row.proposal)):
                raise Conflict("There is no substitute proposal waiting for your answer.")
            if seat == row.seat:
                raise Forbidden(
                    "The seat a substitute is proposed for does not decide on it: the other "
                    "players do."
                )
            if seat not in rules.awaited(row, txn.seat_infos()):
                raise Conflict("You have already agreed to this substitute.")
            event = he.SubstituteDecided(
                proposal=row.proposal,
                seat=seat,
                agree=agree,
                channel=channel,
                channel_ref=channel_ref,
            )
            stored = txn.append([event], txn.state, lapse=False)
            return self._settled(txn, row.proposal, stored[-1].version)

    # -- the newcomer -----------------------------------------------------------------------

    def _seat_and_proposal(self, game_id: str, link: str) -> tuple[int, int]:
        """The (seat, proposal) a newcomer's link names, checked against the seat's key."""
        with self.db.read() as session:
            game_or_404(session, game_id)
            try:
                claimed = peek(link)
                if claimed.game_id != game_id:
                    raise BadToken("the link belongs to another game")
                signed = verify(
                    self.settings.secret_key,
                    link,
                    c.key_version(session, game_id, claimed.seat),
                    purpose=HANDOVER,
                )
            except BadToken as error:
                raise Forbidden(
                    f"This link to take over a seat is not valid: {error}. Open the link in "
                    "the mail as it came; a link used once, or replaced by a newer proposal, "
                    "no longer works."
                ) from None
            if signed.version_seen is None:
                raise Forbidden("This link to take over a seat is not valid.")
            return signed.seat, signed.version_seen

    def invitation(self, game_id: str, link: str) -> dict[str, Any]:
        """What the newcomer's page shows before they accept; Forbidden for a bad link."""
        seat, proposal = self._seat_and_proposal(game_id, link)
        with self.db.read() as session:
            row = session.get(SeatHandover, (game_id, proposal))
            if row is None or row.seat != seat or row.status != "agreed":
                raise Forbidden(_NO_LONGER)
            return {
                "seat": seat,
                "proposal": proposal,
                "new_name": row.new_name,
                "old_name": seats_of(session, game_id)[seat].name,
            }

    def accept(self, game_id: str, link: str, *, channel: str) -> HandoverResult:
        """The newcomer accepts: the seat changes hands (``SeatHandedOver``) and its old
        credentials are revoked, in one transaction."""
        seat, proposal = self._seat_and_proposal(game_id, link)
        with self.transactions.on(game_id) as txn:
            _check_running(txn)
            row = txn.session.get(SeatHandover, (game_id, proposal))
            if row is None or row.seat != seat or row.status != "agreed":
                raise Forbidden(_NO_LONGER)
            if txn.seats[seat].resigned:
                raise Conflict("The seat has resigned since: it can no longer be taken over.")
            old = txn.seat_infos()[seat]
            names = _names(txn)
            # An address that never accepted its invitation gets nothing but it (DESIGN.md).
            farewell = bool(old.email) and not is_waiting(txn.session, game_id, seat)
            now = self.clock.now()
            # Revoked before the append: the newcomer's first mail is signed with the new key.
            replace_seat_token(txn.session, game_id, seat, format_time(now))
            c.rotate_key(txn.session, game_id, seat, now)
            event = he.SeatHandedOver(
                proposal=proposal,
                seat=seat,
                old_name=old.name,
                old_email=old.email,
                new_name=row.new_name,
                new_email=row.new_email,
                from_version=txn.version + 1,
                by="administrator" if row.by_seat is None else "consent",
                channel=channel,
            )
            stored = txn.append([event], txn.state, lapse=False)
            if farewell and old.email:
                txn.session.add(self._farewell(txn, old.name, old.email, seat, names, event))
            return HandoverResult(game_id, stored[-1].version, proposal, seat, "handed_over")

    def _farewell(
        self, txn: UnitOfWork, name: str, email: str, seat: int, names: Names, event: Any
    ) -> Any:
        base = self.settings.base_url.rstrip("/")
        text = texts.REPLACED.substitute(
            title=f"{txn.rules.name.title()}, game {txn.game_id}",
            name=name,
            seat=names.label(seat) or f"seat {seat}",
            new=event.new_name,
            version=event.from_version,
            by="by the administrator" if event.by == "administrator" else "the players agreed",
            public=f"{base}/games/{txn.game_id}",
        )
        return c.outbox_mail(
            self.settings,
            kind="replaced",
            game_id=txn.game_id,
            seat=None,
            to_name=name,
            to_address=email,
            subject=c.subject_for(txn.rules, txn.game_id),
            text=text,
            now=self.clock.now(),
            version=txn.version,
            head_hash=txn.head_hash,
        )

    # -- reading ----------------------------------------------------------------------------

    def waiting(self, game_id: str) -> dict[str, Any] | None:
        """The proposal waiting in the game, as the pages show it (no addresses)."""
        with self.db.read() as session:
            row = rules.waiting_proposal(session, game_id)
            if row is None:
                return None
            infos = seat_infos(seats_of(session, game_id))
            return {
                "proposal": row.proposal,
                "seat": row.seat,
                "by_seat": row.by_seat,
                "new_name": row.new_name,
                "status": row.status,
                "agreed": rules.agreed_by(row),
                "waiting": sorted(rules.awaited(row, infos)),
            }


_NO_LONGER = (
    "This invitation to take over a seat no longer stands: the seat was taken over, the "
    "proposal was replaced, or the game ended."
)
