"""The seat page's rematch forms, on a finished game: propose a rematch (the seats rotated
by one, or the same seats), agree to or decline the one proposed; and what the page shows of
rematches (``rematch_panel``, for ``_rematch.html``): the proposal and who is awaited, the
new game once started ("Rematch: <link>"), and on a rematch's page the game it is a rematch
of. Each form answers like the others of the page: back to the game page with what was done,
or the page again with the refusal."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from pbem.core.errors import ServiceError
from pbem.rematch.commands import RematchResult
from web.pages.common import seat_or_refusal, service
from web.pages.game_page import done, render_game

rematch_pages = Blueprint("rematch", __name__)

CHANNEL = "web"
REMATCH = "propose or answer a rematch"


@rematch_pages.post("/games/<game_id>/rematch")
def propose(game_id: str) -> Any:
    seat, refusal = seat_or_refusal(game_id, REMATCH)
    if seat is None:
        return refusal
    seating = request.form.get("seating", "rotate")
    if seating not in ("rotate", "same"):
        return render_game(
            game_id, seat, alert="Choose the seats: rotated or the same.", status=400
        )
    try:
        result = service().propose_rematch(game_id, seat, seating, channel=CHANNEL)
    except ServiceError as e:
        return render_game(game_id, seat, alert=e.message, status=e.status)
    return done(game_id, said(result))


@rematch_pages.post("/games/<game_id>/rematch/<int:proposal>/answer")
def answer(game_id: str, proposal: int) -> Any:
    seat, refusal = seat_or_refusal(game_id, REMATCH)
    if seat is None:
        return refusal
    agree = request.form.get("agree")
    if agree not in ("yes", "no"):
        return render_game(game_id, seat, alert="Choose to agree or to decline.", status=400)
    svc = service()
    try:
        if agree == "yes":
            result = svc.agree_rematch(game_id, seat, proposal, channel=CHANNEL)
        else:
            result = svc.decline_rematch(game_id, seat, proposal, channel=CHANNEL)
    except ServiceError as e:
        return render_game(game_id, seat, alert=e.message, status=e.status)
    return done(game_id, said(result))


def said(result: RematchResult) -> str:
    """What a rematch form did, for the notice at the top of the page."""
    return {
        "proposed": "Rematch proposed: it starts when every other player agrees.",
        "agreed": "You agreed to the rematch; the others are still asked.",
        "already": "You had agreed to this rematch already.",
        "declined": "You declined the rematch: every player is told.",
        "started": f"The rematch has started: game {result.new_game_id}.",
    }.get(result.status, f"Rematch: {result.status}.")


@rematch_pages.app_context_processor
def _panel() -> dict[str, Any]:
    return {"rematch_panel": rematch_panel}


def rematch_panel(game_id: str, seat: int | None, finished: bool) -> dict[str, Any]:
    """What the game page shows of rematches: ``of`` (the game this one is a rematch of);
    on a finished game, ``status`` (its latest proposal) and whether the viewer may propose,
    or answer."""
    svc = service()
    status = svc.rematch_status(game_id) if finished else None
    open_ = status is not None and status.status == "open"
    return {
        "of": svc.rematch_of(game_id),
        "finished": finished,
        "status": status,
        "can_propose": finished
        and seat is not None
        and (status is None or status.status == "declined"),
        "can_answer": open_ and seat is not None and status is not None and seat in status.waiting,
    }
