"""Mail commands of the ``pbem`` command line: ``pbem mail …``, ``pbem mail-in``, ``pbem
scheduler``. They use the CLI's context object (``.settings`` and ``.service``)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from pbem.cli.support import SEAT, WholeNumber
from pbem.core.errors import ServiceError

if TYPE_CHECKING:
    from pbem.mail.inbound.pipeline import Inbound


def _inbound(obj: Any) -> Inbound:
    from pbem.app.bootstrap import build_inbound

    return build_inbound(obj.service, obj.settings)


@click.group("mail")
def mail_group() -> None:
    """The outbox, dead letters, inbound messages and reply keys."""


@mail_group.command("status")
@click.pass_obj
def status(obj: Any) -> None:
    """How many mails are pending, sending, sent and dead; inbound outcomes."""
    counts = obj.service.mail_counts()
    out, inbound = counts.outbox, counts.inbound
    click.echo("outbox:  " + (", ".join(f"{s} {n}" for s, n in sorted(out)) or "empty"))
    click.echo("inbound: " + (", ".join(f"{o or 'unprocessed'} {n}" for o, n in inbound) or "none"))
    # A worker that died left these; the scheduler's recovery job (or `pbem mail recover`)
    # processes them. Counting them tells whether that job runs.
    from pbem.mail.inbound.recovery import stranded_keys

    stranded = len(stranded_keys(_inbound(obj), limit=100_000))
    click.echo(f"inbound past a dead worker's lease: {stranded}")
    click.echo(f"failing addresses: {counts.failing_addresses}")


@mail_group.command("dead")
@click.pass_obj
def dead(obj: Any) -> None:
    """List the mails that could not be sent (dead letters), with the last error."""
    lines = [
        f"{r.id:>6}  {r.created_at}  {r.kind:<8} {r.recipient}  game {r.game_id or '-'}  "
        f"attempts {r.attempts}: {(r.last_error or '').splitlines()[0][:120]}"
        for r in obj.service.dead_mails()
    ]
    click.echo("\n".join(lines) if lines else "no dead mail")


@mail_group.command("retry")
@click.argument("ids", nargs=-1, type=WholeNumber("a mail's id"))
@click.pass_obj
def retry(obj: Any, ids: tuple[int, ...]) -> None:
    """Put dead mails back in the queue (all of them, or the given ids)."""
    count = obj.service.requeue_dead_mail(list(ids) if ids else None)
    click.echo(f"{count} mail(s) queued again")


@mail_group.command("relay")
@click.pass_obj
def relay(obj: Any) -> None:
    """Send what is due now, once (the scheduler does this every few seconds)."""
    from pbem.app.bootstrap import build_relay

    result = build_relay(obj.service, obj.settings).run_once()
    click.echo(
        f"sent {result.sent}, to retry {result.retried}, dead {result.dead}"
        + (" (another relay holds the lease)" if result.skipped else "")
    )


@mail_group.command("recover")
@click.pass_obj
def recover(obj: Any) -> None:
    """Process inbound messages left by a worker that died, once its lease has run out (the
    scheduler does this every few seconds)."""
    from pbem.mail.inbound.recovery import recover_stranded

    result = recover_stranded(_inbound(obj), limit=10_000)
    click.echo(f"{result.processed} stranded inbound message(s) processed")


@mail_group.command("rotate-key")
@click.argument("game_id")
@click.argument("seat", type=SEAT)
@click.pass_obj
def rotate(obj: Any, game_id: str, seat: int) -> None:
    """Revoke every reply address and page link handed out to a seat (e.g. a leaked mail)."""
    if not obj.service.has_seat(game_id, seat):
        raise click.ClickException(f"there is no seat {seat} in a game {game_id!r}")
    version = obj.service.rotate_reply_key(game_id, seat)
    click.echo(
        f"seat {seat} of game {game_id}: key version {version}; old reply addresses and page "
        "links refused"
    )


@mail_group.command("inbound")
@click.option("--limit", default=20, show_default=True, type=WholeNumber("the limit", 1))
@click.pass_obj
def inbound_list(obj: Any, limit: int) -> None:
    """The latest inbound messages and their outcomes."""
    lines = [
        f"{r.received_at}  {r.source:<7} {r.sender or '-':<30} {r.outcome or r.status}: "
        f"{(r.detail or '')[:100]}"
        for r in obj.service.latest_inbound(limit)
    ]
    click.echo("\n".join(lines) if lines else "no inbound mail")


@mail_group.command("purge-inbound")
@click.pass_obj
def purge_inbound_command(obj: Any) -> None:
    """Delete the raw inbound mail past ``mail.inbound_retention_days`` (never a running
    game's: it is the evidence of what its players sent)."""
    from pbem.core.time_source import SystemClock

    count = obj.service.purge_inbound(SystemClock().now())
    days = obj.settings.mail.inbound_retention_days
    click.echo(f"{count} inbound message(s) older than {days} days deleted")


@mail_group.command("demo")
@click.pass_obj
def mail_demo(obj: Any) -> None:
    """Create a Lancelot game between two local addresses, to play by "email" at /dev/mail."""
    domain = obj.settings.mail.reply_domain
    try:
        created = obj.service.create_game(
            "lancelot",
            {},
            [{"name": "Ann", "email": f"ann@{domain}"}, {"name": "Bob", "email": f"bob@{domain}"}],
            channel="cli",
        )
    except ServiceError as e:
        raise click.ClickException(e.message) from None
    base = obj.settings.base_url.rstrip("/")
    click.echo(
        f"game {created.id}: Ann and Bob get their mails at {base}/dev/mail "
        "(served by make run, or pbem serve --dev)"
    )


@click.command("mail-in")
@click.pass_obj
def mail_in(obj: Any) -> None:
    """Read one message on standard input and process it (for an MTA pipe or procmail).

    Exits with 0 once the message is stored (whatever its outcome), 75 (EX_TEMPFAIL: the MTA
    keeps it and tries again) when it could not be stored, and 1 when it is too large."""
    from pbem.mail.inbound.pipeline import TooLarge

    raw = sys.stdin.buffer.read(obj.settings.mail.max_inbound_bytes + 1)
    try:
        result = _inbound(obj).receive(raw, "stdin")
    except TooLarge as error:
        click.echo(f"refused: {error}", err=True)
        sys.exit(1)
    except Exception as error:  # the database is away: let the MTA queue the message
        click.echo(f"temporary failure: {error}", err=True)
        sys.exit(75)
    click.echo(f"{result.outcome}: {result.detail}" + (" (duplicate)" if result.duplicate else ""))


@click.command("scheduler")
@click.pass_obj
def scheduler_command(obj: Any) -> None:
    """Run the background jobs (mail relay, inbound recovery, IMAP poll, deadline sweep) in
    this process until stopped."""
    from pbem.app.scheduler import run_forever

    click.echo("scheduler running (Ctrl+C to stop)")
    run_forever(obj.settings)
