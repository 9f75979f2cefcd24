"""Game administration under ``/api/v1/games/<id>/admin``, guarded by the admin token shown
once at the game's creation (``Authorization: Bearer <admin token>``): resign a seat for a
player who left, end the game, start a game waiting for players with those who joined,
replace its join link, read its whole log as an operator sees it, see and resolve its
disputes with all their evidence, and read and hide its table talk."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, jsonify, request

from pbem.app.service import GameService, SubmitResult
from pbem.core.errors import BadRequest, Forbidden
from pbem.core.numbers import read_int
from web.api.routes import bearer_token

admin = Blueprint("admin", __name__, url_prefix="/api/v1/games/<game_id>/admin")


def _service() -> GameService:
    svc: GameService = current_app.extensions["pbem"]
    return svc


def _result(result: SubmitResult) -> Any:
    return jsonify({"version": result.version, "finished": result.finished})


@admin.post("/resign")
def resign_seat(game_id: str) -> Any:
    """Resign a seat for its player: its turns are played automatically from now on."""
    body = request.get_json(silent=True)
    seat = body.get("seat") if isinstance(body, dict) else None
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise BadRequest('Send the seat to resign as JSON: {"seat": 1}.')
    seat = read_int(seat, what="the seat")  # within what the database holds
    return _result(_service().admin_resign(game_id, bearer_token(), seat))


@admin.post("/substitute")
def substitute(game_id: str) -> Any:
    """Hand a seat to a newcomer (no consent needed): they are invited, and the seat changes
    hands when they accept."""
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        body = {}
    seat, name, email = body.get("seat"), body.get("name"), body.get("email")
    if (
        not isinstance(seat, int)
        or isinstance(seat, bool)
        or not isinstance(name, str)
        or not isinstance(email, str)
    ):
        raise BadRequest(
            'Send the seat and the newcomer as JSON: {"seat": 1, "name": "Dan", '
            '"email": "dan@example.org"}.'
        )
    seat = read_int(seat, what="the seat")
    result = _service().admin_substitute(
        game_id, bearer_token(), seat, name[:200], email[:320], channel="api"
    )
    return jsonify(result.to_json()), 201


@admin.post("/end")
def end_game(game_id: str) -> Any:
    """End the game: every seat still playing resigns; the seed is revealed."""
    return _result(_service().admin_end(game_id, bearer_token()))


@admin.post("/start")
def start_now(game_id: str) -> Any:
    """Start a game waiting for players with those who joined (where the rules allow it)."""
    players = _service().start_game_now(game_id, bearer_token(), channel="api")
    return jsonify({"players": players, "version": _service().load(game_id).version}), 201


@admin.post("/join-link")
def new_join_link(game_id: str) -> Any:
    """Replace the game's join link: the old one no longer opens it (shown once)."""
    key = _service().revoke_join_link(game_id, bearer_token())
    base = _service().settings.base_url.rstrip("/")
    return jsonify({"join_link": f"{base}/games/{game_id}/join?key={key}"}), 201


@admin.get("/log")
def full_log(game_id: str) -> Any:
    """Every event with nothing hidden (secret actions, addresses, message ids)."""
    return jsonify({"events": _service().admin_log(game_id, bearer_token())})


@admin.get("/disputes")
def disputes(game_id: str) -> Any:
    """Every dispute with the evidence of its steps, nothing hidden."""
    svc = _service()
    svc.check_can_see(game_id, token=bearer_token())  # a private game: "no such game"
    if not svc.is_admin(game_id, bearer_token()):
        raise Forbidden("This needs the game's admin token.")
    return jsonify(svc.audit(game_id, viewer=None, admin=True))


@admin.post("/disputes/<int:dispute>/resolve")
def resolve(game_id: str, dispute: int) -> Any:
    """Dismiss a dispute with a reason, or uphold it (the disputed moves are retracted)."""
    body = request.get_json(silent=True)
    uphold = body.get("uphold") if isinstance(body, dict) else None
    reason = body.get("reason", "") if isinstance(body, dict) else None
    if not isinstance(uphold, bool) or not isinstance(reason, str):
        raise BadRequest('Send the decision as JSON: {"uphold": false, "reason": "why"}.')
    result = _service().resolve_dispute(
        game_id, bearer_token(), dispute, uphold=uphold, reason=reason, channel="api"
    )
    return jsonify(result.to_json()), 201


@admin.get("/talk")
def talk(game_id: str) -> Any:
    """Every message of the game's table talk, private ones and hidden ones with their words
    (the administrator hides messages, so reads them all)."""
    svc = _service()
    svc.check_can_see(game_id, token=bearer_token())  # a private game: "no such game"
    if not svc.is_admin(game_id, bearer_token()):
        raise Forbidden("This needs the game's admin token.")
    return jsonify({"messages": svc.talk_messages(game_id, None, admin=True)})


@admin.post("/talk/<int:version>/hide")
def hide_talk(game_id: str, version: int) -> Any:
    """Hide the message at ``version``, saying why: its readers see the reason instead."""
    body = request.get_json(silent=True)
    reason = body.get("reason") if isinstance(body, dict) else None
    if not isinstance(reason, str):
        raise BadRequest('Send the reason as JSON: {"reason": "why it is hidden"}.')
    version = read_int(version, what="the message's version")
    result = _service().hide_talk(game_id, bearer_token(), version, reason, channel="api")
    return jsonify(result.to_json()), 201
