"""The audit commands: ``pbem audit GAME`` (the disputes and the evidence of their steps, or
of one step with ``--version``), ``pbem dispute`` (a seat opens one, as an operator types it
for a player) and ``pbem admin resolve`` (the administrator dismisses or upholds one)."""

from __future__ import annotations

import json
from typing import Any

import click

from pbem.cli.support import SEAT, VERSION, WholeNumber, service_errors


@click.command("audit")
@click.argument("game_id")
@click.option("--version", "version", type=VERSION, default=None, help="The evidence of this step.")
@click.option(
    "--seat", type=SEAT, default=None, help="As this seat may see it (default: everything)."
)
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON document.")
@click.pass_obj
def audit_command(
    obj: Any, game_id: str, version: int | None, seat: int | None, as_json: bool
) -> None:
    """The game's disputes with the evidence of each disputed step (operators see everything:
    the mails each seat had, the raw mails they sent, the legal moves then)."""
    from pbem.audit.evidence import text_report

    with service_errors():
        report = obj.service.audit(game_id, viewer=seat, admin=seat is None, version=version)
    if as_json:
        click.echo(json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False))
    else:
        click.echo(text_report(report))


@click.command("dispute")
@click.argument("game_id")
@click.argument("seat", type=SEAT)
@click.argument("versions")
@click.argument("text")
@click.pass_obj
def dispute_command(obj: Any, game_id: str, seat: int, versions: str, text: str) -> None:
    """SEAT disputes VERSIONS (``41`` or ``41-43``), saying TEXT; every seat is told."""
    from pbem.disputes.rules import parse_versions

    with service_errors():
        first, last = parse_versions(versions)
        result = obj.service.open_dispute(game_id, seat, first, last, text, channel="cli")
    click.echo(f"dispute {result.dispute} opened: game {game_id} at version {result.version}")


@click.command("resolve")
@click.argument("game_id")
@click.argument("dispute", type=WholeNumber("the dispute's number"))
@click.option("--uphold", "decision", flag_value="uphold", help="Retract the disputed moves.")
@click.option("--dismiss", "decision", flag_value="dismiss", help="Keep them (give --reason).")
@click.option("--reason", default="", help="Why: every player reads it.")
@click.option("--token", envvar="PBEM_ADMIN_TOKEN", required=True, help="The game's admin token.")
@click.pass_obj
def admin_resolve(
    obj: Any, game_id: str, dispute: int, decision: str | None, reason: str, token: str
) -> None:
    """Resolve DISPUTE: --dismiss it with a --reason, or --uphold it (the disputed moves and
    what followed are retracted, even across a draw or a reveal)."""
    if decision is None:
        raise click.UsageError("Say --uphold or --dismiss.")
    with service_errors():
        result = obj.service.resolve_dispute(
            game_id, token, dispute, uphold=decision == "uphold", reason=reason
        )
    click.echo(f"dispute {dispute} {result.status}: game {game_id} at version {result.version}")
    if result.retracted:
        click.echo("retracted versions " + ", ".join(map(str, result.retracted)))
    for line in result.revealed:
        click.echo(f"already revealed: {line}")
