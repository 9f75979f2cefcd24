"""The seat page's take-back forms: take back this seat's latest move (straight away while
no one else has moved since and nothing was drawn or revealed; otherwise the other players
are asked), and agree to or refuse another seat's request. Each answers like the move form:
back to the game page, or the page again with the error."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, redirect, request, url_for

from pbem.core.errors import ServiceError
from pbem.core.numbers import NumberError, read_int
from web.pages.common import seat_or_refusal, service
from web.pages.game_page import render_game

undo_pages = Blueprint("undo", __name__)

CHANNEL = "web"


TAKE_BACK = "take a move back"


@undo_pages.post("/games/<game_id>/undo")
def take_back(game_id: str) -> Any:
    seat, refusal = seat_or_refusal(game_id, TAKE_BACK)
    if seat is None:
        return refusal
    try:
        # The version the page showed: taking back what the player did not see is refused.
        expected = read_int(request.form.get("expected_version", ""), what="the version")
    except NumberError:
        return render_game(
            game_id, seat, undo_error="The form was not complete; reload the page.", status=400
        )
    try:
        service().undo(game_id, seat, expected_version=expected, channel=CHANNEL)
    except ServiceError as e:
        return render_game(game_id, seat, undo_error=e.message, status=e.status)
    return redirect(url_for("pages.game_page", game_id=game_id, _anchor="undo"), 303)


@undo_pages.post("/games/<game_id>/undo/<int:undo_request>/decision")
def decide(game_id: str, undo_request: int) -> Any:
    seat, refusal = seat_or_refusal(game_id, TAKE_BACK)
    if seat is None:
        return refusal
    answer = request.form.get("accept")
    if answer not in ("yes", "no"):
        return render_game(game_id, seat, undo_error="Choose to agree or to refuse.", status=400)
    try:
        service().decide_undo(game_id, seat, undo_request, answer == "yes", channel=CHANNEL)
    except ServiceError as e:
        return render_game(game_id, seat, undo_error=e.message, status=e.status)
    return redirect(url_for("pages.game_page", game_id=game_id, _anchor="undo"), 303)
