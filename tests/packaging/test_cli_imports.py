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
#: Never imported by ``pbem mail-in`` nor ``pbem show``: the service's parts no reply and no
#: move uses (``pbem.app.service.Parts`` builds them when first asked for), and what they
#: import: the audit, webhooks' subscriptions and their address checks (``http.client``), the
#: mail queues, the pages' reads, open seats, seat links, the sweep's deadline moves and the
#: clock's changes by consent.
NOT_FOR_A_REPLY_OR_A_LOOK = ("pbem.audit", "pbem.webhooks.subscriptions",
                             "pbem.webhooks.safety", "pbem.webhooks.relay", "http.client",
                             "pbem.mail.queues", "pbem.play.pages_data",
                             "pbem.create.open_seats", "pbem.seats.tokens",
                             "pbem.clock.deadline_moves", "pbem.clock.consent")  # fmt: skip

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


def _under(modules: set[str], names: tuple[str, ...]) -> list[str]:
    """The modules that are one of ``names`` (dotted) or inside one of them."""
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


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


@pytest.fixture(scope="module")
def lancelot_turn(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Turn:
    """A Lancelot game whose invitations were accepted by ``pbem mail-in``, and its first
    turn mail (Ann's, to answer with a move)."""
    env = {
        **os.environ,
        "PBEM_DATABASE_URL": database_url,
        "PBEM_VAR_DIR": str(tmp_path_factory.mktemp("var")),
        "PBEM_SECRET_KEY": "cli-test-secret-0123456789",
    }
    turn = Turn(env)
    created = turn.pbem("new-game", "lancelot", "--player", "Ann <ann@example.org>",
                        "--player", "Bob <bob@example.org>")  # fmt: skip
    turn.game_id = re.search(r"game (\w+) \(lancelot\)", created).group(1)  # type: ignore[union-attr]
    for invitation in _outbox(database_url, turn.game_id):
        assert turn.pbem("mail-in", input=reply_to(invitation, "accept")).startswith("applied")
    turn.mail = next(m for m in _outbox(database_url, turn.game_id) if m.kind == "turn")
    return turn


class Turn:
    """The commands' environment, the game and its first turn mail."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.game_id = ""
        self.mail: OutboxMail | None = None

    def pbem(self, *args: str, input: bytes | None = None) -> str:
        result = CliRunner().invoke(
            main, list(args), env=self.env, input=input, catch_exceptions=False
        )
        assert result.exit_code == 0, result.output
        return result.output


def test_mail_in_applies_a_reply_without_the_web_layer(lancelot_turn: Turn) -> None:
    """One reply through ``pbem mail-in``, as an MTA pipes it: applied and stored, without
    Flask, the web layer's libraries or modules, the scheduler, another game's rules, or the
    service's parts a reply does not use."""
    turn = lancelot_turn
    assert turn.mail is not None
    modules, output = _imported(["mail-in"], stdin=reply_to(turn.mail, "E5"), env=turn.env)
    assert output == "applied: E5\n"
    assert "Ann (Red): E5" in turn.pbem("log", turn.game_id)
    assert "pbem.mail.inbound.pipeline" in modules  # the check sees what the command imported
    assert "pbem.webhooks.listener" in modules  # and a webhooks' module the append runs
    assert _of(modules, NOT_ON_THE_MAIL_PATH) == []
    assert sorted(m for m in modules if m.split(".")[0] == "web") == ["web", "web.cli"]
    assert _under(modules, NOT_FOR_A_REPLY_OR_A_LOOK) == []
    # A Lancelot game's reply: Lancaster's rules are not imported (engine.REGISTRY loads a
    # game's rules when it is first asked for).
    assert "engine.lancelot" in modules
    assert _of(modules, ("engine",)) == sorted(
        m for m in modules if m == "engine" or m.startswith(("engine.core", "engine.lancelot"))
    )


def test_show_prints_a_game_without_the_web_layer_or_unused_parts(lancelot_turn: Turn) -> None:
    """``pbem show`` starts as ``pbem mail-in`` does (the settings, the service): without the
    web layer or the service's parts it does not use."""
    modules, output = _imported(["show", lancelot_turn.game_id], env=lancelot_turn.env)
    assert lancelot_turn.game_id in output
    assert "pbem.app.service" in modules  # the check sees what the command imported
    assert _of(modules, NOT_ON_THE_MAIL_PATH) == []
    assert sorted(m for m in modules if m.split(".")[0] == "web") == ["web", "web.cli"]
    assert _under(modules, NOT_FOR_A_REPLY_OR_A_LOOK) == []


def _outbox(database_url: str, game_id: str) -> list[OutboxMail]:
    db = Database(database_url)
    with db.read() as session:
        rows = list(session.exec(select(OutboxMail).where(OutboxMail.game_id == game_id)))
        session.expunge_all()
    db.dispose()
    return rows
