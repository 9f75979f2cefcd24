"""The pages of substitutes (``pbem.handover``):

- on the seat page (the ``_handover.html`` partial): the proposal waiting, with the buttons
  that agree or refuse for a seat asked, and a form proposing a newcomer for a seat that
  missed its deadlines;
- on the administrator's page (``_handover_admin.html``): handing any seat over;
- ``/handover/<game_id>?link=…``: the link in the newcomer's invitation. Opening it only
  asks; the button accepts (a POST), so that a program that opens every link of a mail
  cannot take the seat over for them. Accepting leads to the seat's game page.

Who may is the service's to check in each command's unit of work (a seat's session, the
admin token, the signed link); every form carries the CSRF token.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, redirect, render_template, request

from pbem.core.errors import BadRequest, ServiceError
from pbem.core.numbers import NumberError, read_int
from pbem.handover.rules import MAX_NAME
from pbem.handover.texts import HOW_TO_PROPOSE
from web.pages import common as pc
from web.pages.admin_page import _command, _seat
from web.pages.game_page import done, render_game

handover_pages = Blueprint("handover", __name__)

CHANNEL = "web"
SUBSTITUTE = "propose or answer a substitute"


@handover_pages.app_context_processor
def _panel() -> dict[str, Any]:
    """``substitute_waiting(game_id)`` for the partials: the proposal waiting, if any."""

    def waiting(game_id: str) -> dict[str, Any] | None:
        try:
            return pc.service().substitute_waiting(game_id)
        except ServiceError:
            return None

    return {"substitute_waiting": waiting, "substitute_help": HOW_TO_PROPOSE}


def _newcomer() -> tuple[str, str]:
    name = request.form.get("name", "").strip()[: MAX_NAME + 1]
    email = request.form.get("email", "").strip()[:320]
    return name, email


@handover_pages.post("/games/<game_id>/substitute")
def propose(game_id: str) -> Any:
    seat, refusal = pc.seat_or_refusal(game_id, SUBSTITUTE)
    if seat is None:
        return refusal
    try:
        target = read_int(request.form.get("seat", ""), what="the seat")
    except NumberError:
        return render_game(game_id, seat, alert="Choose the seat to hand over.", status=400)
    name, email = _newcomer()
    try:
        result = pc.service().propose_substitute(
            game_id, seat, target, name, email, channel=CHANNEL
        )
    except ServiceError as e:
        return render_game(game_id, seat, alert=e.message, status=e.status)
    if result.status == "agreed":
        return done(game_id, f"Proposed, and agreed: {name} is invited to take the seat over.")
    return done(
        game_id, f"Proposed {name}: the seat is handed over when every other player agrees."
    )


@handover_pages.post("/games/<game_id>/substitute/<int:proposal>/decision")
def decide(game_id: str, proposal: int) -> Any:
    seat, refusal = pc.seat_or_refusal(game_id, SUBSTITUTE)
    if seat is None:
        return refusal
    answer = request.form.get("agree")
    if answer not in ("yes", "no"):
        return render_game(game_id, seat, alert="Choose to agree or to refuse.", status=400)
    try:
        result = pc.service().decide_substitute(
            game_id, seat, answer == "yes", proposal=proposal, channel=CHANNEL
        )
    except ServiceError as e:
        return render_game(game_id, seat, alert=e.message, status=e.status)
    said = {
        "refused": "You refused: the proposal is ended.",
        "agreed": "You agreed; every player has: the newcomer is invited.",
    }
    return done(game_id, said.get(result.status, "You agreed; the others have yet to answer."))


@handover_pages.post("/games/<game_id>/admin/substitute")
def admin_substitute(game_id: str) -> Any:
    def act(token: str) -> str:
        seat = _seat(game_id)
        name, email = _newcomer()
        pc.service().admin_substitute(game_id, token, seat, name, email, channel=CHANNEL)
        return (
            f"{name} is invited to take the seat over; the seat changes hands when they "
            "accept (until then its player plays on)."
        )

    return _command(game_id, act)


@handover_pages.get("/handover/<game_id>")
def invitation(game_id: str) -> Any:
    link = request.args.get("link", "")
    svc = pc.service()
    try:
        offer = svc.substitute_invitation(game_id, link)
        loaded = svc.load(game_id)
    except ServiceError as e:
        return pc.refused(e.message, e.status)
    names = loaded.names
    page = render_template(
        "handover_invitation.html",
        game_id=game_id,
        game=loaded.rules.name.title(),
        name=offer["new_name"],
        seat=names.label(offer["seat"]) or f"seat {offer['seat']}",
        old=offer["old_name"],
        players=names.many(s for s in range(len(names.people)) if s != offer["seat"]),
        link=link,
    )
    # The default Referrer-Policy (same-origin) keeps the link from other sites; "no-referrer"
    # would make Chromium send "Origin: null" with the button's post, refused as cross-site.
    return page, 200, {"Cache-Control": "no-store"}


@handover_pages.post("/handover/<game_id>")
def accept(game_id: str) -> Any:
    svc = pc.service()
    try:
        link = request.form.get("link", "")
        if not link:
            raise BadRequest("The form was not complete: open the link in the mail again.")
        result = svc.accept_substitution(game_id, link, channel=CHANNEL)
    except ServiceError as e:
        return pc.refused(e.message, e.status)
    # The seat's new link: the browser exchanges it for its session, as from a mail.
    return redirect(svc.seat_link(game_id, result.seat), 303)
