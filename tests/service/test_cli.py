"""The ``pbem`` command line, on SQLite and PostgreSQL: from ``db upgrade`` to ``replay
--verify`` (which must fail, naming the version, once a stored byte changes)."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sqlalchemy import text

from pbem.core.db import Database
from web.cli import main

# The console command as installed (its entry point is web.cli:main).
PBEM = str(Path(sys.executable).with_name("pbem"))


@pytest.fixture
def run(database_url: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    env = {"PBEM_DATABASE_URL": database_url, "PBEM_VAR_DIR": str(tmp_path / "var")}
    runner = CliRunner()

    def invoke(*args: str) -> Result:
        return runner.invoke(main, list(args), env=env, catch_exceptions=False)

    return invoke


def _new_game(run) -> tuple[str, list[str]]:  # type: ignore[no-untyped-def]
    result = run("new-game", "lancelot", "--player", "Ann <ann@example.org>", "--player", "Bob")
    assert result.exit_code == 0, result.output
    game_id = re.search(r"game (\w+) \(lancelot\)", result.output).group(1)  # type: ignore[union-attr]
    tokens = re.findall(r"token (\S+)", result.output)
    return game_id, tokens


def test_a_game_from_the_command_line(run, database_url: str) -> None:  # type: ignore[no-untyped-def]
    assert run("db", "upgrade").exit_code == 0
    gid, tokens = _new_game(run)
    assert len(tokens) == 2
    listed = next(line for line in run("games").output.splitlines() if line.startswith(gid))
    assert listed == f"{gid}  lancelot   v2     to act: Ann      Ann, Bob", listed
    assert run("act", gid, "0", "E5").output.strip() == "v3: Ann (Red) (seat 0) played E5"
    refused = run("act", gid, "0", "F5")
    assert refused.exit_code == 1 and "not your turn" in refused.output
    assert run("act", gid, "1", "zz").exit_code == 1
    stale = run("act", gid, "1", "F6", "--expected-version", "2")
    assert stale.exit_code == 1 and "moved on" in stale.output
    assert "v4: Bob (Blue) (seat 1) played F6" in run("act", gid, "1", "F6").output
    shown = run("show", gid, "--seat", "0")
    assert "version 4" in shown.output and "you can play:" in shown.output
    past = json.loads(run("show", gid, "--at", "3", "--json").output)
    assert past["version"] == 3 and past["latest"] is False
    log = run("log", gid).output.splitlines()
    assert [line.split()[0] for line in log] == ["1", "2", "3", "4"]
    assert "Ann (Red): E5 — Ann (Red) placed a knight on E5." in log[2]
    verified = run("replay", gid, "--verify")
    assert verified.exit_code == 0, verified.output
    assert re.search(r"final state hash [0-9a-f]{64}", verified.output)
    assert (
        f"{gid}: 4 events chain and legality verified; seed committed (revealed when the game "
        "ends)\n" in verified.output
    ), verified.output
    bundle = json.loads(run("export", gid).output)
    assert bundle["rules"] == {"name": "lancelot", "version": bundle["rules"]["version"]}
    assert [e["version"] for e in bundle["events"]] == [1, 2, 3, 4]
    assert bundle["head_hash"] == bundle["events"][-1]["hash"]
    assert bundle["seed"] is None  # not finished: the seed stays secret


def test_replay_verify_fails_and_names_the_version_of_a_changed_byte(
    run, database_url: str
) -> None:  # type: ignore[no-untyped-def]
    gid, _ = _new_game(run)
    run("act", gid, "0", "E5")
    run("act", gid, "1", "F6")
    db = Database(database_url)
    with db.write() as s:
        s.execute(
            text(
                "UPDATE events SET recorded_at = replace(recorded_at, 'Z', 'z') "
                "WHERE game_id = :g AND version = 3"
            ),
            {"g": gid},
        )
    db.dispose()
    result = run("replay", gid, "--verify")
    assert result.exit_code == 1
    assert "first bad version 3" in result.output
    assert "version 3: the hash does not match" in result.output


def test_unknown_game_and_bad_options_are_explained(run) -> None:  # type: ignore[no-untyped-def]
    missing = run("show", "nosuchgame")
    assert missing.exit_code == 1 and "There is no game 'nosuchgame'" in missing.output
    bad = run("new-game", "lancelot", "--player", "A", "--player", "B", "--config", "{x")
    assert bad.exit_code == 2 and "not JSON" in bad.output
    wrong = run("new-game", "lancelot", "--player", "A")
    assert wrong.exit_code == 1 and "2, 3, 4, 5 players" in wrong.output


def test_demo_prints_a_link_per_seat(run) -> None:  # type: ignore[no-untyped-def]
    result = run("demo")
    assert result.exit_code == 0
    links = re.findall(r"http://127\.0\.0\.1:5000/games/\w+\?token=\S+", result.output)
    assert len(links) == 2


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_answers_http(tmp_path: Path) -> None:
    port = _free_port()
    url = f"sqlite:///{tmp_path}/serve.db"
    env = {**os.environ, "PBEM_DATABASE_URL": url, "PBEM_VAR_DIR": str(tmp_path)}
    subprocess.run([PBEM, "db", "upgrade"], env=env, check=True)
    server = subprocess.Popen(
        [PBEM, "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/games") as r:
                    assert r.status == 200
                    assert "games" in json.loads(r.read())
                    break
            except OSError:
                assert time.monotonic() < deadline, "pbem serve did not answer within 30 s"
                time.sleep(0.2)
    finally:
        server.terminate()
        server.communicate(timeout=10)  # also closes its output pipe


def test_a_database_without_tables_or_server_is_explained(tmp_path: Path) -> None:
    runner = CliRunner()
    for url in (f"sqlite:///{tmp_path}/empty.db", "postgresql://pbem:hunter2@127.0.0.1:1/x"):
        env = {"PBEM_DATABASE_URL": url, "PBEM_VAR_DIR": str(tmp_path / "var")}
        result = runner.invoke(main, ["games"], env=env)
        assert result.exit_code == 1, result.output
        assert "cannot be used" in result.output and "pbem db upgrade" in result.output
        assert "Traceback" not in result.output and "hunter2" not in result.output


def test_serve_has_dev_pages_only_with_dev_and_never_beyond_loopback(
    run, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    from flask import Flask

    served: list[tuple[str, bool]] = []

    def fake_run(self: Flask, host: str, **kw: object) -> None:
        served.append((host, "devmail" in self.blueprints))

    monkeypatch.setattr(Flask, "run", fake_run)
    monkeypatch.setenv("PBEM_MAIL_EMBEDDED_SCHEDULER", "false")
    assert run("serve").exit_code == 0
    assert run("serve", "--host", "0.0.0.0").exit_code == 0  # no dev pages: may be shared
    assert run("serve", "--dev").exit_code == 0  # what make run does
    assert served == [("127.0.0.1", False), ("0.0.0.0", False), ("127.0.0.1", True)]
    # Beyond loopback the development pages are refused before anything starts, whether
    # asked for by the flag or by the setting.
    shared = run("serve", "--dev", "--host", "0.0.0.0")
    monkeypatch.setenv("PBEM_DEV_PAGES", "true")
    by_setting = run("serve", "--host", "192.168.1.5")
    for refused in (shared, by_setting):
        assert refused.exit_code == 1, refused.output
        assert "Refusing to start: dev_pages is on" in refused.output
        assert "/dev/mail" in refused.output and "dev_pages = false" in refused.output
    assert len(served) == 3


def test_replay_verify_says_the_seed_is_verified_once_the_game_is_over(  # type: ignore[no-untyped-def]
    run, service
) -> None:
    gid, _ = _new_game(run)
    run("act", gid, "0", "E5")
    service.resign(gid, 1, channel="api")
    assert service.load(gid).finished
    verified = run("replay", gid, "--verify")
    assert verified.exit_code == 0, verified.output
    assert f"{gid}: 5 events chain, legality and seed verified\n" in verified.output
