"""Open seats on the pages (``pbem.create.open_seats``; docs/web.md, "Open seats"):

- ``/games/open``: the public games waiting for players, each with its join page;
- ``/games/<id>/join``: the join page, a form (CSRF-protected, same origin only, as every
  form) taking a name and an address; a private game's only with its join link's key
  (``?key=``), else "no such game". Joining shows the seat's link once and keeps the seat in
  this browser; the address gets the game's mail (an invitation first, if it never played);
The administrator's forms (start with the players who joined, replace the join link) are on
the administrator's page (``web.pages.admin_page``).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template, request, url_for

from pbem.core.errors import ServiceError
from pbem.create.invitations import client_requester
from web.pages import common as pc

open_seats = Blueprint("open_seats", __name__)

CHANNEL = "web"
#: what a name or an address may be on the form (the service checks them again)
MAX_NAME = 200
MAX_ADDRESS = 320


def public_base() -> str:
    """The address the players reach the service at (the mails' links use it too)."""
    settings = pc.service().settings
    return settings.base_url.rstrip("/") if settings.base_url else request.host_url.rstrip("/")


def join_url(game_id: str, key: str | None = None) -> str:
    return f"{public_base()}/games/{game_id}/join" + (f"?key={key}" if key else "")


@open_seats.get("/games/open")
def open_games() -> str:
    svc = pc.service()
    games = [
        {
            **g.to_json(),
            "label": svc.rules_for(g.game).name.title(),
            "join": url_for("pages.open_seats.join_page", game_id=g.id),
        }
        for g in svc.open_games()
    ]
    return render_template("open_games.html", games=games)


def _join_page(
    game_id: str,
    key: str | None,
    *,
    errors: dict[str, str] | None = None,
    typed: dict[str, str] | None = None,
    status: int = 200,
) -> Any:
    try:
        info = pc.service().join_info(game_id, key)
    except ServiceError as e:
        return pc.refused(e.message, e.status)
    page = render_template(
        "join.html",
        info=info,
        label=pc.service().rules_for(info.game).name.title(),
        key=key or "",
        errors=errors or {},
        typed=typed or {"name": "", "email": ""},
    )
    if key:
        # The page holds the join link's key: no cache keeps it, no Referer carries it.
        return page, status, {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
    return page, status


@open_seats.get("/games/<game_id>/join")
def join_page(game_id: str) -> Any:
    return _join_page(game_id, request.args.get("key") or None)


@open_seats.post("/games/<game_id>/join")
def join(game_id: str) -> Any:
    key = request.form.get("key") or None
    typed = {
        "name": request.form.get("name", "").strip()[:MAX_NAME],
        "email": request.form.get("email", "").strip()[:MAX_ADDRESS],
    }
    errors: dict[str, str] = {}
    if not typed["name"]:
        errors["name"] = "Give your name: it is how the other players will see you."
    if not typed["email"]:
        errors["email"] = "Give your e-mail address: the game's mails go to it."
    if errors:
        return _join_page(game_id, key, errors=errors, typed=typed, status=400)
    svc = pc.service()
    try:
        joined = svc.join_game(
            game_id,
            typed["name"],
            typed["email"],
            channel=CHANNEL,
            requester=client_requester(request.remote_addr),
            join_key=key,
        )
    except ServiceError as e:
        if e.status == 404:
            return pc.refused(e.message, e.status)
        return _join_page(game_id, key, errors={"form": e.message}, typed=typed, status=e.status)
    # This browser holds the seat from now on, as if its link had been opened.
    pc.remember(game_id, {"token": joined.token})
    html = render_template(
        "joined.html",
        joined=joined,
        label=svc.rules_for(svc.load(game_id).game).name.title(),
        link=f"{public_base()}/games/{game_id}?token={joined.token}",
    )
    # Shown once: no cache may keep the seat link.
    return html, 200, {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
