"""The seat page's conversation panel (``templates/_talk.html``): the table talk the seat may
read, and a form to write to everyone or to chosen players. The form answers like the page's
other forms: back to the game page saying what was done, or the page again with the refusal
at its top and the words kept in the form. Only a seat's browser (its page session) writes,
with the page's CSRF token; spectators and the public page see no table talk.

The panel reads its messages itself (``talk_panel``, given to every template), so the seat
page includes it in one line and passes nothing.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, g, request

from pbem.core.errors import BadRequest, ServiceError
from pbem.core.numbers import read_int
from pbem.talk.events import MAX_TEXT
from web.pages.common import seat_or_refusal, service
from web.pages.game_page import done, render_game

talk_pages = Blueprint("talk", __name__)

CHANNEL = "web"
WRITE = "write at the table"


@talk_pages.app_context_processor
def _panel() -> dict[str, Any]:
    return {"talk_panel": talk_panel}


def talk_panel(game_id: str, seat: int | None) -> dict[str, Any] | None:
    """What the panel shows to ``seat``: its messages, the players it may write to, and what
    was typed when the form was refused; None for a spectator (no panel)."""
    if seat is None:
        return None
    svc = service()
    return {
        "messages": svc.talk_messages(game_id, seat),
        "others": svc.talk_recipients(game_id, seat),
        "typed": getattr(g, "talk_typed", None) or {"text": "", "to": [], "whom": "everyone"},
        "max_text": MAX_TEXT,
    }


@talk_pages.post("/games/<game_id>/talk")
def write(game_id: str) -> Any:
    seat, refusal = seat_or_refusal(game_id, WRITE)
    if seat is None:
        return refusal
    # Bounded before anything reads it; the service refuses over MAX_TEXT with the length.
    text = request.form.get("text", "")[: 4 * MAX_TEXT]
    whom = request.form.get("whom", "everyone")
    chosen = request.form.getlist("to")[:10]
    g.talk_typed = {"text": text, "to": chosen, "whom": whom}
    try:
        to = [read_int(v, what="a player") for v in chosen] if whom == "selected" else []
        if whom == "selected" and not to:
            raise BadRequest("Choose the players to write to, or write to everyone.")
        result = service().send_talk(game_id, seat, text, to, channel=CHANNEL)
    except ServiceError as e:
        return render_game(game_id, seat, alert=e.message, status=e.status)
    said = "to everyone" if not result.recipients else "to the players you chose"
    return done(game_id, f"Your message {said} was sent (version {result.version}).")
