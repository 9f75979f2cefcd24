"""The ``pbem`` command line (click): the service's commands.

``serve`` runs the web layer, which sits above this package, so it is added where the web
layer is: ``web/cli.py`` assembles the ``pbem`` console command from this group and it.

Every ``pbem`` command is a process of its own (a shell, cron, an MTA's pipe per mail), so
this package imports at its top only click and small modules of the standard library's
weight: a command imports what it uses when it runs (the settings, the service, the
engines), and ``pbem --help`` none of it (tests/packaging/test_cli_imports.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from pbem.cli.support import SEAT, VERSION, WholeNumber, service_errors, time_control_option
from pbem.core.errors import DatabaseUnusable

if TYPE_CHECKING:
    from pbem.app.config import Settings
    from pbem.app.service import GameService


class Context:
    def __init__(self, config: str | None) -> None:
        self.config = config
        self._settings: Settings | None = None
        self._service: GameService | None = None

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            from pbem.app.config import SettingsError, load_settings

            try:
                self._settings = load_settings(self.config)
            except SettingsError as e:
                raise click.ClickException(str(e)) from None
        return self._settings

    @property
    def service(self) -> GameService:
        if self._service is None:
            from pbem.app.bootstrap import build_service

            self._service = build_service(self.settings)
        return self._service

    def close(self) -> None:
        """Release the database connections the command opened (its engine's pool)."""
        if self._service is not None:
            self._service.release_connections()


pass_context = click.make_pass_decorator(Context)


class _Main(click.Group):
    """The ``pbem`` group: a database that cannot be reached or is not set up ends a command
    with what to do about it, not a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except Exception:
            # A command that opened no database imported no database library: its error is
            # not the database's. Otherwise the composition root (imported by the command
            # when it built the service) says whether it is.
            if "sqlalchemy" not in sys.modules:
                raise
            from pbem.app.bootstrap import database_errors

            def database_url() -> str:
                obj = ctx.obj
                return obj.settings.database_url if isinstance(obj, Context) else "(unknown)"

            try:
                with database_errors(database_url):
                    raise
            except DatabaseUnusable as e:
                raise click.ClickException(e.message) from None


@click.group(cls=_Main)
@click.option(
    "--config",
    type=click.Path(dir_okay=False),
    default=None,
    help="Settings file (default: PBEM_CONFIG or config/default.toml).",
)
@click.version_option(package_name="pbem")
@click.pass_context
def main(ctx: click.Context, config: str | None) -> None:
    """pbem: play turn-based board games by email, on the web or through the API."""
    ctx.obj = Context(config)
    ctx.call_on_close(ctx.obj.close)


@main.group()
def db() -> None:
    """The database schema (Alembic migrations)."""


@db.command("upgrade")
@click.option("--revision", default="head", show_default=True)
@pass_context
def db_upgrade(obj: Context, revision: str) -> None:
    """Create or upgrade the schema to the latest migration."""
    from pbem.app.bootstrap import upgrade_database

    revisions = upgrade_database(obj.settings, revision)
    click.echo(f"database at {', '.join(sorted(revisions))}")


@db.command("rebuild-projections")
@pass_context
def db_rebuild_projections(obj: Context) -> None:
    """Rebuild every read model (games, seats, undo requests, disputes) from the events alone."""
    count = obj.service.rebuild_read_models()
    click.echo(f"read models rebuilt from the log for {count} game(s)")


def _parse_player(text: str) -> dict[str, Any]:
    """``Ann <ann@example.org>`` or ``Ann``."""
    name, _, rest = text.partition("<")
    email = rest.rstrip(">").strip() or None
    return {"name": name.strip(), "email": email}


def _operator_key(settings: Settings) -> str | None:
    # The demo is the operator's own command: any organiser key the settings list will do.
    keys = settings.invitations.organiser_keys
    return keys[0] if keys else None


def _seat_links(settings: Settings, game_id: str, seats: Any) -> list[str]:
    base = settings.base_url.rstrip("/")
    return [f"  seat {s.seat} {s.name}: {base}/games/{game_id}?token={s.token}" for s in seats]


@main.command("new-game")
@click.argument("game")
@click.option(
    "--player",
    "players",
    multiple=True,
    required=True,
    help="A player, 'Name <email>' or 'Name'; once per seat, in seat order.",
)
@click.option(
    "--config",
    "config_json",
    default="{}",
    help="Game options as JSON (docs/web.md). Lancaster: "
    '\'{"expansions": {"resentment": true}}\' (Henry V modules), '
    '\'{"new_laws": "replace"}\' (or "combine", or five of "base"/"new"/"random" for law '
    'groups 0-4), \'{"data": {"counties": {"G": {"reward": {"power": 5}}}}}\' (a value of '
    'your own). Lancelot: \'{"variants": {"diagonals": true}}\'.',
)
@click.option(
    "--private",
    is_flag=True,
    help="Only the seats and the admin see the game: it is listed nowhere, and its pages "
    "answer 'no such game' to anyone else.",
)
@click.option(
    "--organiser-key",
    envvar="PBEM_ORGANISER_KEY",
    default=None,
    help="An organiser key, when the settings require one (or PBEM_ORGANISER_KEY).",
)
@click.option(
    "--idempotency-key",
    default=None,
    help="Running the command again with the same key prints the same game.",
)
@click.option(
    "--time-control",
    default=None,
    help="How long each player has: a preset (none, relaxed, standard, fast, demo), a "
    "duration per move such as 48h, or a JSON object (docs/deadlines.md). Default: none.",
)
@pass_context
def new_game(
    obj: Context,
    game: str,
    players: tuple[str, ...],
    config_json: str,
    private: bool,
    organiser_key: str | None,
    idempotency_key: str | None,
    time_control: str | None,
) -> None:
    """Create a game and print its seat tokens (shown only now). Players whose address never
    played here get an invitation, and the game's mails once they accept."""
    try:
        config = json.loads(config_json)
    except ValueError as e:
        raise click.BadParameter(f"not JSON: {e}", param_hint="--config") from None
    if not isinstance(config, dict):
        raise click.BadParameter("must be a JSON object", param_hint="--config")
    from pbem.clock.time_control import parse_time_control

    timing = time_control_option(time_control, "--time-control")
    with service_errors():
        created = obj.service.create_game(
            game,
            config,
            [_parse_player(p) for p in players],
            channel="cli",
            private=private,
            idempotency_key=idempotency_key,
            organiser_key=organiser_key,
            time_control=timing,
        )
    shown = " (private: only its seats and admin see it)" if private else ""
    click.echo(f"game {created.id} ({game}) created at version {created.version}{shown}")
    if time_control is not None:
        click.echo(f"  time control: {parse_time_control(timing).describe()}")
    names = obj.service.load(created.id).names
    for s in created.seats:
        click.echo(f"  seat {s.seat} {names.of(s.seat)}: token {s.token}")
    click.echo(f"  admin token: {created.admin_token}")
    click.echo("seat pages:")
    click.echo("\n".join(_seat_links(obj.settings, created.id, created.seats)))


@main.command()
@pass_context
def games(obj: Context) -> None:
    """List recent games."""
    rows = obj.service.list_games()
    if not rows:
        click.echo("no games yet (pbem new-game, or pbem demo)")
    for g in rows:
        # Players by name, not seat numbers: the list is read by people.
        players = g["players"]
        acting = ", ".join(
            players[s] if 0 <= s < len(players) else f"seat {s}" for s in g["to_act"]
        )
        state = "finished" if g["finished"] else f"to act: {acting}"
        click.echo(
            f"{g['id']}  {g['game']:<10} v{g['version']:<5} {state:<16} {', '.join(g['players'])}"
        )


@main.command()
@click.argument("game_id")
@click.option("--seat", type=SEAT, default=None, help="Show the game as this seat sees it.")
@click.option("--at", "at", type=VERSION, default=None, help="Show it as of this version.")
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON document.")
@pass_context
def show(obj: Context, game_id: str, seat: int | None, at: int | None, as_json: bool) -> None:
    """Show a game (the public view unless --seat)."""
    from pbem.play.views import board_for_people, describe

    with service_errors():
        loaded = obj.service.load(game_id, at=at)
        if seat is not None and not 0 <= seat < len(loaded.seats):
            raise click.BadParameter(f"this game has seats 0 to {len(loaded.seats) - 1}")
        doc = describe(loaded, seat)
    if as_json:
        click.echo(json.dumps(doc, indent=2, sort_keys=True))
        return
    # The rules version a game was created with is the one it plays under (operators: README).
    click.echo(
        f"{loaded.game} {game_id} (rules {loaded.rules.version}), version {loaded.version} "
        f"(head {loaded.head_hash[:16]})"
    )
    names = loaded.names
    click.echo(board_for_people(loaded.rules, loaded.state, seat, names, finished=loaded.finished))
    if loaded.finished:
        click.echo(doc["result"] or "finished")
    elif seat is not None and doc["legal"]:
        click.echo("you can play: " + ", ".join(doc["legal"][:40]))


@main.command()
@click.argument("game_id")
@click.argument("seat", type=SEAT)
@click.argument("text")
@click.option(
    "--expected-version",
    type=WholeNumber("the expected version"),
    default=None,
    help="The version the move was decided on (default: the current one).",
)
@pass_context
def act(obj: Context, game_id: str, seat: int, text: str, expected_version: int | None) -> None:
    """Play TEXT (one or more command lines) for SEAT."""
    with service_errors():
        version = expected_version
        if version is None:
            version = obj.service.load(game_id).version
        result = obj.service.submit(
            game_id, seat, text.replace("\\n", "\n"), expected_version=version, channel="cli"
        )
    names = (result.loaded or obj.service.load(game_id)).names
    for a in result.applied:
        # The seat number too: it is what an operator types to act for the seat.
        click.echo(f"v{a.version}: {names.of(a.seat)} (seat {a.seat}) played {a.canonical}")
    if result.finished:
        click.echo("the game is over")
    if result.error is not None:
        raise click.ClickException(f"stopped: {result.error.message}")


@main.command()
@click.argument("game_id")
@click.option("--seat", type=SEAT, default=None, help="The log as this seat may see it.")
@click.option("--full", is_flag=True, help="Everything, secrets included (operators only).")
@pass_context
def log(obj: Context, game_id: str, seat: int | None, full: bool) -> None:
    """Print a game's log (the public view unless --seat or --full)."""
    from pbem.play.views import summary_line, visible_events

    with service_errors():
        if full:
            names = obj.service.load(game_id).names
            events = visible_events(
                obj.service.raw_events(game_id), None, everything=True, names=names
            )
        else:
            events = obj.service.events(game_id, 0, seat)
    lines = [summary_line(e) for e in events]
    click.echo("\n".join(lines))


@main.command()
@click.argument("game_id")
@click.option(
    "--verify",
    is_flag=True,
    help="Check the log, the chain, legality and the seed, that the read models agree, and "
    "every stored snapshot.",
)
@pass_context
def replay(obj: Context, game_id: str, verify: bool) -> None:
    """Re-run a game from its first event without snapshots; print the final state hash."""
    service = obj.service
    report = service.replay(game_id)
    for note in report.notes:
        click.echo(f"note: {note}")
    if report.ok and verify:
        difference = service.read_model_difference(game_id)
        if difference is not None:
            click.echo(f"read model differs from the log: {difference}", err=True)
            click.echo(f"{game_id}: FAILED, the read models do not match the log", err=True)
            sys.exit(1)
    if report.ok:
        checks = "replayed"
        if verify:
            # An unfinished game's seed is checked against its commitment but not yet public.
            finished = service.load(game_id).finished
            checks = (
                "chain, legality and seed verified"
                if finished
                else "chain and legality verified; seed committed (revealed when the game ends)"
            )
        click.echo(f"{game_id}: {report.events} events {checks}")
        if verify:
            click.echo("read models (games, seats, undo requests, disputes) match the log")
        click.echo(f"head hash {report.head_hash}")
        click.echo(f"final state hash {report.final_state_hash}")
        if verify:
            _report_snapshots(game_id, report)
        return
    for p in sorted(report.problems, key=lambda p: p.version):
        click.echo(f"version {p.version}: {p.message}", err=True)
    click.echo(f"{game_id}: FAILED, first bad version {report.first_bad_version}", err=True)
    sys.exit(1)


def _report_snapshots(game_id: str, report: Any) -> None:
    """The stored snapshots' check (``replay --verify``): a bad one fails the command, though
    the service never serves it, because something changed the database."""
    checked, bad = report.snapshots_checked, len({p.version for p in report.snapshot_problems})
    if not bad:
        if checked:
            click.echo(f"{_snapshots(checked)} {'matches' if checked == 1 else 'match'} the log")
        return
    for p in sorted(report.snapshot_problems, key=lambda p: p.version):
        click.echo(f"snapshot at version {p.version}: {p.message}", err=True)
    click.echo(
        f"{game_id}: FAILED, the log verifies; {_snapshots(bad)} "
        f"{'does' if bad == 1 else 'do'} not match it (the service ignores "
        f"{'it' if bad == 1 else 'them'} and folds the log instead; deleting the game's "
        "snapshots is safe)",
        err=True,
    )
    sys.exit(1)


def _snapshots(count: int) -> str:
    return f"{count} stored snapshot{'' if count == 1 else 's'}"


@main.group()
def admin() -> None:
    """Administer a game with the admin token printed when it was created."""


_ADMIN_TOKEN = click.option(
    "--token", envvar="PBEM_ADMIN_TOKEN", required=True, help="The game's admin token."
)


@admin.command("resign")
@click.argument("game_id")
@click.argument("seat", type=SEAT)
@_ADMIN_TOKEN
@pass_context
def admin_resign(obj: Context, game_id: str, seat: int, token: str) -> None:
    """Resign SEAT for its player (its turns are then played automatically)."""
    with service_errors():
        result = obj.service.admin_resign(game_id, token, seat)
    ended = ", the game is over" if result.finished else ""
    click.echo(f"seat {seat} resigned: game {game_id} at version {result.version}{ended}")


@admin.command("end")
@click.argument("game_id")
@_ADMIN_TOKEN
@pass_context
def admin_end(obj: Context, game_id: str, token: str) -> None:
    """End the game: every seat still playing resigns and the seed is revealed."""
    with service_errors():
        result = obj.service.admin_end(game_id, token)
    click.echo(f"game {game_id} ended at version {result.version}")


@admin.command("log")
@click.argument("game_id")
@_ADMIN_TOKEN
@pass_context
def admin_log(obj: Context, game_id: str, token: str) -> None:
    """The game's whole log, nothing hidden."""
    from pbem.play.views import summary_line

    with service_errors():
        events = obj.service.admin_log(game_id, token)
    click.echo("\n".join(summary_line(e) for e in events))


@main.command()
@click.argument("game_id")
@click.option("--output", "-o", type=click.Path(dir_okay=False), default=None)
@click.option(
    "--seat",
    type=SEAT,
    default=None,
    help="Only what this seat may see: others' unrevealed secret actions as commitments.",
)
@pass_context
def export(obj: Context, game_id: str, output: str | None, seat: int | None) -> None:
    """Write a game's bundle (docs/audit.md): every event as stored with its hashes, the
    rules and version, the config, and the seed once the game is finished. Without --seat
    it holds everything, secret choices included (operators only). Check it with
    `pbem verify-export` or `python -m pbem.audit.verify`."""
    from pbem.audit.export import bundle_text

    with service_errors():
        bundle = obj.service.export_game(game_id, seat)
    text = bundle_text(bundle)
    if output:
        Path(output).write_text(text, encoding="utf-8")
        click.echo(f"wrote {output} ({len(bundle['events'])} events)")
    else:
        click.echo(text)


@main.command("verify-export")
@click.argument("bundle", type=click.Path(exists=True, dir_okay=False))
def verify_export(bundle: str) -> None:
    """Check a bundle offline: the chain, the commitments, and for a finished game the seed
    and every action re-run by the rules (as `python -m pbem.audit.verify BUNDLE`)."""
    from pbem.audit.verify import summary, verify_file

    report = verify_file(bundle)
    click.echo("\n".join(summary(report)), err=not report.ok)
    if not report.ok:
        sys.exit(1)


@main.command("verify-receipt")
@click.argument("game_id")
@click.argument("version", type=VERSION)
@click.argument("head_hash")
@click.option(
    "--salt",
    default=None,
    help="The salt from a secret action's confirmation mail: also check that the vote "
    "revealed at VERSION is the one committed to.",
)
@pass_context
def verify_receipt(
    obj: Context, game_id: str, version: int, head_hash: str, salt: str | None
) -> None:
    """Check a mail's receipt: does the chain at VERSION still have HEAD_HASH?"""
    from pbem.audit.receipts import UNFAILED

    with service_errors():
        result = obj.service.check_receipt(game_id, version, head_hash, salt)
    click.echo(("✔ " if result.matches else "✘ ") + result.message, err=not result.matches)
    if result.vote is not None:
        status = result.vote.status
        mark = "✔ " if status == "matches" else "… " if status in UNFAILED else "✘ "
        click.echo(mark + result.vote.message, err=mark == "✘ ")
    if not result.ok:
        sys.exit(1)


@main.command()
@pass_context
def demo(obj: Context) -> None:
    """Create a demo Lancelot game and print its seat links (its players have local
    addresses: their mails, the invitation first, are at /dev/mail)."""
    from pbem.clock.time_control import PRESETS

    domain = obj.settings.mail.reply_domain
    players = [{"name": n, "email": f"{n.lower()}@{domain}"} for n in ("Ann", "Bob")]
    with service_errors():
        # The demo preset: minutes per move, so a newcomer sees a reminder and a deadline move
        # (the default move played for a player who waits) while trying the service out.
        created = obj.service.create_game(
            "lancelot",
            {},
            players,
            channel="cli",
            organiser_key=_operator_key(obj.settings),
            time_control="demo",
        )
        # Whoever runs the demo plays both seats: they accept both invitations at once, so
        # the turn mails flow and the clocks start (an invited seat is timed from acceptance).
        for seat in created.seats:
            obj.service.accept_invitation(created.id, seat.seat, channel="cli")
    base = obj.settings.base_url.rstrip("/")
    click.echo(f"demo Lancelot game {created.id}: open one link per player")
    click.echo(
        f"time control: {PRESETS['demo'].describe()} (a reminder, then the default move is "
        "played for a player who waits)"
    )
    if obj.settings.dev_pages:
        click.echo(f"or play by mail at {base}/dev/mail (both invitations are accepted)")
    click.echo("\n".join(_seat_links(obj.settings, created.id, created.seats)))
    token = created.seats[0].token
    click.echo("or use the API, e.g.:")
    click.echo(f"  curl -H 'Authorization: Bearer {token}' {base}/api/v1/games/{created.id}")


# The mail commands: the outbox, ``mail-in`` (an MTA's pipe) and ``scheduler``.
from pbem.cli import mail as mail_cli  # noqa: E402  (they use this module's Context)

main.add_command(mail_cli.mail_group)
main.add_command(mail_cli.mail_in)
main.add_command(mail_cli.scheduler_command)

# The audit commands: disputes and the evidence of their steps.
from pbem.cli import audit as audit_cli  # noqa: E402  (they use this module's Context)

main.add_command(audit_cli.audit_command)
main.add_command(audit_cli.dispute_command)
admin.add_command(audit_cli.admin_resolve)

# ``sweep``: one deadline sweep by hand.
from pbem.cli import sweep as deadlines_cli  # noqa: E402  (it uses this module's Context)

main.add_command(deadlines_cli.sweep_command)
main.add_command(deadlines_cli.digest_command)

from pbem.cli import clock as clock_cli  # noqa: E402  (the clock's commands)

for _command in (
    clock_cli.deadlines_command,
    clock_cli.extend_command,
    clock_cli.pause_command,
    clock_cli.resume_command,
    clock_cli.time_control_command,
):
    main.add_command(_command)

from pbem.cli import tokens as token_cli  # noqa: E402  (it uses this module's Context)

main.add_command(token_cli.rotate_token)

from pbem.cli import webhooks as webhook_cli  # noqa: E402  (it uses this module's Context)

main.add_command(webhook_cli.webhook_group)
