"""The webhook forms (docs/webhooks.md): on the seat page, asking for a webhook of the seat's
address (a confirmation link is mailed to it) and removing one; the confirmation page that
link opens; on the administrator's page, the game's webhooks.

Who may:

- asking for an address's webhook: the seat this browser holds in the game; the link goes
  to the seat's own address, never to one typed, so holding the seat lets nobody point the
  address's notices anywhere without that mailbox;
- listing and removing an address's webhooks: only a seat opened from a mail's link (it
  proves the address, ``opened_by_mail``), as the time zone and the digest;
- confirming: whoever holds the mailed link, by pressing the page's button (a POST with the
  CSRF token: a link-preview bot's GET confirms nothing);
- a game's webhooks: only a browser holding the game's admin token.

The secret of the JSON form is shown once, on the page that answers the adding or the
confirmation, and never again.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template, request

from pbem.core.errors import BadRequest, ServiceError
from pbem.core.numbers import NumberError, read_int
from pbem.webhooks.safety import MAX_URL_LENGTH
from pbem.webhooks.subscriptions import Added
from web.pages import common as pc
from web.pages.admin_page import NOT_ADMIN
from web.pages.game_page import done, render_game

webhook_pages = Blueprint("webhooks", __name__)

CHANNEL = "web"
DOING = "ask for a webhook"


def _typed() -> tuple[str, str | None]:
    url = request.form.get("url", "")[: MAX_URL_LENGTH + 1].strip()
    form = request.form.get("form", "").strip()[:10] or None
    if not url:
        raise BadRequest("Paste the webhook's URL (https://…).")
    return url, form


def _number(value: str) -> int:
    try:
        return read_int(value, what="the webhook's number", minimum=1)
    except NumberError as e:
        raise BadRequest(str(e)) from None


@webhook_pages.app_template_global()
def webhook_panel(game_id: str, admin: bool = False) -> dict[str, Any]:
    """What ``_webhooks.html`` shows: the game's webhooks (its administrator), or this seat's
    address's (a seat opened from a mail's link) and whether it may list them."""
    svc = pc.service()
    if admin:
        token = pc.held_admin(game_id)
        return {"subscriptions": svc.game_webhooks(game_id, token)}
    seat = pc.session_seat(game_id)
    info = svc.seat_info(game_id, seat) if seat is not None else None
    email = info.email if info is not None else None
    by_mail = bool(email) and pc.opened_by_mail(game_id)
    listed = svc.address_webhooks(email) if by_mail and email else []
    return {"has_address": bool(email), "by_mail": by_mail, "subscriptions": listed}


# -- the seat page ---------------------------------------------------------------------------


@webhook_pages.post("/games/<game_id>/webhooks")
def ask(game_id: str) -> Any:
    seat, refusal = pc.seat_or_refusal(game_id, DOING)
    if seat is None:
        return refusal
    try:
        url, form = _typed()
        waiting = pc.service().request_address_webhook(game_id, seat, url, form, CHANNEL)
    except ServiceError as e:
        return render_game(game_id, seat, alert=e.message, status=e.status)
    return done(
        game_id,
        f"A link to confirm webhook {waiting.id} was mailed to your address. Nothing is sent "
        "to it until you open that link and confirm.",
    )


@webhook_pages.post("/games/<game_id>/webhooks/<subscription>/remove")
def remove(game_id: str, subscription: str) -> Any:
    seat, refusal = pc.seat_or_refusal(game_id, "remove a webhook")
    if seat is None:
        return refusal
    svc = pc.service()
    try:
        info = svc.seat_info(game_id, seat)
        if info is None or not info.email or not pc.opened_by_mail(game_id):
            raise BadRequest(
                "Your address's webhooks are removed from a seat opened with the link of a "
                "mail to you, or by replying 'webhook remove <number>' to a game's mail."
            )
        number = _number(subscription)
        svc.remove_address_webhook(info.email, number)
    except ServiceError as e:
        return render_game(game_id, seat, alert=e.message, status=e.status)
    return done(game_id, f"Webhook {number} removed: nothing more is sent to it.")


# -- the mailed confirmation link ------------------------------------------------------------


@webhook_pages.get("/webhooks/confirm/<token>")
def confirm_page(token: str) -> Any:
    try:
        waiting = pc.service().webhook_waiting(token[:100])
    except ServiceError as e:
        return pc.refused(e.message, e.status)
    return render_template("webhook_confirm.html", waiting=waiting, token=token[:100])


@webhook_pages.post("/webhooks/confirm/<token>")
def confirm(token: str) -> Any:
    try:
        added = pc.service().confirm_webhook(token[:100])
    except ServiceError as e:
        return pc.refused(e.message, e.status)
    return _added(added, back=None)


def _added(added: Added, back: str | None) -> str:
    sub = added.subscription
    whose = f"game {sub.game_id}" if sub.game_id else f"the address {sub.address}"
    return render_template(
        "webhook_done.html",
        heading=f"Webhook {sub.id} added",
        message=f"Notices of {whose} now go to {sub.url} ({sub.form}).",
        secret=added.secret,
        back=back,
    )


# -- the administrator's page ----------------------------------------------------------------


def _admin_token(game_id: str) -> str | None:
    token = pc.held_admin(game_id)
    return token if pc.service().is_admin(game_id, token) else None


@webhook_pages.post("/games/<game_id>/admin/webhooks")
def admin_add(game_id: str) -> Any:
    try:
        token = _admin_token(game_id)
        if token is None:
            return pc.refused(NOT_ADMIN, 403)
        url, form = _typed()
        added = pc.service().add_game_webhook(game_id, token, url, form, CHANNEL)
    except ServiceError as e:
        return pc.refused(e.message, e.status)
    return _added(added, back=f"/games/{game_id}/admin")


@webhook_pages.post("/games/<game_id>/admin/webhooks/<subscription>/remove")
def admin_remove(game_id: str, subscription: str) -> Any:
    try:
        token = _admin_token(game_id)
        if token is None:
            return pc.refused(NOT_ADMIN, 403)
        number = _number(subscription)
        pc.service().remove_game_webhook(game_id, token, number)
    except ServiceError as e:
        return pc.refused(e.message, e.status)
    return render_template(
        "webhook_done.html",
        heading="Webhook removed",
        message=f"Webhook {number} removed: nothing more is sent to it.",
        secret=None,
        back=f"/games/{game_id}/admin",
    )
