"""The clock's commands (docs/deadlines.md): ``pbem deadlines [GAME]`` (each seat's due time,
for operators), and the administrator's ``pbem extend GAME SEAT 24h``, ``pbem pause GAME``,
``pbem resume GAME`` and ``pbem time-control GAME PRESET|DURATION`` — each with the game's
admin token (``--token`` or ``PBEM_ADMIN_TOKEN``), recorded as the administrator's, channel
``cli``."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

import click

from pbem.cli.support import SEAT, service_errors, time_control_option

if TYPE_CHECKING:
    from pbem.clock.commands import ClockResult

CHANNEL = "cli"

_TOKEN = click.option(
    "--token", envvar="PBEM_ADMIN_TOKEN", required=True, help="The game's admin token."
)


def _done(result: ClockResult) -> None:
    click.echo(f"game {result.game_id}: {result.done} (version {result.version})")


def _in(when: str | None, now: datetime) -> str:
    from pbem.clock.time_control import format_duration
    from pbem.core.time_source import parse_time

    if when is None:
        return "-"
    seconds = int((parse_time(when) - now).total_seconds())
    if seconds < 0:
        return f"{format_duration(-seconds)} ago"
    return f"in {format_duration(seconds)}"


@click.command("deadlines")
@click.argument("game_id", required=False)
@click.pass_obj
def deadlines_command(obj: Any, game_id: str | None) -> None:
    """Each seat's deadline: one game, or every game with deadlines (operators)."""
    svc = obj.service
    rows = svc.deadlines(game_id)
    if game_id is not None and not rows:
        with service_errors():
            svc.load(game_id)  # no such game: say so
        click.echo(f"game {game_id} has no deadlines (no time control)")
        return
    now = svc.clock.now()
    header = ("game", "seat", "name", "status", "due (UTC)", "", "standing order")
    table = [header]
    for r in rows:
        due = r["due_at"][:19].replace("T", " ") if r["due_at"] else "-"
        table.append(
            (
                r["game_id"], str(r["seat"]), r["name"][:24], r["status"], due,
                _in(r["due_at"], now), "yes" if r["standing_order"] else "no",
            )
        )  # fmt: skip
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        click.echo("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())


@click.command("extend")
@click.argument("game_id")
@click.argument("seat", type=SEAT)
@click.argument("by")
@_TOKEN
@click.pass_obj
def extend_command(obj: Any, game_id: str, seat: int, by: str, token: str) -> None:
    """Give SEAT more time (BY: 24h, 1d 12h, 90m) for the decision it owes now."""
    from pbem.clock.commands import duration

    with service_errors():
        _done(obj.service.extend(game_id, token, seat, duration(by), channel=CHANNEL))


@click.command("pause")
@click.argument("game_id")
@_TOKEN
@click.pass_obj
def pause_command(obj: Any, game_id: str, token: str) -> None:
    """Stop every clock of the game until it is resumed."""
    with service_errors():
        _done(obj.service.pause(game_id, token, channel=CHANNEL))


@click.command("resume")
@click.argument("game_id")
@_TOKEN
@click.pass_obj
def resume_command(obj: Any, game_id: str, token: str) -> None:
    """Let the game's clocks run again."""
    with service_errors():
        _done(obj.service.resume(game_id, token, channel=CHANNEL))


@click.command("time-control")
@click.argument("game_id")
@click.argument("value")
@_TOKEN
@click.pass_obj
def time_control_command(obj: Any, game_id: str, value: str, token: str) -> None:
    """Change the time control from each seat's next decision on (VALUE: a preset such as
    standard, a time per decision such as 48h, or a JSON object as ``pbem new-game
    --time-control`` takes it)."""
    timing = time_control_option(value, "VALUE")
    with service_errors():
        _done(obj.service.set_time_control(game_id, token, timing, channel=CHANNEL))
