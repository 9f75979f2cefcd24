"""``pbem sweep``: one deadline sweep by hand (the scheduler runs it on an interval)."""

from __future__ import annotations

from typing import Any

import click


@click.command("sweep")
@click.pass_obj
def sweep_command(obj: Any) -> None:
    """Make the deadline moves that are due and send the reminders that are due, once, and
    print what was done."""
    from pbem.bootstrap import build_sweeper

    report = build_sweeper(obj.service, obj.settings).sweep()
    click.echo("\n".join(report.lines()))
