"""The webhook commands of the ``pbem`` command line: ``pbem webhook …``, the twin of
``pbem mail …`` for the webhook outbox (docs/webhooks.md). They use the CLI's context object
(``.settings`` and ``.service``)."""

from __future__ import annotations

from typing import Any

import click

from pbem.cli.support import WholeNumber
from pbem.core.errors import ServiceError


@click.group("webhook")
def webhook_group() -> None:
    """Webhook subscriptions, the webhook outbox and its dead letters."""


@webhook_group.command("status")
@click.pass_obj
def status(obj: Any) -> None:
    """How many deliveries are pending, sending, sent, dropped and dead."""
    counts = obj.service.webhook_counts()
    click.echo("webhook outbox: " + (", ".join(f"{s} {n}" for s, n in counts) or "empty"))


@webhook_group.command("list")
@click.pass_obj
def list_command(obj: Any) -> None:
    """Every subscription not removed (URLs shortened: they are credentials)."""
    lines = [
        f"{s.id:>5}  {s.status:<8} {s.form:<8} "
        f"{('game ' + s.game_id) if s.game_id else s.address}  {s.url}"
        for s in obj.service.all_webhooks()
    ]
    click.echo("\n".join(lines) if lines else "no webhook")


@webhook_group.command("remove")
@click.argument("subscription", type=WholeNumber("a webhook's id", 1))
@click.pass_obj
def remove(obj: Any, subscription: int) -> None:
    """Remove a subscription (its pending deliveries are dropped)."""
    try:
        obj.service.remove_webhook(subscription)
    except ServiceError as e:
        raise click.ClickException(e.message) from None
    click.echo(f"webhook {subscription} removed")


@webhook_group.command("dead")
@click.pass_obj
def dead(obj: Any) -> None:
    """List the deliveries that could not be made (dead letters), with the last error."""
    lines = [
        f"{d.id:>6}  {d.created_at}  {d.kind:<8} webhook {d.subscription_id}  "
        f"game {d.game_id or '-'}  {d.delivery_id}  attempts {d.attempts}: "
        f"{(d.last_error.splitlines() or [''])[0][:120]}"
        for d in obj.service.dead_webhooks()
    ]
    click.echo("\n".join(lines) if lines else "no dead webhook delivery")


@webhook_group.command("retry")
@click.argument("ids", nargs=-1, type=WholeNumber("a delivery's id"))
@click.pass_obj
def retry(obj: Any, ids: tuple[int, ...]) -> None:
    """Put dead deliveries back in the queue (all of them, or the given ids), with the same
    delivery id."""
    count = obj.service.retry_dead_webhooks(list(ids) if ids else None)
    click.echo(f"{count} webhook delivery(ies) queued again")


@webhook_group.command("relay")
@click.pass_obj
def relay(obj: Any) -> None:
    """Deliver what is due now, once (the scheduler does this every few seconds)."""
    from pbem.app.bootstrap import build_webhook_relay

    result = build_webhook_relay(obj.service, obj.settings).run_once()
    click.echo(
        f"delivered {result.sent}, to retry {result.retried}, dead {result.dead}, "
        f"dropped {result.dropped}" + (" (another relay holds the lease)" if result.skipped else "")
    )
