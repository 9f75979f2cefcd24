"""A game's admin link (``?admin=`` on its game or audit page), exchanged for the session
cookie as a seat's link is: another site can make a browser open any link, so a link never
replaces an admin token the browser already holds for the game without the person saying so
(a page asks; the answer is this site's own form, with its CSRF token, from this origin).
"""

from __future__ import annotations

from typing import Any

from flask import redirect, render_template, url_for

from pbem.core.errors import ServiceError
from web.pages import common as pc

#: Where a taken admin link goes back to: the page it was opened on (a name, never a URL).
PAGES = {
    "game": "pages.game_page",
    "audit": "pages.audit.audit_page",
    "admin": "pages.admin.admin_home",
}


def take_admin_link(game_id: str, presented: str, page: str, *, confirmed: bool = False) -> Any:
    """Keep the admin token in the session and show ``page`` without it, or ask first when
    the browser holds another admin token for the game (``confirmed``: the person said so)."""
    try:
        if not pc.service().is_admin(game_id, presented):
            return pc.refused("This is not the game's admin token.", 403)
    except ServiceError as e:
        return pc.refused(e.message, e.status)
    back = PAGES.get(page, PAGES["game"])
    held = pc.held_admin(game_id)
    if not confirmed and held is not None and held != presented:
        html = render_template(
            "switch_admin.html",
            game_id=game_id,
            admin=presented,
            page=page if page in PAGES else "game",
            back=url_for(back, game_id=game_id),
        )
        # The page holds the admin token: no cache keeps it; the site's Referrer-Policy
        # (same-origin) keeps it from other sites ("no-referrer" would post its form with
        # "Origin: null", refused as cross-site).
        return html, 200, {"Cache-Control": "no-store"}
    pc.remember_admin(game_id, presented)
    return redirect(url_for(back, game_id=game_id), 303)
