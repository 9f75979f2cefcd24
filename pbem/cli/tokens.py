"""``pbem rotate-token``: a seat's bearer token replaced (a leaked seat link), with every link
and reply address handed out for the seat (``pbem.seats.tokens``, through the service)."""

from __future__ import annotations

from typing import Any

import click

from pbem.cli.support import SEAT


@click.command("rotate-token")
@click.argument("game_id")
@click.argument("seat", type=SEAT)
@click.pass_obj
def rotate_token(obj: Any, game_id: str, seat: int) -> None:
    """Replace SEAT's bearer token (e.g. a leaked seat link) and mail the seat its new link.

    The old token is refused from now on (401, saying it was replaced), and so are the page
    links and reply addresses of the seat's earlier mails (its key version is rotated, as by
    ``pbem mail rotate-key``), since any of them may have leaked with the link. A seat whose
    invitation waits gets its invitation again, with a new link (the old invitation's link
    and reply address are refused too); its token is printed. A seat without an address
    gets nothing by mail: its new link is printed, to hand over yourself."""
    from pbem.seats.tokens import NoSuchSeat

    try:
        rotated = obj.service.rotate_token(game_id, seat)
    except NoSuchSeat as e:
        raise click.ClickException(str(e)) from None
    who = f"seat {seat} ({rotated.name}) of game {game_id}"
    if rotated.mailed:
        click.echo(
            f"{who}: new seat token mailed to {rotated.email}; the old token is refused, and so "
            "are the page links and reply addresses of its earlier mails"
        )
        return
    link = f"{obj.settings.base_url.rstrip('/')}/games/{game_id}?token={rotated.token}"
    if rotated.email:
        click.echo(
            f"{who}: the old token, invitation link and reply address are refused; the "
            f"invitation was mailed again to {rotated.email} with a new link. The seat has not "
            "accepted it, so give its player this new seat link yourself if need be "
            f"(shown only now): {link}"
        )
        return
    click.echo(f"{who}: the old token is refused; the seat has no address, so give its player")
    click.echo(f"this new seat link yourself (shown only now): {link}")
