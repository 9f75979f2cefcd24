"""What a ``pbem`` command imports at start: every command is a process of its own (a shell,
cron, an MTA's pipe for each mail), so ``pbem --help`` must not pay for the web framework,
the database library or the rules engines, and ``pbem mail-in`` not for the web framework.

Each check runs in a fresh interpreter (the test process has imported everything already)
and reads ``sys.modules`` after the command ran, so an import added anywhere on the way, in
any module, fails it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlmodel import select

from pbem.cli.main import main
from pbem.core.db import Database
from pbem.mail.models import OutboxMail
from tests.mail.helpers import reply_to

ROOT = Path(__file__).resolve().parents[2]

#: Never imported by ``pbem --help`` (nor by the command modules' import).
HEAVY = ("flask", "werkzeug", "jinja2", "sqlalchemy", "sqlmodel", "psycopg", "pydantic",
         "pydantic_settings", "marshmallow", "apscheduler", "alembic", "engine")  # fmt: skip
#: Never imported by ``pbem mail-in``: the web framework and its libraries, the scheduler
#: (the web layer's own modules: below).
NOT_ON_THE_MAIL_PATH = ("flask", "werkzeug", "flask_smorest", "flask_wtf", "webargs",
                        "apispec", "apscheduler")  # fmt: skip

_RUN = """
import json, sys
from web.cli import main
code = 0
try:
    main(sys.argv[1:], prog_name="pbem")
except SystemExit as end:
    code = end.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def _imported(
    args: list[str], stdin: bytes = b"", env: dict[str, str] | None = None
) -> tuple[set[str], str]:
    """The modules a fresh ``pbem ARGS`` had imported when it ended (exit status 0), and
    what it printed."""
    done = subprocess.run(
        [sys.executable, "-c", _RUN, *args],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        env=env,
        check=False,
        timeout=120,
    )
    report = json.loads(done.stderr.decode().splitlines()[-1])
    assert report["code"] in (0, None), done.stdout.decode() + done.stderr.decode()
    return set(report["modules"]), done.stdout.decode()


def _of(modules: set[str], packages: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in packages)


def test_help_imports_no_framework_database_or_engine() -> None:
    modules, output = _imported(["--help"])
    assert "mail-in" in output and "serve" in output
    assert "click" in modules  # the check sees what the command imported
    assert _of(modules, HEAVY) == []


@pytest.mark.parametrize("command", ["mail-in", "show", "serve", "db", "admin", "mail"])
def test_a_commands_help_imports_no_framework_database_or_engine(command: str) -> None:
    modules, output = _imported([command, "--help"])
    assert output.startswith(f"Usage: pbem {command}")
    assert _of(modules, HEAVY) == []


def test_mail_in_applies_a_reply_without_the_web_layer(database_url: str, tmp_path: Path) -> None:
    """One reply through ``pbem mail-in``, as an MTA pipes it: applied and stored, without
    Flask, the web layer's libraries or modules, the scheduler, or another game's rules."""
    env = {
        **os.environ,
        "PBEM_DATABASE_URL": database_url,
        "PBEM_VAR_DIR": str(tmp_path / "var"),
        "PBEM_SECRET_KEY": "cli-test-secret-0123456789",
    }
    runner = CliRunner()

    def pbem(*args: str, input: bytes | None = None) -> str:
        result = runner.invoke(main, list(args), env=env, input=input, catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output

    created = pbem("new-game", "lancelot", "--player", "Ann <ann@example.org>",
                   "--player", "Bob <bob@example.org>")  # fmt: skip
    game_id = re.search(r"game (\w+) \(lancelot\)", created).group(1)  # type: ignore[union-attr]
    for invitation in _outbox(database_url, game_id):
        assert pbem("mail-in", input=reply_to(invitation, "accept")).startswith("applied")
    turn = next(m for m in _outbox(database_url, game_id) if m.kind == "turn")

    modules, output = _imported(["mail-in"], stdin=reply_to(turn, "E5"), env=env)
    assert output == "applied: E5\n"
    assert "Ann (Red): E5" in pbem("log", game_id)
    assert "pbem.mail.inbound.pipeline" in modules  # the check sees what the command imported
    assert _of(modules, NOT_ON_THE_MAIL_PATH) == []
    assert sorted(m for m in modules if m.split(".")[0] == "web") == ["web", "web.cli"]
    # A Lancelot game's reply: Lancaster's rules are not imported (engine.REGISTRY loads a
    # game's rules when it is first asked for).
    assert "engine.lancelot" in modules
    assert _of(modules, ("engine",)) == sorted(
        m for m in modules if m == "engine" or m.startswith(("engine.core", "engine.lancelot"))
    )


def _outbox(database_url: str, game_id: str) -> list[OutboxMail]:
    db = Database(database_url)
    with db.read() as session:
        rows = list(session.exec(select(OutboxMail).where(OutboxMail.game_id == game_id)))
        session.expunge_all()
    db.dispose()
    return rows
