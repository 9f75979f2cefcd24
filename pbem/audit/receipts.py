"""Receipts: checking later that history was not rewritten after a mail, and that a secret
vote revealed is the one its author committed to.

Every mail carries the game's version and head hash. ``check_receipt`` answers whether the
chain at that version still has that hash — recomputed from the stored events 1..version,
not read from a column an operator could edit — and, given the salt from a secret action's
confirmation mail, whether the vote revealed at that version matches its commitment. Before
the reveal it says only that the vote is committed (``pending``: nothing is wrong, the check
is for after the reveal); a vote taken back before its reveal is ``retracted`` and never
checked, one taken back after it is checked like any other.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from sqlmodel import col, select

from pbem.core import chain
from pbem.core import events as ev
from pbem.core.db import Database
from pbem.core.errors import BadRequest, GameNotFound
from pbem.core.models import Event, Game
from pbem.core.store import stored_event
from pbem.play.views import revealed_after

HEX = frozenset("0123456789abcdef")


@dataclass(frozen=True)
class VoteCheck:
    """What a salt says about the secret action at a version."""

    #: "matches", "does not match", "pending" (not revealed yet), "retracted" (taken back
    #: before its reveal: never revealed), "not a committed secret action"
    status: str
    commitment: str | None
    #: what the commitment stands for (after the salt), shown once the salt matches
    committed_text: str | None
    message: str


@dataclass(frozen=True)
class ReceiptCheck:
    game_id: str
    version: int
    claimed_hash: str
    #: the hash the chain recomputes at that version (None: the chain is broken before it)
    chain_hash: str | None
    matches: bool
    message: str
    vote: VoteCheck | None = None

    @property
    def ok(self) -> bool:
        """Nothing checked is wrong: a vote still pending (or retracted unrevealed) is not a
        failure, ``vote.status`` says it was not checked."""
        return self.matches and (self.vote is None or self.vote.status in UNFAILED)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["ok"] = self.ok
        return out


#: vote statuses that are no failure: checked and matching, or nothing to check (yet)
UNFAILED = frozenset({"matches", "pending", "retracted"})


def _normal_hash(text: str, what: str) -> str:
    value = text.strip().lower()
    if len(value) != 64 or not set(value) <= HEX:
        raise BadRequest(f"The {what} is 64 hexadecimal characters (it is at the foot of a mail).")
    return value


def check_receipt(
    db: Database, game_id: str, version: int, claimed_hash: str, salt: str | None = None
) -> ReceiptCheck:
    claimed = _normal_hash(claimed_hash, "hash")
    with db.read() as session:
        game = session.get(Game, game_id)
        if game is None:
            raise GameNotFound(f"There is no game {game_id!r}.")
        if not 1 <= version <= game.version:
            raise BadRequest(
                f"Version {version} does not exist: game {game_id} has versions 1 to "
                f"{game.version}."
            )
        rows = list(
            session.exec(
                select(Event).where(Event.game_id == game_id).order_by(col(Event.version))
            ).all()
        )
    recomputed, broken = _recompute(game_id, rows[:version])
    if broken is not None:
        result = ReceiptCheck(game_id, version, claimed, None, False, broken)
    elif recomputed == claimed:
        result = ReceiptCheck(
            game_id,
            version,
            claimed,
            recomputed,
            True,
            f"Version {version} of game {game_id} has this hash: the history up to it is the "
            "one your mail was sent from.",
        )
    else:
        result = ReceiptCheck(
            game_id,
            version,
            claimed,
            recomputed,
            False,
            f"Version {version} of game {game_id} has hash {recomputed}, not {claimed}: the "
            "history up to that version is not the one your mail was sent from.",
        )
    if salt is None:
        return result
    vote = _check_vote(rows, version, salt.strip())
    return ReceiptCheck(**{**asdict(result), "vote": vote})


def _recompute(game_id: str, rows: list[Event]) -> tuple[str | None, str | None]:
    """The chain's hash after ``rows`` recomputed from their contents, or why it breaks."""
    prev = chain.GENESIS_HASH
    for row in rows:
        try:
            data = json.loads(row.data)
            link = chain.chain_hash(
                prev,
                chain.canonical_event(
                    game_id, row.version, row.type, row.schema_version, data, row.recorded_at
                ),
            )
        except (ValueError, chain.EventDataError):
            return None, f"The stored event at version {row.version} cannot be read."
        if row.prev_hash != prev or row.hash != link:
            return None, (
                f"The stored chain is broken at version {row.version}: its events were changed "
                "after they were recorded."
            )
        problem = chain.commitment_problem(row.type, row.schema_version, data)
        if problem is not None:
            return None, f"Version {row.version}: {problem}."
        prev = link
    return prev, None


def _check_vote(rows: list[Event], version: int, salt: str) -> VoteCheck:
    stored = [stored_event(r) for r in rows]
    p = stored[version - 1].payload
    if not isinstance(p, ev.ActionApplied) or p.commitment is None:
        return VoteCheck(
            "not a committed secret action",
            None,
            None,
            f"Version {version} is not a secret action with a commitment.",
        )
    commitment = p.commitment
    revealed = revealed_after(stored).get(version, False)
    retraction = _retraction(stored, version)
    if not revealed and retraction is not None:
        # Taken back (an undo, an upheld dispute): revealed only if a step before the
        # retraction revealed it; then its value is known and it is checked.
        revealed = revealed_after(stored[: retraction - 1]).get(version, False)
        if not revealed:
            return VoteCheck(
                "retracted",
                commitment,
                None,
                f"The secret action at version {version} (committed as {commitment}) was "
                f"taken back at version {retraction} before it was revealed: it never took "
                "effect and is never revealed, so there is nothing to check your salt against.",
            )
    if not revealed:
        return VoteCheck(
            "pending",
            commitment,
            None,
            f"The secret action at version {version} is committed as {commitment}; not "
            "revealed yet: check again with your salt after the reveal.",
        )
    if chain.secret_commitment(salt, p.action, p.canonical, p.text) == commitment:
        return VoteCheck(
            "matches",
            commitment,
            chain.committed_text(p.action, p.canonical, p.text),
            f"The vote revealed at version {version} ({p.canonical}) is the one committed to "
            f"before the reveal: sha256(salt ‖ vote) = {commitment}.",
        )
    return VoteCheck(
        "does not match",
        commitment,
        None,
        f"With this salt, the vote revealed at version {version} ({p.canonical}) does not give "
        f"the commitment {commitment} recorded before the reveal.",
    )


def _retraction(stored: list[ev.StoredEvent], version: int) -> int | None:
    """The version of the ActionsRetracted event that took back the action at ``version``."""
    for e in stored[version:]:
        if isinstance(p := e.payload, ev.ActionsRetracted) and version in p.versions:
            return e.version
    return None
