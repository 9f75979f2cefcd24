"""Private games in the service and the log, on SQLite and PostgreSQL: ``private`` is recorded
in GameCreated (schema version 2), projected to ``games.private``, rebuilt identically from
the log by ``pbem db rebuild-projections`` and checked by ``pbem replay --verify``; a game
stored before the flag existed (GameCreated version 1) reads as public; ``can_see`` lets only
the seats and the admin see a private game, and ``list_games`` never lists one."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from sqlalchemy import text

import engine
from pbem.app.bootstrap import build_service
from pbem.app.service import GameService
from pbem.core import events as ev
from pbem.core.db import Database
from pbem.core.errors import GameNotFound
from pbem.core.projections.runner import snapshot_rows
from tests.settings import make_settings
from web.cli import main

PLAYERS = [{"name": "Ann"}, {"name": "Bob"}]


@pytest.fixture
def service(database: Database, tmp_path: Path) -> GameService:
    return build_service(
        make_settings(database.url, tmp_path), db=database, registry=engine.REGISTRY
    )


@pytest.fixture
def run(database: Database, tmp_path: Path):  # type: ignore[no-untyped-def]
    env = {"PBEM_DATABASE_URL": database.url, "PBEM_VAR_DIR": str(tmp_path / "var")}

    def invoke(*args: str) -> Result:
        return CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)

    return invoke


def _play(service: GameService, gid: str) -> None:
    loaded = service.load(gid)
    seat = min(loaded.to_act)
    action = loaded.rules.format_action(loaded.state, loaded.rules.auto_action(loaded.state, seat))
    service.submit(gid, seat, action, expected_version=loaded.version, channel="api")


def _private_column(database: Database, gid: str) -> Any:
    with database.read() as session:
        return session.execute(
            text("SELECT private FROM games WHERE id = :g"), {"g": gid}
        ).scalar_one()


def test_only_its_seats_and_admin_can_see_a_private_game(service: GameService) -> None:
    private = service.create_game("lancelot", {}, PLAYERS, private=True)
    public = service.create_game("lancelot", {}, PLAYERS)
    created = service.raw_events(private.id)[0].payload
    assert isinstance(created, ev.GameCreated) and created.private is True
    assert service.raw_events(private.id)[0].schema_version == 4
    assert not service.can_see(private.id)
    assert not service.can_see(private.id, token="nope")
    assert not service.can_see(private.id, token=public.admin_token)
    assert not service.can_see(private.id, token=public.seats[0].token)
    assert service.can_see(private.id, token=private.seats[1].token)
    assert service.can_see(private.id, token=private.admin_token)
    assert service.can_see(private.id, seat=0)  # a seat the caller authenticated
    assert service.can_see(public.id) and not service.can_see("0123456789")
    with pytest.raises(GameNotFound, match=f"There is no game '{private.id}'"):
        service.check_can_see(private.id, token="nope")
    # A wrong token is "no such game", not "wrong token": the game is not confirmed.
    with pytest.raises(GameNotFound):
        service.seat_for_token(private.id, public.seats[0].token)
    assert service.seat_for_token(private.id, private.seats[1].token) == 1
    listed = {g["id"] for g in service.list_games()}
    assert public.id in listed and private.id not in listed


def test_the_flag_survives_rebuild_and_replay_verify(
    service: GameService, database: Database, run: Any
) -> None:
    made = run("new-game", "lancelot", "--private", "--player", "Ann", "--player", "Bob")
    assert made.exit_code == 0, made.output
    assert "private: only its seats and admin see it" in made.output
    found = re.search(r"game (\w+) \(lancelot\)", made.output)
    assert found is not None
    private = found.group(1)
    assert private not in run("games").output
    public = service.create_game("lancelot", {}, PLAYERS).id
    for gid in (private, public):
        _play(service, gid)
    assert _private_column(database, private) and not _private_column(database, public)
    exported = json.loads(run("export", private).output)
    assert exported["events"][0]["data"]["private"] is True
    with database.read() as session:
        before = {gid: snapshot_rows(session, gid) for gid in (private, public)}
    with database.write() as s:  # the rebuild must come from the events alone
        for table in ("games", "seats", "undo_requests"):
            s.execute(text(f"DELETE FROM {table}"))
    rebuilt = run("db", "rebuild-projections")
    assert rebuilt.exit_code == 0, rebuilt.output
    with database.read() as session:
        assert {gid: snapshot_rows(session, gid) for gid in (private, public)} == before
    assert _private_column(database, private) and not _private_column(database, public)
    for gid in (private, public):
        verified = run("replay", gid, "--verify")
        assert verified.exit_code == 0, verified.output
        assert (
            "read models (games, seats, undo requests, disputes) match the log" in verified.output
        )
    # A games row that no longer agrees with the log's flag is named.
    with database.write() as s:
        s.execute(text("UPDATE games SET private = :f WHERE id = :g"), {"f": False, "g": private})
    changed = run("replay", private, "--verify")
    assert changed.exit_code == 1, changed.output
    assert f"games ({private}), column private" in changed.output


def _store_as_version_1(database: Database, gid: str) -> None:
    """Rewrite the game's GameCreated as schema version 1 (no ``private``), re-chaining every
    event after it: the game as it was stored before the flag existed."""
    with database.write() as s:
        rows = s.execute(
            text(
                "SELECT version, type, schema_version, data, recorded_at FROM events "
                "WHERE game_id = :g ORDER BY version"
            ),
            {"g": gid},
        ).all()
        prev = ev.GENESIS_HASH
        for version, type_, schema_version, data, recorded_at in rows:
            payload = json.loads(data)
            if type_ == ev.GAME_CREATED:
                assert payload.pop("private") is False
                payload.pop("invited")  # V3's field, which came later still
                assert payload.pop("open_seats") == []  # V4's, later again
                schema_version = 1
            stored = ev.canonical_json(payload)
            digest = ev.chain_hash(
                prev,
                ev.canonical_event(gid, version, type_, schema_version, payload, recorded_at),
            )
            s.execute(
                text(
                    "UPDATE events SET schema_version = :sv, data = :d, prev_hash = :p, "
                    "hash = :h WHERE game_id = :g AND version = :v"
                ),
                {"sv": schema_version, "d": stored, "p": prev, "h": digest, "g": gid, "v": version},
            )
            prev = digest
        s.execute(text("UPDATE games SET head_hash = :h WHERE id = :g"), {"h": prev, "g": gid})


def test_a_game_stored_before_the_flag_reads_as_public(
    service: GameService, database: Database, run: Any
) -> None:
    gid = service.create_game("lancelot", {}, PLAYERS).id
    _play(service, gid)
    _store_as_version_1(database, gid)
    fresh = build_service(service.settings, db=database, registry=engine.REGISTRY)
    first = fresh.raw_events(gid)[0]
    assert first.schema_version == 1
    assert isinstance(first.payload, ev.GameCreated) and first.payload.private is False
    verified = run("replay", gid, "--verify")
    assert verified.exit_code == 0, verified.output
    with database.write() as s:
        s.execute(text("DELETE FROM games WHERE id = :g"), {"g": gid})
    assert run("db", "rebuild-projections").exit_code == 0
    assert _private_column(database, gid) in (False, 0)
    assert fresh.can_see(gid) and gid in {g["id"] for g in fresh.list_games()}
    _play(fresh, gid)  # it goes on being played
    assert run("replay", gid, "--verify").exit_code == 0
