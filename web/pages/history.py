"""The history viewer: step to any version of a game and see the board as the viewer's seat
saw it then (the public view for spectators), with that step's log line highlighted.

The board at version V is ``describe(service.load(game_id, at=V), seat)``: the rules' view
at that version, so a secret choice stays hidden exactly as it was then. Retracted steps are
struck through, never hidden.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template, request, url_for

from pbem.core.errors import ServiceError
from pbem.core.numbers import NumberError, read_int
from pbem.play.views import describe
from web.pages import common as pc

history = Blueprint("history", __name__)


@history.get("/games/<game_id>/history")
def history_page(game_id: str) -> Any:
    svc = pc.service()
    public = request.args.get("view") == "public"
    try:
        seat = None if public else pc.session_seat(game_id)
        head = svc.load(game_id)
        at_text = request.args.get("at", "")
        try:
            at = read_int(at_text, what="the version", minimum=1) if at_text else head.version
        except NumberError:
            return pc.refused(
                f"'{at_text[:40]}' is not a version: give a number from 1 to {head.version}.", 400
            )
        loaded = svc.load(game_id, at=at)
        # The log exactly as the viewer saw it at that version: what a later step revealed
        # or retracted is not shown beside the board of before.
        events = svc.log_as_of(game_id, seat, loaded.version, head.names)
        now = svc.events(game_id, 0, seat) if seat is not None else []
    except ServiceError as e:
        return pc.refused(e.message, e.status)
    names = head.names
    doc = describe(loaded, seat)
    doc["legal"] = []  # a past position is looked at, not played
    lines = pc.log_lines(events, names)
    # a way through the game, worked out from the log as it stands now
    since = pc.since_last_move(pc.log_lines(now, names), seat) if seat is not None else None
    extra: dict[str, Any] = {"view": "public"} if public else {}

    base = url_for("pages.history.history_page", game_id=game_id, **extra)
    joiner = "&" if "?" in base else "?"

    def link(version: int) -> str:
        return f"{base}{joiner}at={version}"

    current = next((line for line in lines if line.version == at), None)
    return render_template(
        "history.html",
        g=doc,
        seat=seat,
        view=doc["view"],
        your_turn=False,
        waiting=[names.of(s) for s in doc["to_act"]],
        lines=lines,
        current=at,
        current_line=current,
        head=head.version,
        since=since,
        history_link=link,
        public=public,
        error=None,
        typed="",
        **pc.board_context(loaded, doc, names),
    )
