"""The undo commands: a seat takes back its latest actions (directly when only it acted
since, otherwise by asking every other seat), and the other seats decide such a request.
Which actions an undo takes back is ``pbem.undo.rules``'s to say."""

from __future__ import annotations

from pbem.core import events as ev
from pbem.core.errors import Conflict
from pbem.core.naming import names_for
from pbem.core.unit_of_work import Transactions
from pbem.mail.inbound.reply_words import CHANNEL, Done, ReplyLine, ReplyWords
from pbem.play.command_checks import check_can_act, check_version
from pbem.play.queries import GameQueries
from pbem.play.results import UndoResult
from pbem.undo import events as undo_events
from pbem.undo import rules as undo_rules
from pbem.undo.projection import waiting_request


class UndoCommands:
    """Undo and its requests (part of ``pbem.app.service.GameService``)."""

    def __init__(self, transactions: Transactions) -> None:
        self.transactions = transactions

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
        with self.transactions.on(game_id) as txn:
            check_can_act(txn, seat)
            if expected_version is not None:
                check_version(txn, seat, expected_version, "strict")
            names = names_for(txn.rules, txn.state, [s.name for s in txn.seats])
            chosen = undo_rules.plan(
                txn.read(), txn.version, seat, to_version, txn.resigned, name_of=names.of
            )
            if waiting_request(txn.session, game_id) is not None:
                raise Conflict(
                    "Another undo request is waiting for answers; it must be decided first."
                )
            if not chosen.needs_consent:
                event = ev.ActionsRetracted(
                    seat=seat,
                    request=None,
                    to_version=chosen.to_version,
                    versions=tuple(chosen.versions),
                    channel=channel,
                    channel_ref=channel_ref,
                )
                stored = txn.append([event], txn.state_at(chosen.to_version))
                return UndoResult(
                    game_id, stored[-1].version, "retracted", None, tuple(chosen.versions)
                )
            requested = undo_events.UndoRequested(
                seat=seat,
                to_version=chosen.to_version,
                versions=tuple(chosen.versions),
                channel=channel,
                channel_ref=channel_ref,
            )
            stored = txn.append([requested], txn.state)
            request = stored[-1].version
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
        with self.transactions.on(game_id) as txn:
            check_can_act(txn, seat)
            row = undo_rules.check_decision(txn.session, game_id, seat, request, txn.version)
            decided = undo_events.UndoDecided(
                request=request, seat=seat, accept=accept, channel=channel, channel_ref=channel_ref
            )
            if not accept:
                stored = txn.append([decided], txn.state, lapse=False)
                return UndoResult(game_id, stored[-1].version, "declined", request, ())
            if undo_rules.awaited(row, txn.seats) - {seat}:
                stored = txn.append([decided], txn.state, lapse=False)
                return UndoResult(game_id, stored[-1].version, "accepted", request, ())
            names = names_for(txn.rules, txn.state, [s.name for s in txn.seats])
            chosen = undo_rules.plan(
                txn.read(),
                txn.version,
                row.seat,
                row.to_version,
                txn.resigned,
                consent=True,
                name_of=names.of,
            )
            retracted = ev.ActionsRetracted(
                seat=row.seat,
                request=request,
                to_version=chosen.to_version,
                versions=tuple(chosen.versions),
                channel=channel,
                channel_ref=channel_ref,
            )
            stored = txn.append([decided, retracted], txn.state_at(chosen.to_version), lapse=False)
            return UndoResult(
                game_id, stored[-1].version, "retracted", request, tuple(chosen.versions)
            )


def register_reply_words(words: ReplyWords, undo: UndoCommands, queries: GameQueries) -> None:
    """The reply words of undo: ``undo`` takes back the seat's last move (or asks the others
    to), ``accept`` / ``decline`` answer the undo request waiting."""

    def take_back(line: ReplyLine) -> Done:
        result = undo.undo(line.game_id, line.seat, channel=CHANNEL, channel_ref=line.key)
        return Done(result.version, "undo")

    def decide(line: ReplyLine) -> Done:
        accept = line.word == "accept"
        if accept and line.invited:
            return Done()  # the invitation's "accept", taken before the reply's lines
        request = queries.open_undo_request(line.game_id)
        if request is None and accept and queries.was_invited(line.game_id, line.seat):
            return Done()  # the invitation's "accept", taken by an earlier reply
        if request is None:
            raise Conflict("There is no undo request waiting for an answer.")
        result = undo.decide_undo(
            line.game_id, line.seat, request, accept, channel=CHANNEL, channel_ref=line.key
        )
        return Done(result.version, line.word)

    words.line("undo", take_back)
    words.line("accept", decide)
    words.line("decline", decide)
