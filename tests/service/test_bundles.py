"""Exports that verify offline, on SQLite and PostgreSQL: ``pbem export`` writes the events as
stored, ``pbem.audit.verify`` re-runs a finished game from them with the engine alone, every
single-byte change of a bundle fails naming what is wrong, and a seat's export never holds
another seat's unrevealed secret action (only its commitment), at any version of a game."""

from __future__ import annotations

import json
import random
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text
from sqlmodel import col, select

from pbem.app.service import GameService
from pbem.audit.export import bundle_of, bundle_text, export_game
from pbem.audit.verify import Report, verify_bundle, verify_bytes
from pbem.clock import events as ce
from pbem.core import chain
from pbem.core import events as ev
from pbem.core.db import Database
from pbem.core.models import Event
from pbem.core.replay import verify
from pbem.core.store import stored_event
from pbem.play.views import visible_events
from tests.helpers import database_of
from tests.service.helpers import REGISTRY
from tests.service.test_games import play

REPO = Path(__file__).resolve().parents[2]


def _play_to_the_end(service: GameService, gid: str, choose: random.Random) -> None:
    """Every seat to act plays a random legal action (in seat order) until the game ends."""
    for _ in range(5000):
        loaded = service.load(gid)
        if loaded.finished or not loaded.to_act:
            return
        seat = min(loaded.to_act)
        play(service, gid, seat, choose.choice(loaded.legal(seat)))
    raise AssertionError("the game did not finish")


def seeded_lancaster(
    service: GameService, monkeypatch: pytest.MonkeyPatch, players: int = 3
) -> str:
    """A 3-player Lancaster game with a fixed seed, played to the end by seeded choices."""
    monkeypatch.setattr(secrets, "randbits", lambda bits: 20261123)
    names = [{"name": f"P{i}", "email": f"p{i}@example.org"} for i in range(players)]
    gid = service.create_game("lancaster", {}, names).id
    monkeypatch.undo()  # the salts of the votes stay random
    _play_to_the_end(service, gid, random.Random(13))
    return gid


def _hoard(service: GameService) -> str:
    """A short finished game with secret stakes and an undo in its log."""
    gid = service.create_game("hoard", {"rounds": 2}, [{"name": "A"}, {"name": "B"}]).id
    for seat, move in [(0, "draw"), (1, "keep"), (0, "pass"), (1, "pass"), (0, "keep")]:
        play(service, gid, seat, move)
    service.undo(gid, 0, channel="api")
    for seat, move in [(0, "draw"), (1, "draw")]:
        play(service, gid, seat, move)
    play(service, gid, 0, f"stake {service.load(gid).view(0)['my_purse'][0]}")
    play(service, gid, 1, "pass")
    assert service.load(gid).finished
    return gid


def _rows(db: Database, gid: str) -> list[Event]:
    with db.read() as session:
        query = select(Event).where(Event.game_id == gid).order_by(col(Event.version))
        return list(session.exec(query).all())


def test_a_finished_lancaster_game_verifies_offline_and_its_scores_are_the_services(
    service: GameService, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    gid = seeded_lancaster(service, monkeypatch)
    bundle = export_game(database_of(service), gid)
    assert bundle["seed"] is not None and bundle["seen_by"] == "everything"
    # The events as stored: GameCreated in its stored schema version, hashes recomputable.
    assert [e["schema_version"] for e in bundle["events"][:1]] == [4]
    report = verify_bundle(bundle)
    assert report.ok, report.problems
    assert report.replayed and report.commitments_checked > 0 and report.sealed == 0
    assert report.outcome == service.load(gid).outcome
    # The same through the command every player can run, from the file.
    path = tmp_path / "bundle.json"
    path.write_text(bundle_text(bundle), encoding="utf-8")
    ran = subprocess.run(
        [sys.executable, "-m", "pbem.audit.verify", str(path)],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert ran.returncode == 0, ran.stderr
    scores = service.load(gid).outcome["scores"]  # type: ignore[index]
    assert "final scores:" in ran.stdout and f"seat 0: {scores[0]}" in ran.stdout
    assert ran.stdout.rstrip().endswith("OK")


def _spans(raw: bytes, bundle: dict[str, Any]) -> list[tuple[int, int, str]]:
    """Where each event, and the seed, lie in the bundle's bytes: (start, end, what)."""
    spans = []
    at = 0
    for e in bundle["events"]:
        text = chain.canonical_json(e).encode()
        start = raw.index(text, at)
        spans.append((start, start + len(text), f"version {e['version']}"))
        at = start + len(text)
    seed = f'"seed":{json.dumps(bundle["seed"])}'.encode()
    start = raw.index(seed)
    spans.append((start, start + len(seed), "seed"))
    return spans


def _names(report: Report, what: str) -> bool:
    """The report names ``what``: the version or field, or (a field's name changed) the event
    whose fields are no longer those of the format, or (no longer JSON) the position."""
    if any(p.message.startswith("the file is not") for p in report.problems):
        return True  # e.g. "not valid JSON: Expecting ',' delimiter: line 1 column 3381"
    if what.startswith("version "):
        n = what.split()[1]
        return any(
            p.where == what or f"event {n}:" in p.message or f"event {n} " in p.message
            for p in report.problems
        )
    return any(p.where in (what, "bundle") for p in report.problems)


def _check_changed(raw: bytes, spans: list[tuple[int, int, str]], i: int, byte: int) -> None:
    changed = raw[:i] + bytes([byte]) + raw[i + 1 :]
    report = verify_bytes(changed, REGISTRY)
    assert not report.ok, (i, raw[max(0, i - 30) : i + 30], bytes([byte]))
    what = next((w for start, end, w in spans if start <= i < end), None)
    if what is not None:
        assert _names(report, what), (i, what, report.problems)


def _other(byte: int) -> int:
    """A different byte of the same kind where there is one (a digit for a digit, a hex
    letter for a hex letter), so that most changes still parse and reach the checks."""
    c = chr(byte)
    for kind in ("0123456789", "abcdef", "ABCDEF", "ghijklmnopqrstuvwxyz"):
        if c in kind:
            return ord(kind[(kind.index(c) + 1) % len(kind)])
    return ord("x") if c != "x" else ord("y")


def test_every_single_byte_change_of_a_bundle_fails_naming_what_is_wrong(
    service: GameService,
) -> None:
    gid = _hoard(service)
    bundle = export_game(database_of(service), gid)
    raw = bundle_text(bundle).encode()
    assert verify_bytes(raw, REGISTRY).ok
    spans = _spans(raw, bundle)
    # Every byte of the file: the bundle is canonical JSON, so none is mere layout.
    for i in range(len(raw)):
        _check_changed(raw, spans, i, _other(raw[i]))


def test_any_byte_anywhere_in_a_lancaster_bundle_is_caught(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    gid = seeded_lancaster(service, monkeypatch)
    bundle = export_game(database_of(service), gid)
    raw = bundle_text(bundle).encode()
    spans = _spans(raw, bundle)

    # Bounded for CI: positions and replacement bytes drawn at random over the whole file.
    @settings(
        max_examples=150,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )
    @given(st.integers(0, len(raw) - 1), st.integers(0, 255))
    def changed(i: int, byte: int) -> None:
        if byte != raw[i]:
            _check_changed(raw, spans, i, byte)

    changed()


def test_a_seat_export_never_holds_another_seats_hidden_vote_at_any_version(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    gid = seeded_lancaster(service, monkeypatch)
    rows = _rows(database_of(service), gid)
    stored = [stored_event(r) for r in rows]
    hidden_seen = own_seen = 0
    for version in range(1, len(rows) + 1):
        for seat in range(3):
            bundle = bundle_of(gid, rows[:version], seat, stored[:version])
            text = bundle_text(bundle)
            # What the seat may see is what the views decide (pbem.play.views), independently.
            shown = visible_events(stored[:version], seat)
            for item, event in zip(shown, bundle["events"], strict=True):
                p = stored[item["version"] - 1].payload
                if not isinstance(p, ev.ActionApplied) or not p.secret:
                    continue
                assert p.nonce is not None and p.commitment is not None
                if item["data"].get("hidden"):
                    hidden_seen += 1
                    assert p.nonce not in text, (version, seat, item["version"])
                    assert not {"action", "canonical", "text", "nonce"} & set(event["data"])
                    assert event["data"]["commitment"] == p.commitment
                elif p.seat == seat:
                    own_seen += 1
                    assert event["data"]["nonce"] == p.nonce  # its own receipt
            report = verify_bundle(json.loads(text))
            assert report.ok, (version, seat, report.problems)
            assert report.replayed == (version == len(rows))
    assert hidden_seen > 0 and own_seen > 0


def test_a_secret_action_changed_in_a_bundle_fails_its_commitment(
    service: GameService,
) -> None:
    gid = _hoard(service)
    bundle = export_game(database_of(service), gid)
    votes = [
        e
        for e in bundle["events"]
        if e["type"] == ev.ACTION_APPLIED and e["data"]["commitment"] is not None
    ]
    assert votes
    vote = votes[0]
    changes = (("action", ["pass"]), ("canonical", "pass"), ("text", "pass"), ("nonce", "0" * 32))
    for key, value in changes:
        if vote["data"][key] == value:
            continue
        forged = json.loads(bundle_text(bundle))
        forged["events"][vote["version"] - 1]["data"][key] = value
        report = verify_bundle(forged, REGISTRY)
        assert [p.where for p in report.problems] == [f"version {vote['version']}"]
        assert "does not match its commitment" in report.problems[0].message


def test_the_cli_exports_and_checks_a_bundle(
    service: GameService, database_url: str, tmp_path: Path
) -> None:
    from click.testing import CliRunner

    from web.cli import main

    gid = service.create_game("lancelot", {}, [{"name": "A"}, {"name": "B"}]).id
    _play_to_the_end(service, gid, random.Random(5))
    env = {"PBEM_DATABASE_URL": database_url, "PBEM_VAR_DIR": str(tmp_path / "var")}
    runner = CliRunner()
    out = tmp_path / "seat1.json"
    made = runner.invoke(main, ["export", gid, "--seat", "1", "-o", str(out)], env=env)
    assert made.exit_code == 0, made.output
    assert json.loads(out.read_text())["seen_by"] == "seat 1"
    checked = runner.invoke(main, ["verify-export", str(out)], env=env)
    assert checked.exit_code == 0, checked.output
    assert "re-run by the rules" in checked.output
    forged = json.loads(out.read_text())
    forged["seed"] = "1" + forged["seed"]
    out.write_text(bundle_text(forged))
    failed = runner.invoke(main, ["verify-export", str(out)], env=env)
    assert failed.exit_code == 1 and "FAILED at seed:" in failed.output
    wrong = runner.invoke(main, ["export", gid, "--seat", "7"], env=env)
    assert wrong.exit_code == 1 and "not seat 7" in wrong.output


def _rechained(bundle: dict[str, Any], version: int, change: dict[str, Any]) -> dict[str, Any]:
    """The bundle with one event's payload changed and every hash from it recomputed, as a
    forger who controls the whole file would do: only the rules can tell."""
    forged = json.loads(bundle_text(bundle))
    prev = forged["events"][version - 2]["hash"]
    for e in forged["events"][version - 1 :]:
        if e["version"] == version:
            e["data"].update(change)
        e["prev_hash"] = prev
        e["hash"] = prev = chain.chain_hash(
            prev,
            chain.canonical_event(
                forged["game_id"],
                e["version"],
                e["type"],
                e["schema_version"],
                e["data"],
                e["recorded_at"],
            ),
        )
    forged["head_hash"] = prev
    return forged


def test_a_rechained_forgery_is_caught_by_re_running_the_rules(service: GameService) -> None:
    gid = _hoard(service)
    bundle = export_game(database_of(service), gid)
    # Version 4 is seat 1's "keep" in the draw phase: make it a stake it cannot make.
    assert bundle["events"][3]["data"]["canonical"] == "keep"
    illegal = _rechained(bundle, 4, {"action": ["pass"], "canonical": "pass", "text": "pass"})
    report = verify_bundle(illegal, REGISTRY)
    assert [str(p) for p in report.problems] == ["version 4: 'pass' was not legal for seat 1"]
    outcome = dict(bundle["events"][-1]["data"]["outcome"], scores=[99, 0])
    changed = _rechained(bundle, len(bundle["events"]), {"outcome": outcome})
    report = verify_bundle(changed, REGISTRY)
    assert [p.message for p in report.problems] == [
        "the recorded outcome differs from the engine's"
    ]


def test_a_game_recorded_before_commitments_still_verifies_and_its_seat_export_checks(
    service: GameService,
) -> None:
    """Votes stored as ActionApplied V1 (hashed whole, no commitment), as every game recorded
    before commitments existed: the stored bytes stay as they are and still verify; a seat's
    export leaves such an unrevealed vote out whole and its chain still links."""
    gid = service.create_game("hoard", {"rounds": 2}, [{"name": "A"}, {"name": "B"}]).id
    for seat, move in [(0, "draw"), (1, "draw")]:
        play(service, gid, seat, move)
    play(service, gid, 0, f"stake {service.load(gid).view(0)['my_purse'][0]}")
    # Rewrite the log as the service wrote it before: V1 payloads, chained whole.
    prev = chain.GENESIS_HASH
    with database_of(service).write() as s:
        for e in _rows(database_of(service), gid):
            data = json.loads(e.data)
            schema_version = e.schema_version
            if e.type == ev.ACTION_APPLIED:
                data.pop("commitment", None)
                schema_version = 1
            body = chain.canonical_json(data)
            digest = chain.chain_hash(
                prev,
                chain.canonical_event(gid, e.version, e.type, schema_version, data, e.recorded_at),
            )
            s.execute(
                text(
                    "UPDATE events SET data = :d, schema_version = :sv, prev_hash = :p, "
                    "hash = :h WHERE game_id = :g AND version = :v"
                ),
                {"d": body, "sv": schema_version, "p": prev, "h": digest, "g": gid, "v": e.version},
            )
            prev = digest
        s.execute(text("UPDATE games SET head_hash = :h WHERE id = :g"), {"h": prev, "g": gid})
        s.execute(text("DELETE FROM snapshots WHERE game_id = :g"), {"g": gid})  # a cache
    seat_view = bundle_of(gid, _rows(database_of(service), gid), 1)
    vote = seat_view["events"][-1]
    assert vote["type"] == ev.ACTION_APPLIED and vote["data"] is None
    report = verify_bundle(seat_view, REGISTRY)
    assert report.ok and report.sealed == 1, report.problems
    play(service, gid, 1, "pass")  # the new vote is V2, committed; the old one is revealed
    while not service.load(gid).finished:
        loaded = service.load(gid)
        seat = min(loaded.to_act)
        play(service, gid, seat, loaded.legal(seat)[0])
    with database_of(service).read() as s:
        assert verify(s, gid, service.registry).ok
    full = export_game(database_of(service), gid)
    assert [e["schema_version"] for e in full["events"] if e["type"] == ev.ACTION_APPLIED][:3] == [
        1,
        1,
        1,
    ]
    report = verify_bundle(full, REGISTRY)
    assert report.ok and report.replayed and report.commitments_checked >= 1, report.problems


def test_an_old_events_json_is_labelled_with_the_schema_version_of_its_data() -> None:
    """A GameCreated stored as V1 is read upcast to V2 (``private`` added): its JSON says V2,
    the version its data is in, and the bundle carries the stored V1 bytes instead."""
    v1 = {
        "game": "lancelot",
        "rules_version": "1",
        "config": {"players": 2},
        "seats": [{"seat": 0, "name": "A", "email": None}, {"seat": 1, "name": "B", "email": None}],
        "seed_commitment": chain.seed_commitment(1),
        "channel": "api",
    }
    text_v1 = chain.canonical_json(v1)
    digest = chain.chain_hash(
        chain.GENESIS_HASH, chain.canonical_event("g", 1, ev.GAME_CREATED, 1, v1, "t")
    )
    row = Event(
        game_id="g",
        version=1,
        type=ev.GAME_CREATED,
        schema_version=1,
        data=text_v1,
        recorded_at="t",
        prev_hash=chain.GENESIS_HASH,
        hash=digest,
    )
    shown = stored_event(row).to_json()
    assert shown["data"]["private"] is False
    ev.SCHEMAS[(ev.GAME_CREATED, shown["schema_version"])].load(shown["data"])
    carried = bundle_of("g", [row], None)["events"][0]
    assert carried["schema_version"] == 1 and chain.canonical_json(carried["data"]) == text_v1
    assert verify_bundle(bundle_of("g", [row], None)).ok


def test_a_seat_export_leaves_out_the_other_seats_standing_orders(service: GameService) -> None:
    names = [{"name": f"Q{i}", "email": f"q{i}-{secrets.token_hex(3)}@example.org"} for i in (0, 1)]
    gid = service.create_game("lancelot", {}, names, time_control="48h").id
    for seat in (0, 1):
        service.accept_invitation(gid, seat, channel="web")
    # Bob keeps a move for his next deadline while it is Ann's turn: his own plan.
    service.set_standing_order(gid, 1, "K11", channel="api")
    _play_to_the_end(service, gid, random.Random(5))
    anns = export_game(database_of(service), gid, seat=0)
    orders = [e for e in anns["events"] if e["type"] == ce.STANDING_ORDER_SET]
    assert len(orders) == 1 and orders[0]["data"] is None
    assert "K11" not in json.dumps(orders)
    report = verify_bundle(anns, REGISTRY)
    # The finished game still verifies: a withheld order is no unrevealed secret action.
    assert report.ok and report.replayed, report.problems
    assert report.orders_withheld == 1 and report.sealed == 0
    bobs = export_game(database_of(service), gid, seat=1)
    [own] = [e for e in bobs["events"] if e["type"] == ce.STANDING_ORDER_SET]
    assert own["data"]["text"] == "K11"
    assert verify_bundle(bobs, REGISTRY).ok
