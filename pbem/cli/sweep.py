"""``pbem sweep``: one deadline sweep by hand (the scheduler runs it on an interval)."""

from __future__ import annotations

from typing import Any

import click


@click.command("sweep")
@click.pass_obj
def sweep_command(obj: Any) -> None:
    """Make the deadline moves that are due and send the reminders that are due, once, and
    print what was done."""
    from pbem.app.bootstrap import build_sweeper

    report = build_sweeper(obj.service, obj.settings).sweep()
    click.echo("\n".join(report.lines()))


@click.command("digest")
@click.pass_obj
def digest_command(obj: Any) -> None:
    """Send today's daily digests not sent yet (the scheduler does it hourly), and print
    what was sent."""
    from pbem.app.bootstrap import build_digester

    report = build_digester(obj.service, obj.settings).run()
    click.echo("\n".join(report.lines()))
