"""The seat page's take-back forms: take back this seat's latest move (straight away while
no one else has moved since and nothing was drawn or revealed; otherwise the other players
are asked), and agree to or refuse another seat's request. Each answers like the move form:
back to the game page, or the page again with the error."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from pbem.core.errors import ServiceError
from pbem.core.numbers import NumberError, read_int
from pbem.play.results import UndoResult
from pbem.play.views import versions_text
from web.pages.common import seat_or_refusal, service
from web.pages.game_page import done, render_game

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
        result = service().undo(game_id, seat, expected_version=expected, channel=CHANNEL)
    except ServiceError as e:
        return render_game(game_id, seat, undo_error=e.message, status=e.status)
    return done(game_id, _said(result))


@undo_pages.post("/games/<game_id>/undo/<int:undo_request>/decision")
def decide(game_id: str, undo_request: int) -> Any:
    seat, refusal = seat_or_refusal(game_id, TAKE_BACK)
    if seat is None:
        return refusal
    answer = request.form.get("accept")
    if answer not in ("yes", "no"):
        return render_game(game_id, seat, undo_error="Choose to agree or to refuse.", status=400)
    try:
        result = service().decide_undo(
            game_id, seat, undo_request, answer == "yes", channel=CHANNEL
        )
    except ServiceError as e:
        return render_game(game_id, seat, undo_error=e.message, status=e.status)
    return done(game_id, _said(result))


def _said(result: UndoResult) -> str:
    """What the take-back form did, for the notice at the top of the page."""
    if result.status == "retracted":
        return f"Taken back: {versions_text(list(result.retracted))}."
    if result.status == "requested":
        asked = versions_text(list(result.retracted))
        return f"Asked the others to agree to take back {asked}: done when every one agrees."
    if result.status == "declined":
        return "You refused: the moves stay as they are."
    return "You agreed to take the moves back."
