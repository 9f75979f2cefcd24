"""The seat page's dispute forms: dispute a move (a version or a range, and what went
wrong), and agree or disagree with another seat's dispute. Each answers like the move form:
back to the game page, or the page again with the error and what was typed."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from pbem.core.errors import ServiceError
from pbem.disputes.commands import DisputeResult
from pbem.disputes.rules import MAX_TEXT, parse_versions
from pbem.play.views import versions_text
from web.pages.common import seat_or_refusal, service
from web.pages.game_page import done, render_game

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
        result = service().open_dispute(game_id, seat, first, last, text, channel=CHANNEL)
    except ServiceError as e:
        return render_game(
            game_id,
            seat,
            dispute_error=e.message,
            dispute_typed={"versions": versions, "text": text},
            status=e.status,
        )
    return done(game_id, _said(result))


@disputes_pages.post("/games/<game_id>/disputes/<int:dispute>/answer")
def answer_dispute(game_id: str, dispute: int) -> Any:
    seat, refusal = seat_or_refusal(game_id, DISPUTE)
    if seat is None:
        return refusal
    agree = request.form.get("agree")
    if agree not in ("yes", "no"):
        return render_game(game_id, seat, dispute_error="Choose agree or disagree.", status=400)
    try:
        result = service().answer_dispute(game_id, seat, dispute, agree == "yes", channel=CHANNEL)
    except ServiceError as e:
        return render_game(game_id, seat, dispute_error=e.message, status=e.status)
    return done(game_id, _said(result))


def _said(result: DisputeResult) -> str:
    """What the dispute form did, for the notice at the top of the page."""
    said = {
        "open": f"Dispute {result.dispute} opened: every other player is asked to agree.",
        "agreed": f"You agreed with dispute {result.dispute}; the others are still asked.",
        "disagreed": (
            f"You disagreed with dispute {result.dispute}: the game's administrator decides."
        ),
        "upheld": (
            f"Dispute {result.dispute} upheld: {versions_text(list(result.retracted))} taken back."
            if result.retracted
            else f"Dispute {result.dispute} upheld."
        ),
        "dismissed": f"Dispute {result.dispute} dismissed.",
    }
    return said.get(result.status, f"Dispute {result.dispute}: {result.status}.")
