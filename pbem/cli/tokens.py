"""``pbem rotate-token``: a seat's bearer token replaced (a leaked seat link), with every link
and reply address handed out for the seat."""

from __future__ import annotations

from typing import Any

import click

from pbem.cli.support import SEAT
from pbem.core.time_source import format_time


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
    from pbem.core.errors import ServiceError
    from pbem.core.models import Game, Seat
    from pbem.create.invitations import is_waiting
    from pbem.mail.outbound.compose import new_token_mail, rotate_key, seat_reply_address
    from pbem.mail.outbound.outbox import invitation_again
    from pbem.seats.credentials import replace_seat_token

    service = obj.service
    now = service.clock.now()
    try:
        loaded = service.load(game_id)
    except ServiceError:  # no such game: said below, with the seat
        loaded = None
    with service.db.write() as session:
        game = session.get(Game, game_id)
        row = session.get(Seat, (game_id, seat)) if game is not None else None
        if game is None or row is None:
            raise click.ClickException(f"there is no seat {seat} in a game {game_id!r}")
        token = replace_seat_token(session, game_id, seat, format_time(now))
        # Every link and reply address handed out for the seat goes with the token: the
        # invitation's too, or whoever had it could still accept and play the seat.
        rotate_key(session, game_id, seat, now)
        # An invited address that has not accepted gets nothing but its invitation: the
        # invitation again, with the new link, and not the token (it is printed).
        waiting = is_waiting(session, game_id, seat)
        if waiting and row.email and loaded is not None:
            session.add(invitation_again(session, obj.settings, loaded, seat, now))
        mailed = bool(row.email) and not waiting
        if mailed and row.email:
            session.add(
                new_token_mail(
                    obj.settings,
                    game=game.game,
                    game_id=game_id,
                    seat=seat,
                    to_name=row.name,
                    to_address=row.email,
                    token=token,
                    now=now,
                    reply_to=seat_reply_address(session, obj.settings, game_id, seat, game.version),
                )
            )
    who = f"seat {seat} ({row.name}) of game {game_id}"
    if mailed:
        click.echo(
            f"{who}: new seat token mailed to {row.email}; the old token is refused, and so "
            "are the page links and reply addresses of its earlier mails"
        )
        return
    link = f"{obj.settings.base_url.rstrip('/')}/games/{game_id}?token={token}"
    if row.email:
        click.echo(
            f"{who}: the old token, invitation link and reply address are refused; the "
            f"invitation was mailed again to {row.email} with a new link. The seat has not "
            "accepted it, so give its player this new seat link yourself if need be "
            f"(shown only now): {link}"
        )
        return
    click.echo(f"{who}: the old token is refused; the seat has no address, so give its player")
    click.echo(f"this new seat link yourself (shown only now): {link}")
