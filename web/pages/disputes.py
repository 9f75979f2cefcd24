"""The seat page's dispute forms: dispute a move (a version or a range, and what went
wrong), and agree or disagree with another seat's dispute. Each answers like the move form:
back to the game page, or the page again with the error and what was typed."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, redirect, request, url_for

from pbem.core.errors import ServiceError
from pbem.disputes.rules import MAX_TEXT, parse_versions
from web.pages.common import seat_or_refusal, service
from web.pages.game_page import render_game

disputes_pages = Blueprint("disputes", __name__)

CHANNEL = "web"


DISPUTE = "open or answer a dispute"


@disputes_pages.post("/games/<game_id>/disputes")
def open_dispute(game_id: str) -> Any:
    seat, refusal = seat_or_refusal(game_id, DISPUTE)
    if seat is None:
        return refusal
    versions = request.form.get("versions", "")[:40]
    text = request.form.get("text", "")[:MAX_TEXT]
    try:
        first, last = parse_versions(versions)
        service().open_dispute(game_id, seat, first, last, text, channel=CHANNEL)
    except ServiceError as e:
        return render_game(
            game_id,
            seat,
            dispute_error=e.message,
            dispute_typed={"versions": versions, "text": text},
            status=e.status,
        )
    return redirect(url_for("pages.game_page", game_id=game_id, _anchor="disputes"), 303)


@disputes_pages.post("/games/<game_id>/disputes/<int:dispute>/answer")
def answer_dispute(game_id: str, dispute: int) -> Any:
    seat, refusal = seat_or_refusal(game_id, DISPUTE)
    if seat is None:
        return refusal
    agree = request.form.get("agree")
    if agree not in ("yes", "no"):
        return render_game(game_id, seat, dispute_error="Choose agree or disagree.", status=400)
    try:
        service().answer_dispute(game_id, seat, dispute, agree == "yes", channel=CHANNEL)
    except ServiceError as e:
        return render_game(game_id, seat, dispute_error=e.message, status=e.status)
    return redirect(url_for("pages.game_page", game_id=game_id, _anchor="disputes"), 303)
