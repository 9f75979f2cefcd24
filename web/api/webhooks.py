"""Webhooks through the JSON API (docs/webhooks.md):

- ``/api/v1/games/<id>/admin/webhooks``: the game's webhooks, with the game's admin token
  (``Authorization: Bearer <admin token>``): ``GET`` lists them, ``POST {"url": …, "form":
  "discord"|"slack"|"json"}`` adds one (201; the JSON form's ``secret`` is in this answer
  only), ``DELETE …/<n>`` removes one;
- ``POST /api/v1/games/<id>/webhooks`` with a seat token: asks for a webhook of the seat's
  address; a confirmation link is mailed to that address (202), nothing is sent to the URL
  before it is opened. Listing and removing an address's webhooks are not in the API: a
  seat token proves the seat, not the address (``webhooks`` / ``webhook remove`` by mail,
  or the seat page opened from a mail's link).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, jsonify, request

from pbem.app.service import GameService
from pbem.core.errors import BadRequest
from pbem.webhooks.subscriptions import Subscription
from web.api.routes import bearer_token

webhooks_api = Blueprint("webhooks_api", __name__, url_prefix="/api/v1/games/<game_id>")

CHANNEL = "api"


def _service() -> GameService:
    svc: GameService = current_app.extensions["pbem"]
    return svc


def _asked() -> tuple[str, str | None]:
    body = request.get_json(silent=True)
    url = body.get("url") if isinstance(body, dict) else None
    form = body.get("form") if isinstance(body, dict) else None
    if not isinstance(url, str) or not (form is None or isinstance(form, str)):
        raise BadRequest('Send the webhook as JSON: {"url": "https://…", "form": "discord"}.')
    return url, form


def _shown(s: Subscription) -> dict[str, Any]:
    return {
        "id": s.id,
        "form": s.form,
        "url": s.url,
        "status": s.status,
        "created_at": s.created_at,
    }


@webhooks_api.get("/admin/webhooks")
def game_webhooks(game_id: str) -> Any:
    subs = _service().game_webhooks(game_id, bearer_token())
    return jsonify({"webhooks": [_shown(s) for s in subs]})


@webhooks_api.post("/admin/webhooks")
def add_game_webhook(game_id: str) -> Any:
    url, form = _asked()
    added = _service().add_game_webhook(game_id, bearer_token(), url, form, CHANNEL)
    return jsonify({**_shown(added.subscription), "secret": added.secret}), 201


@webhooks_api.delete("/admin/webhooks/<int:subscription>")
def remove_game_webhook(game_id: str, subscription: int) -> Any:
    _service().remove_game_webhook(game_id, bearer_token(), subscription)
    return jsonify({"removed": subscription})


@webhooks_api.post("/webhooks")
def ask_address_webhook(game_id: str) -> Any:
    svc = _service()
    seat = svc.seat_for_token(game_id, bearer_token())
    url, form = _asked()
    waiting = svc.request_address_webhook(game_id, seat, url, form, CHANNEL)
    return jsonify(
        {
            "id": waiting.id,
            "status": "waiting",
            "message": "A link to confirm it was mailed to the seat's address; nothing is "
            "sent to the URL until it is opened.",
        }
    ), 202
