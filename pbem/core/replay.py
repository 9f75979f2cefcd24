"""Verifying a stored game: its events folded through its rules by the one fold
(``pbem.core.fold``, shared with the offline verifier), checking every step.

``verify`` trusts nothing it reads: it re-runs the game from its first event with no
snapshot, checks the versions, the hash chain, every secret action against its commitment,
that every payload is canonical and valid, that every action was legal where it was played
(and that the recorded canonical text, log and flags are what the engine says now), and the
revealed seed against its commitment.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session, col, select

from engine.core import Rules
from engine.core.registry import Registry, UnknownRules
from pbem.core import events as ev
from pbem.core.events import StoredEvent
from pbem.core.fold import Fold, FoldError, state_hash
from pbem.core.models import Event, Game, GameSecret, Snapshot
from pbem.core.snapshots import is_sealed


@dataclass
class Problem:
    version: int
    message: str


@dataclass
class VerifyReport:
    game_id: str
    events: int = 0
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    final_state_hash: str | None = None
    head_hash: str | None = None
    #: stored snapshots compared with the fold, and those that do not match it
    snapshots_checked: int = 0
    snapshot_problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """The log itself: chain, payloads, legality, seed (snapshots apart: see below)."""
        return not self.problems

    @property
    def snapshots_ok(self) -> bool:
        """Every stored snapshot is the state the log gives at its version, duly sealed."""
        return not self.snapshot_problems

    @property
    def first_bad_version(self) -> int | None:
        return min((p.version for p in self.problems), default=None)

    def add(self, version: int, message: str) -> None:
        self.problems.append(Problem(version, message))


def verify(
    session: Session,
    game_id: str,
    registry: Registry,
    snapshot_key: str | None = None,
) -> VerifyReport:
    """Check a stored game from its first event (no snapshot, no cache), then every stored
    snapshot against that fold (and its seal, given the service's ``snapshot_key``)."""
    report = VerifyReport(game_id)
    rows = session.exec(
        select(Event).where(Event.game_id == game_id).order_by(col(Event.version))
    ).all()
    game = session.get(Game, game_id)
    secret = session.get(GameSecret, game_id)
    report.events = len(rows)
    if not rows:
        report.add(1, "the game has no events")
        return report
    # The game's read model says how far the log goes; without it, a whole log of n rows
    # holds versions 1..n. Rows outside that range are strays (a changed version).
    head = game.version if game is not None else len(rows)
    decoded = _check_chain(game_id, rows, head, report)
    if game is not None:
        _check_read_model(game, rows, report)
    if report.problems:
        return report
    stored = session.exec(
        select(Snapshot).where(Snapshot.game_id == game_id).order_by(col(Snapshot.version))
    ).all()
    snaps = _SnapshotCheck({snap.version: snap for snap in stored}, snapshot_key, report)
    _check_fold(decoded, secret.seed if secret is not None else None, registry, report, snaps)
    report.head_hash = decoded[-1].hash
    return report


@dataclass
class _SnapshotCheck:
    """The stored snapshots of a game, each compared with the fold when it reaches its
    version."""

    by_version: dict[int, Snapshot]
    key: str | None
    report: VerifyReport

    def at(self, rules: Rules, version: int, event_hash: str, state: Any) -> None:
        snap = self.by_version.pop(version, None)
        if snap is None:
            return
        self.report.snapshots_checked += 1
        if snap.rules_version != rules.version:
            # The service does not use it either: a state of other rules cannot be compared.
            self.report.notes.append(
                f"snapshot at version {version} was taken with rules version "
                f"{snap.rules_version}; not used with {rules.version}"
            )
            return
        if snap.event_hash != event_hash:
            self._bad(version, "its event hash is not the hash of the log's event there")
        if snap.state != ev.canonical_json(rules.dump_state(state)):
            self._bad(version, f"its state is not the state the log gives at version {version}")
        if self.key is not None and not is_sealed(self.key, snap):
            # Not itself a contradiction of the log (the state may be right, sealed under
            # another key): the service will not use it, which is what the note says.
            self.report.notes.append(
                f"snapshot at version {version}: its seal does not verify under this "
                "service's secret key, so the service does not use it"
            )

    def beyond_the_log(self) -> None:
        """Snapshots of versions the fold never reached (the log is shorter)."""
        for version in sorted(self.by_version):
            self.report.snapshots_checked += 1
            self._bad(version, "the log has no such version")
        self.by_version.clear()

    def _bad(self, version: int, message: str) -> None:
        self.report.snapshot_problems.append(Problem(version, message))


def _check_chain(
    game_id: str, rows: Sequence[Event], head: int, report: VerifyReport
) -> list[StoredEvent]:
    """Versions 1..head without gaps, every hash, every payload; returns the decoded events."""
    by_version = {row.version: row for row in rows}
    missing = [v for v in range(1, head + 1) if v not in by_version]
    for v in missing:
        report.add(v, f"version {v} is missing")
    for row in rows:
        if not 1 <= row.version <= head:
            # A row whose version was changed: it belongs where a version is missing.
            where = missing[0] if missing else row.version
            report.add(where, f"an event is stored as version {row.version}, outside 1..{head}")
    decoded: list[StoredEvent] = []
    prev_hash = ev.GENESIS_HASH
    for version in range(1, head + 1):
        if version not in by_version:
            prev_hash = ""  # the chain is broken here; the gap is already reported
            continue
        row = by_version[version]
        if prev_hash and row.prev_hash != prev_hash:
            report.add(row.version, "prev_hash does not match the previous event's hash")
        prev_hash = row.hash
        try:
            data = json.loads(row.data)
            canonical = ev.canonical_event(
                game_id, row.version, row.type, row.schema_version, data, row.recorded_at
            )
        except (ValueError, ev.EventDataError) as e:
            report.add(row.version, f"the payload is not valid canonical JSON: {e}")
            continue
        if ev.canonical_json(data) != row.data:
            report.add(row.version, "the payload is not stored in canonical form")
        if ev.chain_hash(row.prev_hash, canonical) != row.hash:
            report.add(row.version, "the hash does not match the event (the row was changed)")
        problem = ev.commitment_problem(row.type, row.schema_version, data)
        if problem is not None:
            report.add(row.version, problem)
        try:
            payload = ev.decode(row.type, row.schema_version, row.data)
        except ev.EventDataError as e:
            report.add(row.version, str(e))
            continue
        decoded.append(
            StoredEvent(
                game_id,
                row.version,
                row.type,
                row.schema_version,
                payload,
                row.recorded_at,
                row.prev_hash,
                row.hash,
            )
        )
    return decoded


def _check_read_model(game: Game, rows: Sequence[Event], report: VerifyReport) -> None:
    last = next((r for r in rows if r.version == game.version), None)
    if last is not None and last.hash != game.head_hash:
        report.add(
            game.version,
            f"the game's head hash {game.head_hash[:12]}… is not the hash of its last event "
            f"({last.hash[:12]}…)",
        )


def _check_fold(
    events: list[StoredEvent],
    kept_seed: str | None,
    registry: Registry,
    report: VerifyReport,
    snaps: _SnapshotCheck | None = None,
) -> None:
    created = events[0].payload
    if not isinstance(created, ev.GameCreated):
        report.add(1, f"the first event is {events[0].type}, not {ev.GAME_CREATED}")
        return
    try:
        # The game is re-run under the release it was created with, never the latest.
        rules = registry.release(created.game, created.rules_version)
    except UnknownRules as e:
        report.add(1, str(e))
        return
    finished = next((e for e in events if e.type == ev.GAME_FINISHED), None)
    revealed = finished.payload if finished else None
    seed_text = revealed.seed if isinstance(revealed, ev.GameFinished) else kept_seed
    if seed_text is None or not (seed_text.isascii() and seed_text.isdigit()):
        report.add(finished.version if finished else 1, "the seed is not available")
        return
    seed = int(seed_text)
    if ev.seed_commitment(seed) != created.seed_commitment:
        where = finished.version if finished else 1
        report.add(where, "the seed does not match the commitment recorded at creation")
        return
    fold = Fold.from_start(rules, created.config, seed)
    if snaps is not None:
        snaps.at(rules, 1, events[0].hash, fold.state)
    over_at: int | None = None
    for event in events[1:]:
        if over_at is not None and isinstance(event.payload, ev.Epilogue):
            continue  # bookkeeping after the end (a rematch), nothing to re-run
        if over_at is not None:
            report.add(event.version, f"an event after the game finished at version {over_at}")
            return
        try:
            if isinstance(p := event.payload, ev.GameFinished):
                over_at = event.version
                if p.reason == "rules":
                    fold.check_outcome(event.version, p.outcome)
            fold.apply(event, check=True)
        except FoldError as e:
            report.add(e.version, e.message)
            return
        if snaps is not None:
            snaps.at(rules, event.version, event.hash, fold.state)
    if snaps is not None:
        snaps.beyond_the_log()
    report.final_state_hash = state_hash(rules, fold.state)
