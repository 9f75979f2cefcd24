"""Disputes from the command line, on SQLite and PostgreSQL: ``pbem dispute`` opens one,
``pbem audit`` prints the evidence (everything, or as a seat may see it), ``pbem admin
resolve`` dismisses or upholds, refusing what it cannot do with a message."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from web.cli import main


@pytest.fixture
def run(database_url: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    env = {"PBEM_DATABASE_URL": database_url, "PBEM_VAR_DIR": str(tmp_path / "var")}
    runner = CliRunner()

    def invoke(*args: str) -> Result:
        return runner.invoke(main, list(args), env=env, catch_exceptions=False)

    return invoke


def test_a_dispute_from_the_command_line_to_its_resolution(run) -> None:  # type: ignore[no-untyped-def]
    created = run("new-game", "lancelot", "--player", "Ann", "--player", "Bob")
    gid = re.search(r"game (\w+) \(lancelot\)", created.output).group(1)  # type: ignore[union-attr]
    admin = re.search(r"admin token: (\S+)", created.output).group(1)  # type: ignore[union-attr]
    run("act", gid, "0", "E5")
    run("act", gid, "1", "F6")
    assert run("audit", gid).output.splitlines()[-1] == "no disputes"
    opened = run("dispute", gid, "1", "3", "Ann played E5 after time")
    assert opened.exit_code == 0, opened.output
    assert opened.output.strip() == f"dispute 5 opened: game {gid} at version 5"
    report = run("audit", gid).output
    assert "dispute 5 (open) by Bob (Blue) about version(s) 3: “Ann played E5 after time”" in report
    assert "sent through cli at " in report and "canonical action: E5" in report
    assert "legal then: D4, D5" in report and "deadline: no time control" in report
    as_bob = run("audit", gid, "--seat", "1").output
    assert "public record only" in as_bob and "legal then" not in as_bob
    one = run("audit", gid, "--version", "3", "--seat", "0").output
    assert "canonical action: E5" in one
    no_such_seat = run("audit", gid, "--seat", "7")
    assert no_such_seat.exit_code == 1
    assert "There is no seat 7 in this game: its seats are 0 to 1." in no_such_seat.output
    backwards = run("dispute", gid, "0", "4-3", "the wrong way round")
    assert backwards.exit_code == 1
    assert "The first version must not be after the last: write 3-4" in backwards.output
    not_admin = run("admin", "resolve", gid, "5", "--dismiss", "--reason", "no", "--token", "x")
    assert not_admin.exit_code == 1 and "admin token" in not_admin.output
    no_reason = run("admin", "resolve", gid, "5", "--dismiss", "--token", admin)
    assert no_reason.exit_code == 1 and "Say why" in no_reason.output
    undecided = run("admin", "resolve", gid, "5", "--token", admin)
    assert undecided.exit_code == 2 and "--uphold or --dismiss" in undecided.output
    assert run("dispute", gid, "1", "3", "again").exit_code == 1  # one open per seat
    upheld = run("admin", "resolve", gid, "5", "--uphold", "--token", admin)
    assert upheld.exit_code == 0, upheld.output
    assert upheld.output.splitlines() == [
        f"dispute 5 upheld: game {gid} at version 7",
        "retracted versions 3, 4",
    ]
    assert "dispute 5 (upheld)" in run("audit", gid).output
    assert "resolved at version 6: the administrator upheld the dispute" in run("audit", gid).output
    assert "retracted at version 7" in run("audit", gid).output
    verified = run("replay", gid, "--verify")
    assert verified.exit_code == 0, verified.output
