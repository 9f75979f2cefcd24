"""Check an exported game offline: ``python -m pbem.audit.verify bundle.json`` (or ``pbem
verify-export``); several bundles, or a folder of them, in one call: ``python -m
pbem.audit.verify season/`` (a line each, ok or what failed; exit 1 if any failed).

It needs the rules engine and the standard library, nothing else: no database, no web
framework, no schema library, so that a player can check a game without trusting (or
installing) the service. It reads the bundle (``docs/audit.md`` describes its format) and
checks, in order:

1. the bundle's own fields: its format, and that its rules, config, seed commitment, head
   hash and version are those its events record;
2. the hash chain: versions 1..n without a gap, each ``prev_hash`` the hash before it, each
   ``hash`` recomputed from the event (``pbem.core.chain``);
3. every secret action's vote and salt against its commitment (a seat's export carries other
   seats' unrevealed votes as their commitments only: their links still check);
4. once the game is finished: the revealed seed against its commitment, then the whole game
   re-run by the rules from that seed, every action legal where it was played, its canonical
   text, log and flags the engine's, and the recorded outcome the engine's (a game started
   with fewer players than its seats re-initialised at its ``SeatsClosed``, whose config must
   be the created one for that many players, ``pbem.core.fold.fewer_players_config``); it
   prints the final scores.

Because it stands alone it reads a bundle by key, as the bundle's documentation describes
it, rather than through the service's event schemas; the game is re-run by the same fold as
the service's (``pbem.core.fold``), which reads each payload's fields as attributes.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any, NamedTuple, TextIO

import engine
from engine.core import EngineError
from engine.core.registry import Registry, UnknownRules
from pbem.audit.players import players_of
from pbem.core import chain
from pbem.core.fold import Fold, FoldError

FORMAT = "pbem-export-2"
BUNDLE_KEYS = frozenset(
    {
        "format",
        "game_id",
        "seen_by",
        "rules",
        "config",
        "seed_commitment",
        "seed",
        "head_hash",
        "version",
        "events",
    }
)
#: fields a bundle may carry besides ``BUNDLE_KEYS`` (bundles written before them have none):
#: ``players``, who played each seat over which versions (``pbem.audit.players``)
OPTIONAL_KEYS = frozenset({"players"})
EVENT_KEYS = frozenset(
    {"version", "type", "schema_version", "data", "recorded_at", "prev_hash", "hash"}
)
GAME_CREATED = "GameCreated"
GAME_FINISHED = "GameFinished"
#: a seat's standing order (``pbem.clock.events``): left out of the other seats' exports
STANDING_ORDER_SET = "StandingOrderSet"
#: table talk (``pbem.talk.events``): left out of the exports of the seats it is not for
TALK_TYPES = frozenset({"TableTalkSent", "TableTalkHidden"})
#: the bookkeeping that may follow the end of a game (``pbem.core.event_base.Epilogue``: a
#: rematch proposed, agreed to, declined, started, ``pbem.rematch.events``; the table talk of
#: the day after the end, ``pbem.talk``), by type name: this verifier imports no event module
EPILOGUE = (
    frozenset({"RematchProposed", "RematchAgreed", "RematchDeclined", "RematchStarted"})
    | TALK_TYPES
)


@dataclass(frozen=True)
class Problem:
    """What is wrong, and where: ``where`` is "version N" or the bundle field's name."""

    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


@dataclass
class Report:
    game_id: str = "?"
    events: int = 0
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: secret actions checked against their commitments / carried as commitments only
    commitments_checked: int = 0
    sealed: int = 0
    #: other seats' standing orders left out of a seat's export (never revealed: they are
    #: their seats' own, and the re-run of the rules does not need them)
    orders_withheld: int = 0
    #: table talk left out of a seat's (or the public) export: messages to others, hidden ones
    talk_withheld: int = 0
    finished: bool = False
    replayed: bool = False
    head_hash: str | None = None
    #: the engine's outcome of the re-run game (or the recorded one of a game ended early)
    outcome: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, where: str, message: str) -> None:
        self.problems.append(Problem(where, message))


class _BadBundle(Exception):
    """The bundle cannot be read far enough to check anything more."""


def verify_file(path: str | Path, registry: Registry | None = None) -> Report:
    return verify_bytes(Path(path).read_bytes(), registry)


def verify_bytes(raw: bytes, registry: Registry | None = None) -> Report:
    """Check a bundle as its bytes: any byte that does not decode is named too."""
    report = Report()
    try:
        bundle, storable = _parse(raw)
    except _BadBundle as e:
        report.add("bundle", str(e))
        return report
    return verify_bundle(bundle, registry, report, storable=storable)


def _parse(raw: bytes) -> tuple[Any, bool]:
    """The bundle, and whether the text holds no float and no NUL character (JSON text can
    write a NUL only as ``\\u0000``; a ``\\\\u0000``, a backslash and "u0000", counts too,
    which only costs the walk that ``chain.canonical_json`` makes when it is not told)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _BadBundle(f"the file is not UTF-8 text (byte {e.start})") from None
    floats: list[str] = []

    def keep_float(written: str) -> float:
        # Parsed as json.loads would: the event that holds it is refused when it is hashed.
        floats.append(written)
        return float(written)

    def refuse_constant(name: str) -> Any:
        raise _BadBundle(f"the file holds {name}, which JSON bundles never do")

    def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        found = dict(pairs)
        if len(found) != len(pairs):  # a key named twice keeps one entry
            raise _BadBundle(f"an object names a key twice: {sorted(k for k, _ in pairs)}")
        return found

    try:
        bundle = json.loads(
            text,
            parse_constant=refuse_constant,
            parse_float=keep_float,
            object_pairs_hook=unique_keys,
        )
    except ValueError as e:
        raise _BadBundle(f"the file is not valid JSON: {e}") from None
    return bundle, not floats and "\\u0000" not in text


def verify_bundle(
    bundle: Any,
    registry: Registry | None = None,
    report: Report | None = None,
    *,
    storable: bool = False,
) -> Report:
    """Check a parsed bundle; the report lists every problem found (the first ones stop the
    checks that depend on them: a broken chain is not re-run). ``storable``: the bundle was
    parsed from text holding no float and no NUL character (``verify_bytes`` knows it), so
    hashing an event need not look for them in it."""
    report = report if report is not None else Report()
    registry = engine.REGISTRY if registry is None else registry
    try:
        events = _check_shape(bundle, report)
    except _BadBundle as e:
        report.add("bundle", str(e))
        return report
    report.game_id = bundle["game_id"]
    report.events = len(events)
    _check_chain(bundle["game_id"], events, report, storable)
    if report.problems:
        return report
    created = events[0]["data"]
    _check_fields(bundle, created, events, report)
    if report.problems:
        return report
    report.head_hash = events[-1]["hash"]
    finished = next((e for e in events if e["type"] == GAME_FINISHED), None)
    report.finished = finished is not None
    if finished is None:
        if bundle["seed"] is not None:
            report.add("seed", "an unfinished game's bundle carries a seed")
        else:
            report.notes.append(
                "the game is not finished: its seed is still secret, so the rules cannot "
                "re-run it yet (the chain and the commitments are checked)"
            )
        return report
    _replay(bundle, created, events, finished, registry, report)
    return report


def _check_shape(bundle: Any, report: Report) -> list[dict[str, Any]]:
    if not isinstance(bundle, dict):
        raise _BadBundle("the bundle is not a JSON object")
    keys = set(bundle) - OPTIONAL_KEYS
    if keys != BUNDLE_KEYS:
        raise _BadBundle(
            f"the bundle's fields are not those of {FORMAT}: unknown "
            f"{sorted(keys - BUNDLE_KEYS)}, missing {sorted(BUNDLE_KEYS - keys)}"
        )
    if bundle["format"] != FORMAT:
        raise _BadBundle(f"format {bundle['format']!r} is not {FORMAT!r}")
    if not isinstance(bundle["game_id"], str):
        raise _BadBundle("game_id is not text")
    events = bundle["events"]
    if not isinstance(events, list) or not events:
        raise _BadBundle("the bundle holds no events")
    for i, event in enumerate(events, start=1):
        if not isinstance(event, dict) or set(event) != EVENT_KEYS:
            shown = sorted(event) if isinstance(event, dict) else type(event).__name__
            raise _BadBundle(f"event {i} does not have the fields {sorted(EVENT_KEYS)}: {shown}")
        for name in ("version", "schema_version"):
            if type(event[name]) is not int:
                raise _BadBundle(f"event {i}: {name} is not an integer")
        for name in ("type", "recorded_at", "prev_hash", "hash"):
            if not isinstance(event[name], str):
                raise _BadBundle(f"event {i}: {name} is not text")
        if event["data"] is not None and not isinstance(event["data"], dict):
            raise _BadBundle(f"event {i}: data is not a JSON object")
    return events


def _check_chain(
    game_id: str, events: Sequence[dict[str, Any]], report: Report, storable: bool
) -> None:
    prev = chain.GENESIS_HASH
    for position, event in enumerate(events, start=1):
        version = event["version"]
        # Named by its place in the list: a changed version number is the event's fault.
        where = f"version {position}"
        if version != position:
            report.add(where, f"the event in this place says it is version {version}")
        if event["prev_hash"] != prev:
            report.add(where, "prev_hash is not the hash of the event before it")
        prev = event["hash"]
        data = event["data"]
        if data is None:
            # A secret action recorded before commitments existed, or another seat's standing
            # order, left out of a seat's export: its link is taken as recorded (the next
            # event's prev_hash holds it).
            if event["type"] == STANDING_ORDER_SET:
                report.orders_withheld += 1
            elif event["type"] in TALK_TYPES:
                report.talk_withheld += 1
            else:
                report.sealed += 1
            continue
        try:
            canonical = chain.canonical_event(
                game_id,
                version,
                event["type"],
                event["schema_version"],
                data,
                event["recorded_at"],
                known_storable=storable,
            )
        except chain.EventDataError as e:
            report.add(where, f"the event cannot be hashed: {e}")
            continue
        if chain.chain_hash(event["prev_hash"], canonical) != event["hash"]:
            report.add(where, "the hash does not match the event (the event or hash was changed)")
        if chain.is_committed(event["type"], event["schema_version"], data):
            problem = chain.commitment_problem(
                event["type"], event["schema_version"], data, known_storable=storable
            )
            if problem is not None:
                report.add(where, problem)
            elif "action" in data:
                report.commitments_checked += 1
            else:
                report.sealed += 1
    if report.orders_withheld:
        report.notes.append(
            f"{report.orders_withheld} standing order(s) of other seats are left out: they "
            "are their seats' own"
        )
    if report.talk_withheld:
        report.notes.append(
            f"{report.talk_withheld} table talk event(s) are left out: messages between other "
            "players, or hidden by the administrator"
        )
    if report.sealed:
        report.notes.append(
            f"{report.sealed} secret action(s) of other seats are carried as commitments "
            "only: they are revealed later (or in the full export)"
        )


def _check_fields(
    bundle: Mapping[str, Any],
    created: Mapping[str, Any] | None,
    events: Sequence[dict[str, Any]],
    report: Report,
) -> None:
    if events[0]["type"] != GAME_CREATED or created is None:
        report.add("version 1", f"the first event is not {GAME_CREATED}")
        return
    recorded = {
        "rules": {"name": created.get("game"), "version": created.get("rules_version")},
        "config": created.get("config"),
        "seed_commitment": created.get("seed_commitment"),
        "head_hash": events[-1]["hash"],
        "version": events[-1]["version"],
    }
    for name, value in recorded.items():
        if bundle[name] != value:
            report.add(name, f"the bundle says {bundle[name]!r}, its events say {value!r}")
    if "players" in bundle and bundle["players"] != players_of(events):
        report.add(
            "players",
            f"the bundle says {bundle['players']!r}, its events say {players_of(events)!r}",
        )
    seen_by = bundle["seen_by"]
    if (
        seen_by not in ("everything", "public")
        and not (
            isinstance(seen_by, str)
            and seen_by.startswith("seat ")
            and seen_by[5:].isascii()  # isdigit() alone lets "²" through to int(), which refuses it
            and seen_by[5:].isdigit()
            and str(int(seen_by[5:])) == seen_by[5:]
        )
    ):
        report.add("seen_by", f"{seen_by!r} is not 'everything', 'public' nor 'seat N'")


def _replay(
    bundle: Mapping[str, Any],
    created: Mapping[str, Any],
    events: Sequence[dict[str, Any]],
    finished: Mapping[str, Any],
    registry: Registry,
    report: Report,
) -> None:
    revealed = (finished["data"] or {}).get("seed")
    where = f"version {finished['version']}"
    if bundle["seed"] != revealed:
        report.add("seed", f"the bundle's seed is not the one revealed at {where}")
        return
    if not isinstance(revealed, str) or not (revealed.isascii() and revealed.isdigit()):
        report.add(where, "the revealed seed is not a decimal number")
        return
    if chain.seed_commitment(int(revealed)) != created["seed_commitment"]:
        report.add("seed", "the seed does not match the commitment recorded at creation")
        return
    if report.sealed:
        report.add(where, "a finished game's bundle still carries unrevealed secret actions")
        return
    try:
        # The game is re-run under the release it was created with, never the latest.
        rules = registry.release(str(created["game"]), str(created["rules_version"]))
    except UnknownRules as e:
        report.add("rules", str(e))
        return
    try:
        fold = Fold.from_start(rules, created["config"], int(revealed))
    except EngineError as e:  # e.g. a config the rules no longer accept
        report.add("version 1", f"the rules refuse the game: {e}")
        return
    with _collector_paused():
        _run(fold, _to_the_end(events[1:]), report)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused while a game is re-run (and resumed after, if it
    was running): the re-run builds a few records per action and keeps every state (a
    retraction returns to one), records that form no reference cycle, so the collector's
    passes over them find nothing and cost several percent of the re-run. Bundles are checked
    by the command lines (``python -m pbem.audit.verify``, ``pbem verify-export``), each in a
    process of its own: no server thread shares the pause."""
    running = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if running:
            gc.enable()


def _to_the_end(events: Sequence[dict[str, Any]]) -> Sequence[dict[str, Any]]:
    """The events to re-run: up to the game's end, without the bookkeeping after it."""
    end = next((i for i, e in enumerate(events) if e["type"] == GAME_FINISHED), None)
    if end is None or any(e["type"] not in EPILOGUE for e in events[end + 1 :]):
        return events  # (events after the end that are not bookkeeping: reported by _run)
    return events[: end + 1]


class _Event(NamedTuple):
    """A bundle's event as the fold reads it (``pbem.core.fold.Event``); a NamedTuple, built
    once per event, costs less than a frozen dataclass."""

    version: int
    type: str
    #: the payload's fields as attributes (``pbem.core.fold.Action`` and ``Retraction``)
    payload: SimpleNamespace


def _run(fold: Fold, events: Sequence[dict[str, Any]], report: Report) -> None:
    """The game re-run from its seed by the one fold, every action checked as it is applied,
    to its GameFinished."""
    for event in events:
        data = event["data"] or {}
        try:
            if event["type"] == GAME_FINISHED:
                if event is not events[-1]:
                    report.add(
                        f"version {event['version']}", "events are recorded after the game finished"
                    )
                    return
                report.replayed = True
                if data["reason"] != "rules":
                    # Ended by resignations: the recorded result is the service's, not the rules'.
                    report.outcome = data["outcome"]
                    return
                fold.check_outcome(event["version"], data["outcome"])
                report.outcome = fold.outcome_json()
                return
            payload = SimpleNamespace(**data)
            fold.apply(_Event(event["version"], event["type"], payload), check=True)
        except FoldError as e:
            report.add(f"version {e.version}", e.message)
            return
    report.add("events", "the game finished but the re-run never reached the end")


def summary(report: Report) -> list[str]:
    """The report as lines for people."""
    lines = [f"game {report.game_id}: {report.events} events"]
    if report.ok:
        lines.append(f"chain intact: head hash {report.head_hash}")
        if report.commitments_checked:
            lines.append(f"{report.commitments_checked} secret action(s) match their commitments")
        if report.replayed:
            lines.append("seed matches its commitment; re-run by the rules: every action legal")
    lines.extend(f"note: {n}" for n in report.notes)
    if report.ok and report.outcome is not None:
        scores = report.outcome.get("scores") or []
        winners = set(report.outcome.get("winners") or [])
        if scores:
            lines.append("final scores:")
            lines.extend(
                f"  seat {seat}: {score}{'  (winner)' if seat in winners else ''}"
                for seat, score in enumerate(scores)
            )
        else:
            lines.append(f"winners: {sorted(winners)}")
    lines.extend(f"FAILED at {p}" for p in report.problems)
    lines.append("OK" if report.ok else "FAILED")
    return lines


def bundles_in(paths: Sequence[str | Path]) -> list[Path]:
    """The bundle files ``paths`` name: a file as given, a folder's ``*.json`` files (not its
    subfolders'), in name order. Raises OSError for a path that is neither."""
    found: list[Path] = []
    for given in map(Path, paths):
        if given.is_dir():
            found.extend(sorted(p for p in given.glob("*.json") if p.is_file()))
        elif given.is_file():
            found.append(given)
        else:
            raise FileNotFoundError(f"{given} is neither a bundle file nor a folder")
    return found


def one_line(path: Path, report: Report) -> str:
    """A bundle's result on one line: ``ok`` or ``FAILED`` and what failed first."""
    if report.ok:
        replayed = "re-run by the rules" if report.replayed else "not finished: not re-run"
        return f"ok      {path}: game {report.game_id}, {report.events} events, {replayed}"
    first, more = report.problems[0], len(report.problems) - 1
    also = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
    return f"FAILED  {path}: {first}{also}"


#: seconds between two progress lines while a folder is checked
PROGRESS_EVERY = 2.0


def verify_many(
    paths: Sequence[Path],
    registry: Registry | None = None,
    out: TextIO = sys.stdout,
    progress: TextIO = sys.stderr,
) -> int:
    """Check every bundle of ``paths``, a line each on ``out``, a progress line on
    ``progress`` every few seconds, a total at the end; the number that failed."""
    registry = engine.REGISTRY if registry is None else registry
    started = last = time.perf_counter()
    failed = events = 0
    for done, path in enumerate(paths, start=1):
        try:
            report = verify_bytes(path.read_bytes(), registry)
        except OSError as e:
            report = Report()
            report.add("file", f"cannot be read: {e.strerror}")
        failed += not report.ok
        events += report.events
        print(one_line(path, report), file=out, flush=True)
        now = time.perf_counter()
        if now - last >= PROGRESS_EVERY and done < len(paths):
            last = now
            print(
                f"... {done} of {len(paths)} bundles checked, {failed} failed "
                f"({events / (now - started):,.0f} events/s)",
                file=progress,
                flush=True,
            )
    took = time.perf_counter() - started
    print(
        f"{len(paths)} bundles: {len(paths) - failed} ok, {failed} FAILED; "
        f"{events} events checked in {took:.1f} s",
        file=out,
    )
    return failed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pbem.audit.verify",
        description="Check exported pbem games offline: chain, commitments, seed, rules. "
        "One bundle: what was checked and the final scores. Several, or a folder of them "
        "(its *.json files): one line each, ok or what failed.",
    )
    parser.add_argument(
        "bundle", nargs="+", help="a bundle file written by `pbem export`, or a folder of them"
    )
    args = parser.parse_args(argv)
    if len(args.bundle) > 1 or Path(args.bundle[0]).is_dir():
        try:
            paths = bundles_in(args.bundle)
        except OSError as e:
            print(f"cannot check: {e}", file=sys.stderr)
            return 2
        if not paths:
            print(f"no bundle (*.json) in {' '.join(args.bundle)}", file=sys.stderr)
            return 2
        return 1 if verify_many(paths) else 0
    try:
        raw = Path(args.bundle[0]).read_bytes()
    except OSError as e:
        print(f"cannot read {args.bundle[0]}: {e.strerror}", file=sys.stderr)
        return 2
    report = verify_bytes(raw)
    out = sys.stdout if report.ok else sys.stderr
    print("\n".join(summary(report)), file=out)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
