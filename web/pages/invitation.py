"""``/invitation/<game_id>?link=…``: the link in an invitation (``pbem.create.invitations``).

Opening it only asks; the button accepts (a POST), so that a program that opens every link
of a mail (a virus scanner, a link preview) cannot accept for the player. Accepting leads to
the seat's game page, and the game's mails start: the game as it stands first.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, redirect, render_template, request

from pbem.core.errors import ServiceError
from web.pages import common as pc

invitation = Blueprint("invitation", __name__)

CHANNEL = "web"


def _seat(game_id: str, link: str) -> int:
    return pc.service().seat_for_invitation_link(game_id, link)


@invitation.get("/invitation/<game_id>")
def show(game_id: str) -> Any:
    link = request.args.get("link", "")
    svc = pc.service()
    try:
        seat = _seat(game_id, link)
        loaded = svc.load(game_id)
    except ServiceError as e:
        return pc.refused(e.message, e.status)
    seat_link = svc.seat_link(game_id, seat)
    page = render_template(
        "invitation.html",
        game_id=game_id,
        game=loaded.rules.name.title(),
        name=loaded.names.of(seat),
        players=loaded.names.many(s.seat for s in loaded.seats),
        waiting=svc.invitation_waiting(game_id, seat),
        link=link,
        seat_link=seat_link,
    )
    # No cache keeps the link. The site's own Referrer-Policy (same-origin) keeps it from other
    # sites; "no-referrer" would make Chromium post the accept form with "Origin: null",
    # which the cross-site check refuses (web.browser_security).
    return page, 200, {"Cache-Control": "no-store"}


@invitation.post("/invitation/<game_id>")
def accept(game_id: str) -> Any:
    svc = pc.service()
    try:
        seat = _seat(game_id, request.form.get("link", ""))
        svc.accept_invitation(game_id, seat, channel=CHANNEL)
    except ServiceError as e:
        return pc.refused(e.message, e.status)
    return redirect(svc.seat_link(game_id, seat), 303)
