"""The offline verifier keeps every check it makes, each refusing a tampered Lancaster export
with a message that says what is wrong and where: an edited event, a reordered one, a wrong
hash, a vote that is not the one committed to, a wrong seed, an action the rules refuse, a
wrong outcome; a float or NUL character is still refused when the bundle is read from its
bytes (where the verifier skips the walk that looks for them in a bundle without any). And
``python -m pbem.audit.verify`` (or ``python -m pbem.verify``) checks a folder of exports in
one call, a line per bundle, and exits 1 if any failed.

The bundles are made once for the module by the real service and export code (SQLite: the
verifier reads bundles, not a database).
"""

from __future__ import annotations

import copy
import io
import json
import random
import subprocess
import sys
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from pbem.app.bootstrap import build_service
from pbem.audit import verify as verifier
from pbem.audit.export import bundle_text
from pbem.audit.verify import Report, verify_bundle, verify_bytes, verify_many
from pbem.core import chain
from pbem.core.db import Database
from pbem.core.migrate import upgrade
from tests.service.helpers import REGISTRY
from tests.service.test_games import play
from tests.settings import make_settings

REPO = Path(__file__).resolve().parents[2]
Bundle = dict[str, Any]


def _finished_lancaster(service: Any, players: int, seed: int) -> Bundle:
    names = [{"name": f"P{i}"} for i in range(players)]
    gid = service.create_game("lancaster", {}, names).id
    choose = random.Random(seed)
    for _ in range(5000):
        loaded = service.load(gid)
        if loaded.finished or not loaded.to_act:
            break
        seat = min(loaded.to_act)
        play(service, gid, seat, choose.choice(loaded.legal(seat)))
    bundle: Bundle = service.export_game(gid)
    assert bundle["seed"] is not None, "the game did not finish"
    return bundle


@pytest.fixture(scope="module")
def season(sqlite_url: str, tmp_path_factory: pytest.TempPathFactory) -> list[Bundle]:
    """Three finished Lancaster games (3, 4 and 5 players), exported in full."""
    db = Database(sqlite_url)
    upgrade(db)
    settings = make_settings(sqlite_url, tmp_path_factory.mktemp("var"))
    service = build_service(settings, db=db, registry=REGISTRY, listeners=[])
    try:
        return [_finished_lancaster(service, players, players) for players in (3, 4, 5)]
    finally:
        service.release_connections()
        db.dispose()


@pytest.fixture
def bundle(season: list[Bundle]) -> Bundle:
    """A fresh copy of the 4-player game's bundle, to tamper with."""
    return copy.deepcopy(season[1])


def _bytes_of(bundle: Bundle) -> bytes:
    return bundle_text(bundle).encode()


def _problems(bundle: Bundle) -> list[str]:
    """What the verifier says of the bundle written as a file, as people read it."""
    report = verify_bytes(_bytes_of(bundle), REGISTRY)
    assert not report.ok
    return [str(p) for p in report.problems]


def _rechain(bundle: Bundle, since: int = 1) -> Bundle:
    """Every hash from version ``since`` on recomputed, as a forger who knows the chain would."""
    events = bundle["events"]
    prev = events[since - 2]["hash"] if since > 1 else chain.GENESIS_HASH
    for e in events[since - 1 :]:
        e["prev_hash"] = prev
        canonical = chain.canonical_event(
            bundle["game_id"],
            e["version"],
            e["type"],
            e["schema_version"],
            e["data"],
            e["recorded_at"],
        )
        prev = e["hash"] = chain.chain_hash(prev, canonical)
    bundle["head_hash"] = prev
    return bundle


def _first(bundle: Bundle, test: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    return next(e for e in bundle["events"] if test(e))


def _placement(e: dict[str, Any]) -> bool:
    return e["type"] == "ActionApplied" and e["data"]["action"][0] == "place"


def _vote(e: dict[str, Any]) -> bool:
    return e["type"] == "ActionApplied" and e["data"]["action"][0] == "vote"


def test_an_untouched_season_verifies_with_every_check_made(season: list[Bundle]) -> None:
    for bundle in season:
        from_bytes = verify_bytes(_bytes_of(bundle), REGISTRY)
        assert from_bytes.ok, from_bytes.problems
        assert from_bytes.replayed and from_bytes.finished
        assert from_bytes.commitments_checked > 0  # every vote against its commitment
        assert from_bytes.events == len(bundle["events"])
        assert from_bytes.outcome == bundle["events"][-1]["data"]["outcome"]
        # The parsed bundle, checked with every walk made, says the same.
        assert verify_bundle(copy.deepcopy(bundle), REGISTRY) == from_bytes


def test_an_edited_event_breaks_its_hash(bundle: Bundle) -> None:
    event = _first(bundle, _placement)
    event["recorded_at"] = event["recorded_at"].replace("20", "19", 1)
    assert _problems(bundle) == [
        f"version {event['version']}: the hash does not match the event (the event or hash "
        "was changed)"
    ]


def test_a_changed_hash_breaks_the_link_after_it_and_the_head(bundle: Bundle) -> None:
    event = _first(bundle, _placement)
    event["hash"] = "0" * 64
    n = event["version"]
    assert _problems(bundle) == [
        f"version {n}: the hash does not match the event (the event or hash was changed)",
        f"version {n + 1}: prev_hash is not the hash of the event before it",
    ]
    # The last event's hash changed: the bundle's head hash no longer matches it.
    bundle = _rechain(bundle)
    bundle["events"][-1]["hash"] = "f" * 64
    problems = _problems(bundle)
    assert problems[0].startswith(f"version {len(bundle['events'])}: the hash does not match")


def test_reordered_events_are_refused_in_place_and_once_rechained_by_the_rules(
    bundle: Bundle,
) -> None:
    events = bundle["events"]
    # Two knights placed one after the other by two seats.
    i = next(
        i
        for i, (a, b) in enumerate(pairwise(events))
        if _placement(a) and _placement(b) and a["data"]["seat"] != b["data"]["seat"]
    )
    a, b = events[i], events[i + 1]
    events[i], events[i + 1] = b, a
    problems = _problems(bundle)
    assert problems[0] == f"version {i + 1}: the event in this place says it is version {i + 2}"
    assert f"version {i + 1}: prev_hash is not the hash of the event before it" in problems
    # Renumbered and rechained, the links check: the rules say whose turn it was.
    b["version"], a["version"] = i + 1, i + 2
    _rechain(bundle, since=i + 1)
    assert _problems(bundle) == [f"version {i + 1}: seat {b['data']['seat']} was not to act"]


def test_a_vote_that_is_not_the_one_committed_to_is_refused(bundle: Bundle) -> None:
    vote = _first(bundle, _vote)
    assert vote["data"]["commitment"]
    _, yes, markers = vote["data"]["action"]
    # The chain hashes the commitment, not the vote: the links still check.
    vote["data"]["action"] = ["vote", not yes, markers]
    assert _problems(bundle) == [
        f"version {vote['version']}: the secret action (its vote, text or salt) does not match "
        "its commitment"
    ]
    vote["data"]["action"] = ["vote", yes, markers]
    vote["data"]["nonce"] = "0" * len(vote["data"]["nonce"])
    assert _problems(bundle) == [
        f"version {vote['version']}: the secret action (its vote, text or salt) does not match "
        "its commitment"
    ]


def test_a_wrong_seed_is_refused(bundle: Bundle) -> None:
    finished = bundle["events"][-1]
    revealed = finished["data"]["seed"]
    other = str(int(revealed) + 1)
    bundle["seed"] = other
    assert _problems(bundle) == [
        f"seed: the bundle's seed is not the one revealed at version {finished['version']}"
    ]
    # The reveal itself changed too (and rechained): not the seed committed to at creation.
    finished["data"]["seed"] = other
    _rechain(bundle, since=finished["version"])
    assert _problems(bundle) == [
        "seed: the seed does not match the commitment recorded at creation"
    ]


def test_an_action_the_rules_refuse_is_named_with_its_version(bundle: Bundle) -> None:
    event = _first(bundle, _placement)
    n, seat = event["version"], event["data"]["seat"]
    # A knight of a strength no court holds, rechained so that only the rules can tell.
    event["data"].update(
        action=["place", False, 99, ["county", "A"], 0], canonical="knight 99 to A"
    )
    _rechain(bundle, since=n)
    assert _problems(bundle) == [f"version {n}: 'knight 99 to A' was not legal for seat {seat}"]


def test_a_legal_action_with_another_recorded_text_or_log_is_refused(season: list[Bundle]) -> None:
    bundle = copy.deepcopy(season[0])
    event = _first(bundle, _placement)
    event["data"]["canonical"] += " "
    _rechain(bundle, since=event["version"])
    assert _problems(bundle) == [
        f"version {event['version']}: the recorded canonical text differs from the engine's"
    ]
    bundle = copy.deepcopy(season[0])
    event = _first(bundle, _placement)
    event["data"]["log"] = [*event["data"]["log"], "and a castle besides."]
    _rechain(bundle, since=event["version"])
    assert _problems(bundle) == [
        f"version {event['version']}: the recorded flags or log differ from the engine's"
    ]


def test_a_wrong_outcome_is_refused(bundle: Bundle) -> None:
    finished = bundle["events"][-1]
    scores = finished["data"]["outcome"]["scores"]
    finished["data"]["outcome"]["scores"] = [scores[-1], *scores[:-1]][::-1]
    if finished["data"]["outcome"]["scores"] == scores:
        finished["data"]["outcome"]["scores"] = [s + 1 for s in scores]
    _rechain(bundle, since=finished["version"])
    assert _problems(bundle) == [
        f"version {finished['version']}: the recorded outcome differs from the engine's"
    ]


@pytest.mark.parametrize(
    ("written", "refused"),
    [
        ('"seat":2.0', "events hold no floats (found 2.0): use integers or text"),
        ('"seat":1e0', "events hold no floats (found 1.0): use integers or text"),
    ],
)
def test_a_float_in_an_event_is_refused_when_read_from_its_bytes(
    bundle: Bundle, written: str, refused: str
) -> None:
    event = _first(bundle, _placement)
    event["data"]["seat"] = 2
    raw = _bytes_of(bundle).decode()
    at = raw.index(chain.canonical_json(event["data"]))
    changed = raw[:at] + raw[at:].replace('"seat":2', written, 1)
    report = verify_bytes(changed.encode(), REGISTRY)
    assert [str(p) for p in report.problems] == [
        f"version {event['version']}: the event cannot be hashed: {refused}"
    ]


def test_a_nul_character_in_an_event_is_refused_when_read_from_its_bytes(bundle: Bundle) -> None:
    event = _first(bundle, _placement)
    raw = _bytes_of(bundle).decode()
    recorded = json.dumps(event["data"]["canonical"], ensure_ascii=False)
    at = raw.index(chain.canonical_json(event["data"]))
    nul = recorded[:-1] + '\\u0000"'
    changed = raw[:at] + raw[at:].replace(f'"canonical":{recorded}', f'"canonical":{nul}', 1)
    report = verify_bytes(changed.encode(), REGISTRY)
    assert [str(p) for p in report.problems] == [
        f"version {event['version']}: the event cannot be hashed: events hold no NUL characters"
    ]


def test_a_game_offering_no_is_legal_is_checked_against_legal_actions(bundle: Bundle) -> None:
    """The fold's fallback for a game without ``is_legal``: the same refusal."""

    class WithoutIsLegal:
        def __init__(self, rules: Any) -> None:
            self._rules = rules

        def __getattr__(self, name: str) -> Any:
            if name == "is_legal":
                raise AttributeError(name)
            return getattr(self._rules, name)

    class Releases:
        def release(self, name: str, version: str) -> Any:
            return WithoutIsLegal(REGISTRY.release(name, version))

    assert verify_bytes(_bytes_of(bundle), Releases()).ok  # type: ignore[arg-type]
    event = _first(bundle, _placement)
    event["data"].update(
        action=["place", False, 99, ["county", "A"], 0], canonical="knight 99 to A"
    )
    _rechain(bundle, since=event["version"])
    report = verify_bytes(_bytes_of(bundle), Releases())  # type: ignore[arg-type]
    assert [p.message for p in report.problems] == [
        f"'knight 99 to A' was not legal for seat {event['data']['seat']}"
    ]


def _season_folder(folder: Path, season: list[Bundle]) -> list[Path]:
    folder.mkdir()
    paths = []
    for i, bundle in enumerate(season):
        path = folder / f"game-{i}.json"
        path.write_text(bundle_text(bundle), encoding="utf-8")
        paths.append(path)
    return paths


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, cwd=REPO, timeout=120
    )


def test_a_folder_of_exports_is_checked_in_one_call(season: list[Bundle], tmp_path: Path) -> None:
    paths = _season_folder(tmp_path / "season", season)
    ran = _run("-m", "pbem.audit.verify", str(tmp_path / "season"))
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    assert [line.split()[:2] for line in lines[:-1]] == [["ok", f"{p}:"] for p in paths]
    events = sum(len(b["events"]) for b in season)
    assert lines[-1].startswith(f"3 bundles: 3 ok, 0 FAILED; {events} events checked in ")

    # One tampered: its line says what failed, the others stay ok, and the exit code is 1.
    tampered = copy.deepcopy(season[2])
    vote = _first(tampered, _vote)
    vote["data"]["nonce"] = "0" * len(vote["data"]["nonce"])
    paths[2].write_text(bundle_text(tampered), encoding="utf-8")
    ran = _run("-m", "pbem.verify", str(paths[0]), str(tmp_path / "season"))
    assert ran.returncode == 1, ran.stderr
    lines = ran.stdout.splitlines()
    assert lines[3] == (
        f"FAILED  {paths[2]}: version {vote['version']}: the secret action (its vote, text or "
        "salt) does not match its commitment"
    )
    assert [line.split()[0] for line in lines[:-1]] == ["ok", "ok", "ok", "FAILED"]
    assert lines[-1].startswith("4 bundles: 3 ok, 1 FAILED;")


def test_a_folder_without_bundles_or_a_missing_path_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    ran = _run("-m", "pbem.audit.verify", str(tmp_path / "empty"), str(tmp_path / "empty"))
    assert ran.returncode == 2 and "no bundle (*.json) in" in ran.stderr
    ran = _run("-m", "pbem.audit.verify", str(tmp_path / "empty"), str(tmp_path / "nowhere"))
    assert ran.returncode == 2
    assert f"{tmp_path / 'nowhere'} is neither a bundle file nor a folder" in ran.stderr


def test_a_long_run_says_how_far_it_is(
    season: list[Bundle], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _season_folder(tmp_path / "season", season)
    (tmp_path / "season" / "notes.json").write_text("not a bundle", encoding="utf-8")
    monkeypatch.setattr(verifier, "PROGRESS_EVERY", 0.0)
    out, progress = io.StringIO(), io.StringIO()
    failed = verify_many(verifier.bundles_in([tmp_path / "season"]), REGISTRY, out, progress)
    assert failed == 1
    said = progress.getvalue().splitlines()
    assert [line.split(" (")[0] for line in said] == [
        f"... {n} of 4 bundles checked, 0 failed" for n in (1, 2, 3)
    ]
    assert all(line.endswith(" events/s)") for line in said)
    lines = out.getvalue().splitlines()
    assert [line.split()[:2] for line in lines[:3]] == [["ok", f"{p}:"] for p in paths]
    notes = tmp_path / "season" / "notes.json"
    assert lines[3].startswith(f"FAILED  {notes}: bundle: the file is not valid JSON")
    assert lines[4].startswith("4 bundles: 3 ok, 1 FAILED;")


def test_the_report_of_the_same_bundle_is_the_same_whatever_the_path(bundle: Bundle) -> None:
    """``verify_bundle`` (every value walked) and ``verify_bytes`` (the walk skipped for a
    bundle without floats or NULs) agree on a tampered bundle too."""
    event = _first(bundle, _placement)
    event["data"]["canonical"] = "knight 1 to Z"
    from_bytes: Report = verify_bytes(_bytes_of(bundle), REGISTRY)
    assert from_bytes.problems == verify_bundle(copy.deepcopy(bundle), REGISTRY).problems
    assert not from_bytes.ok


def test_a_nul_character_in_a_revealed_vote_is_refused_when_read_from_its_bytes(
    bundle: Bundle,
) -> None:
    """The vote's text is not in the chain's public form: its commitment is what finds it."""
    vote = _first(bundle, _vote)
    raw = _bytes_of(bundle).decode()
    at = raw.index(chain.canonical_json(vote["data"]))
    recorded = json.dumps(vote["data"]["text"], ensure_ascii=False)
    nul = recorded[:-1] + '\\u0000"'
    changed = raw[:at] + raw[at:].replace(f'"text":{recorded}', f'"text":{nul}', 1)
    report = verify_bytes(changed.encode(), REGISTRY)
    assert [str(p) for p in report.problems] == [
        f"version {vote['version']}: the secret action cannot be committed: events hold no NUL "
        "characters"
    ]
