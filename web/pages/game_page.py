"""The game page drawn for one seat or a spectator: ``render_game``, which the game's own view
and every form of the page (a move, a dispute, a take-back, the clock and settings forms)
answer with: what was done, or the refusal, at the top of the page where the person is
looking, and what was typed kept in the form.

It has a module of its own so that the forms' blueprints (``disputes``, ``undo``) and the
page's (``routes``, which registers them) all import it and none imports another.
"""

from __future__ import annotations

from typing import Any

from flask import flash, get_flashed_messages, redirect, render_template, url_for

from pbem.core import events as ev
from pbem.core.naming import Names
from pbem.play.views import describe
from web.pages.common import (
    ADDRESS_NEEDS_MAIL,
    LogLine,
    board_context,
    held_admin,
    log_lines,
    opened_by_mail,
    service,
    since_last_move,
)
from web.pages.outcome import the_end

#: Where a form's answer sends the browser back to: the top of the page's content.
TOP = "content"
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
    alert: str | None = None,
    order_typed: str | None = None,
    until_typed: str = "",
    zone_typed: str | None = None,
) -> tuple[str, int]:
    """The game page for ``seat`` (None: the public view) with ``status``; ``error`` and
    ``typed`` belong to the move form, ``dispute_*`` to the dispute form, ``undo_error`` to
    the take-back form, ``alert`` and the ``*_typed`` to the clock and settings forms. Every
    refusal is shown in the box at the top of the page."""
    svc = service()
    loaded = svc.load(game_id)
    doc = describe(loaded, seat)
    names = loaded.names
    lines = log_lines(svc.events(game_id, 0, seat), names)
    your_turn = seat is not None and seat in doc["to_act"] and bool(doc["legal"])
    clock = svc.clock_of(game_id, seat if your_turn and not doc["finished"] else None)
    mine = None
    if seat is not None and not doc["finished"]:
        mine = svc.seat_settings(game_id, seat)
        mine["by_mail"] = opened_by_mail(game_id)
    end = _end(game_id, seat, doc, names, lines) if doc["finished"] else None
    # A game waiting for players: how many more, and (a public one) where to join.
    join = None
    if loaded.waiting and svc.can_see(game_id):
        join = url_for("pages.open_seats.join_page", game_id=game_id)
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
        notices=get_flashed_messages(category_filter=["done"]),
        alert=alert,
        mine=mine,
        order_typed=order_typed,
        until_typed=until_typed,
        zone_typed=zone_typed,
        end=end,
        open_seats=loaded.open_seats,
        join=join,
        address_needs_mail=ADDRESS_NEEDS_MAIL,
        # a browser holding the game's admin link is offered its administrator's page
        is_admin=svc.is_admin(game_id, held_admin(game_id)),
        **board_context(loaded, doc, names),
    )
    return html, status


def _end(
    game_id: str, seat: int | None, doc: dict[str, Any], names: Names, lines: list[LogLine]
) -> dict[str, Any]:
    """A finished game's result for the viewer and its verification: the chain and the
    re-run checked by the service's verifier, and the seed the game was played from (in the
    log once the game is over: ``GameFinished``)."""
    finished = next((x.event["data"] for x in lines if x.kind == ev.GAME_FINISHED), None)
    return {
        **the_end(doc["outcome"] or {}, seat, names),
        "report": service().verify_game(game_id),
        "seed": finished["seed"] if finished else None,
        "reason": finished["reason"] if finished else None,
    }


def done(game_id: str, message: str) -> Any:
    """Back to the top of the game page, saying there what was done: the notice box at the
    top, read out by screen readers (``role="status"``). The anchor is the page's own top
    (``main``): a browser sent back to the URL it was on keeps its scroll position
    otherwise, below the fold where the form was."""
    flash(message, "done")
    return redirect(url_for("pages.game_page", game_id=game_id, _anchor=TOP), 303)
