"""The game page drawn for one seat or a spectator: ``render_game``, which the game's own view
and every form of the page (a move, a dispute, a take-back) answer with, the error shown
beside the form that failed and what was typed kept in it.

It has a module of its own so that the forms' blueprints (``disputes``, ``undo``) and the
page's (``routes``, which registers them) all import it and none imports another.
"""

from __future__ import annotations

from flask import render_template

from pbem.play.views import describe
from web.pages.common import board_context, log_lines, service, since_last_move

#: How many of the latest log lines the game page shows (the history page has them all).
RECENT = 12


def render_game(
    game_id: str,
    seat: int | None,
    *,
    error: str | None = None,
    typed: str = "",
    status: int = 200,
    dispute_error: str | None = None,
    dispute_typed: dict[str, str] | None = None,
    undo_error: str | None = None,
) -> tuple[str, int]:
    """The game page for ``seat`` (None: the public view) with ``status``; ``error`` and
    ``typed`` belong to the move form, ``dispute_*`` to the dispute form, ``undo_error`` to
    the take-back form."""
    svc = service()
    loaded = svc.load(game_id)
    doc = describe(loaded, seat)
    names = loaded.names
    lines = log_lines(svc.events(game_id, 0, seat), names)
    your_turn = seat is not None and seat in doc["to_act"] and bool(doc["legal"])
    clock = svc.clock_of(game_id, seat if your_turn and not doc["finished"] else None)
    html = render_template(
        "game.html",
        g=doc,
        seat=seat,
        view=doc["view"],
        your_turn=your_turn,
        waiting=[names.of(s) for s in doc["to_act"]],
        lines=lines[-RECENT:],
        earlier=max(0, len(lines) - RECENT),
        error=error,
        typed=typed,
        disputes=svc.disputes_of(game_id),
        dispute_error=dispute_error,
        dispute_typed=dispute_typed or {},
        undo=svc.undo_request(game_id),
        # Only a seat with a move of its own in effect has something to take back.
        can_take_back=seat is not None and since_last_move(lines, seat) is not None,
        undo_error=undo_error,
        time_control=clock["time_control"],
        deadline=clock["deadline"],
        **board_context(loaded, doc, names),
    )
    return html, status
