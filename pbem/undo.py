"""Undo never deletes: the rules of taking actions back, as a plan of events to append.

A seat may take back its own latest actions while no other seat has acted since and no
transition since was irreversible (a draw, a reveal); going further back (over other seats'
actions) needs every other active seat's consent: ``UndoRequested``, then ``UndoDecided``
from each; the last acceptance appends ``ActionsRetracted``. Nothing ever crosses an
irreversible step, a resignation or the end of the game. A request lapses when the game moves
on before it is decided.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from sqlmodel import Session, select

from pbem import events as ev
from pbem import store
from pbem.core import ServiceCore
from pbem.errors import AgainstTheRules, Conflict, GameNotFound
from pbem.models import UndoRequest
from pbem.store import StoredEvent

# The first version an undo can return to: right after GameStarted.
FIRST_POSITION = 2


@dataclass(frozen=True)
class UndoResult:
    game_id: str
    version: int
    #: retracted | requested | accepted (waiting for others) | declined
    status: str
    request: int | None
    retracted: tuple[int, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "version": self.version,
            "status": self.status,
            "request": self.request,
            "retracted": list(self.retracted),
        }


@dataclass(frozen=True)
class Plan:
    to_version: int
    versions: list[int]
    needs_consent: bool


def effective_actions(events: Sequence[StoredEvent]) -> list[StoredEvent]:
    """The ActionApplied events in force (not retracted), in order."""
    retracted: set[int] = set()
    for e in events:
        if e.type == ev.ACTIONS_RETRACTED:
            retracted.update(e.data["versions"])
    return [e for e in events if e.type == ev.ACTION_APPLIED and e.version not in retracted]


def plan(
    events: Sequence[StoredEvent],
    head: int,
    seat: int,
    to_version: int | None,
    resigned: set[int],
    *,
    consent: bool = False,
) -> Plan:
    """What undoing for ``seat`` back to ``to_version`` (default: before its latest
    action) would retract, or AgainstTheRules saying why it cannot be done."""
    actions = effective_actions(events)
    if to_version is None:
        own = [e for e in actions if e.data["seat"] == seat]
        if not own:
            raise AgainstTheRules("You have no action to take back.")
        to_version = own[-1].version - 1
    if head <= FIRST_POSITION:
        raise AgainstTheRules("Nothing has been played yet: there is nothing to go back to.")
    if not FIRST_POSITION <= to_version < head:
        raise AgainstTheRules(
            f"You can go back to a version from {FIRST_POSITION} to {head - 1}, not {to_version}."
        )
    retracted = [e for e in actions if e.version > to_version]
    if not retracted:
        raise AgainstTheRules(f"No action was played after version {to_version}: nothing to undo.")
    for e in events:
        if e.version <= to_version:
            continue
        if e.type == ev.PLAYER_RESIGNED:
            raise AgainstTheRules(
                f"Cannot go back past version {e.version}: seat {e.data['seat']} resigned there."
            )
        if e.type == ev.ACTION_APPLIED and e.data["irreversible"] and e in retracted:
            # The design: undo never crosses a step that drew randomness or revealed a secret.
            raise AgainstTheRules(
                f"Cannot undo version {e.version} ({e.data['canonical']}): it drew randomness "
                "or revealed hidden information, and undo never crosses such a step."
            )
    others = {e.data["seat"] for e in retracted} - {seat} - resigned
    return Plan(to_version, [e.version for e in retracted], needs_consent=bool(others) or consent)


def open_request(session: Session, game_id: str) -> UndoRequest | None:
    return session.exec(
        select(UndoRequest).where(UndoRequest.game_id == game_id, UndoRequest.status == "open")
    ).first()


def check_decision(
    session: Session, game_id: str, seat: int, request: int, head: int
) -> UndoRequest:
    # Requests are numbered by their event's version: anything else names none (and a
    # number too large for the database's integers must not reach it).
    row = session.get(UndoRequest, (game_id, request)) if 1 <= request <= head else None
    if row is None:
        raise GameNotFound(f"There is no undo request {request} in this game.")
    if row.status != "open":
        raise Conflict(f"Undo request {request} is already {row.status}.")
    if row.seat == seat:
        raise AgainstTheRules("You made this request: the other players decide on it.")
    if seat in json.loads(row.accepted_by):
        raise Conflict(f"You already accepted undo request {request}.")
    return row


class UndoOps(ServiceCore):
    """Undo requests and take-backs (the rules above), on the shared write path."""

    def undo(
        self,
        game_id: str,
        seat: int,
        *,
        to_version: int | None = None,
        expected_version: int | None = None,
        channel: str,
        channel_ref: str | None = None,
    ) -> UndoResult:
        """Take back ``seat``'s latest actions (or go back to ``to_version``): directly when
        only this seat acted since, otherwise by asking every other seat."""
        with self.db.write() as session:
            txn = self._begin(session, game_id)
            self._check_can_act(txn, seat)
            if expected_version is not None:
                self._check_version(txn, seat, expected_version, "strict")
            chosen = plan(
                store.read(session, game_id), txn.game.version, seat, to_version, txn.resigned
            )
            if open_request(session, game_id) is not None:
                raise Conflict(
                    "Another undo request is waiting for answers; it must be decided first."
                )
            common = {"seat": seat, "channel": channel, "channel_ref": channel_ref}
            if not chosen.needs_consent:
                state = self._state_at(session, txn.game, txn.rules, chosen.to_version)
                event = ev.NewEvent(
                    ev.ACTIONS_RETRACTED,
                    {
                        **common,
                        "request": None,
                        "to_version": chosen.to_version,
                        "versions": chosen.versions,
                    },
                )
                stored = self._commit(txn, [event], state)
                return UndoResult(
                    game_id, stored[-1].version, "retracted", None, tuple(chosen.versions)
                )
            event = ev.NewEvent(
                ev.UNDO_REQUESTED,
                {**common, "to_version": chosen.to_version, "versions": chosen.versions},
            )
            stored = self._commit(txn, [event], txn.state)
            request = stored[-1].version
            session.add(
                UndoRequest(
                    game_id=game_id,
                    request=request,
                    seat=seat,
                    to_version=chosen.to_version,
                    status="open",
                    accepted_by="[]",
                )
            )
            return UndoResult(game_id, request, "requested", request, tuple(chosen.versions))

    def decide_undo(
        self,
        game_id: str,
        seat: int,
        request: int,
        accept: bool,
        *,
        channel: str,
        channel_ref: str | None = None,
    ) -> UndoResult:
        with self.db.write() as session:
            txn = self._begin(session, game_id)
            self._check_can_act(txn, seat)
            row = check_decision(session, game_id, seat, request, txn.game.version)
            decided = ev.NewEvent(
                ev.UNDO_DECIDED,
                {
                    "request": request,
                    "seat": seat,
                    "accept": accept,
                    "channel": channel,
                    "channel_ref": channel_ref,
                },
            )
            if not accept:
                row.status = "declined"
                stored = self._commit(txn, [decided], txn.state, lapse=False)
                return UndoResult(game_id, stored[-1].version, "declined", request, ())
            accepted = sorted({*json.loads(row.accepted_by), seat})
            row.accepted_by = ev.canonical_json(accepted)
            waiting = {s.seat for s in txn.seats if not s.resigned} - {row.seat} - set(accepted)
            if waiting:
                stored = self._commit(txn, [decided], txn.state, lapse=False)
                return UndoResult(game_id, stored[-1].version, "accepted", request, ())
            chosen = plan(
                store.read(session, game_id),
                txn.game.version,
                row.seat,
                row.to_version,
                txn.resigned,
                consent=True,
            )
            state = self._state_at(session, txn.game, txn.rules, chosen.to_version)
            retracted = ev.NewEvent(
                ev.ACTIONS_RETRACTED,
                {
                    "seat": row.seat,
                    "request": request,
                    "to_version": chosen.to_version,
                    "versions": chosen.versions,
                    "channel": channel,
                    "channel_ref": channel_ref,
                },
            )
            row.status = "accepted"
            stored = self._commit(txn, [decided, retracted], state, lapse=False)
            return UndoResult(
                game_id, stored[-1].version, "retracted", request, tuple(chosen.versions)
            )
