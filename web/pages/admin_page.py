"""The game's administrator page, ``/games/<id>/admin``, opened with the game's admin link
(``?admin=``, exchanged for the session cookie as on the game page): what the command line
and the JSON API let the administrator do, on a page — each seat's deadline and extending
it, pausing and resuming the game, changing its time control, resigning a seat for a player
who left, ending the game, every dispute with its whole evidence and the buttons that
uphold or dismiss it, and the game's table talk with a button per message that hides it
with a reason.

Who may: only a browser holding this game's admin token (another game's token, a seat's
session or a visitor is refused, changing nothing); each command is the service's own
(``extend``, ``pause``, ``resume``, ``set_time_control``, ``admin_resign``, ``admin_end``,
``resolve_dispute``, ``hide_talk``), which checks the token again in the command's unit of
work. What was done, or the refusal, is shown at the top of the page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import (
    Blueprint,
    flash,
    get_flashed_messages,
    redirect,
    render_template,
    request,
    url_for,
)

from pbem.clock.commands import duration
from pbem.core.errors import BadRequest, ServiceError
from pbem.core.numbers import NumberError, read_int
from pbem.disputes.rules import MAX_TEXT
from pbem.talk.events import MAX_TEXT as MAX_REASON
from web.pages import common as pc
from web.pages.admin_links import take_admin_link
from web.pages.game_page import TOP
from web.pages.open_seats import join_url

admin_page = Blueprint("admin", __name__)

CHANNEL = "web"
NOT_ADMIN = (
    "This page is the game's administrator's: open the admin link shown when the game was "
    "created (another game's admin link does not open it)."
)


#: A seat's clock as the administrator reads it (the ``deadlines`` read model's status).
CLOCK_WORDS = {
    "idle": "not to act",
    "untimed": "no deadline",
    "running": "running",
    "paused": "paused",
    "late": "deadline passed: waiting for you",
    "resigned": "resigned",
}


def _token(game_id: str) -> str | None:
    """This browser's admin token for the game when it is the game's, else None."""
    token = pc.held_admin(game_id)
    return token if pc.service().is_admin(game_id, token) else None


def _page(game_id: str, *, alert: str | None = None, status: int = 200) -> tuple[str, int]:
    svc = pc.service()
    loaded = svc.load(game_id)
    names = loaded.names
    finished = bool(svc.game_status(game_id)["finished"])
    deadlines = {d["seat"]: d for d in svc.deadlines(game_id)}
    seats = []
    for s in range(len(names.people)):
        info = svc.seat_info(game_id, s)
        row = deadlines.get(s)
        seats.append(
            {
                "seat": s,
                "name": names.of(s),
                "resigned": bool(info and info.resigned),
                "status": CLOCK_WORDS.get(row["status"], row["status"]) if row else "no deadline",
                "due": (row["due_at"] or "")[:16].replace("T", " ") if row else "",
                "away": (row["away_until"] or "")[:16].replace("T", " ") if row else "",
            }
        )
    clock = svc.clock_of(game_id, None)
    html = render_template(
        "admin.html",
        game_id=game_id,
        game=loaded.game,
        version=loaded.version,
        finished=finished,
        seats=seats,
        timed=bool(deadlines),
        paused=any(d["status"] == "paused" for d in deadlines.values()),
        time_control=clock["time_control"],
        disputes=svc.audit(game_id, viewer=None, admin=True)["disputes"],
        talk=svc.talk_messages(game_id, None, admin=True),
        seat=None,
        admin=True,
        notices=get_flashed_messages(category_filter=["admin"]),
        alert=alert,
        open_seats=loaded.open_seats,
        joined=len(loaded.seats),
    )
    return html, status


def _done(game_id: str, message: str) -> Any:
    flash(message, "admin")
    return redirect(url_for("pages.admin.admin_home", game_id=game_id, _anchor=TOP), 303)


@admin_page.get("/games/<game_id>/admin")
def admin_home(game_id: str) -> Any:
    presented = request.args.get("admin")
    if presented:
        return take_admin_link(game_id, presented, "admin")
    try:
        if _token(game_id) is None:
            return pc.refused(NOT_ADMIN, 403)
        return _page(game_id)
    except ServiceError as e:
        return pc.refused(e.message, e.status)


def _seat(game_id: str) -> int:
    try:
        return read_int(request.form.get("seat", ""), what="the seat", minimum=0)
    except NumberError:
        raise BadRequest("Choose the seat.") from None


def _command(game_id: str, act: Callable[[str], str]) -> Any:
    """Run ``act(token)`` for the game's administrator: back to the top of the page with
    what it did, or the page with the refusal at its top (nothing changed)."""
    try:
        token = _token(game_id)
        if token is None:
            return pc.refused(NOT_ADMIN, 403)
        said: str = act(token)
    except ServiceError as e:
        try:
            return _page(game_id, alert=e.message, status=e.status)
        except ServiceError:
            return pc.refused(e.message, e.status)
    return _done(game_id, said)


@admin_page.post("/games/<game_id>/admin/extend")
def extend(game_id: str) -> Any:
    def act(token: str) -> str:
        seat = _seat(game_id)
        by = request.form.get("by", "").strip()[:40]
        if not by:
            raise BadRequest("Say how much longer, e.g. 24h or 1d 12h.")
        result = pc.service().extend(game_id, token, seat, duration(by), channel=CHANNEL)
        return f"Done: {result.done}."

    return _command(game_id, act)


@admin_page.post("/games/<game_id>/admin/pause")
def pause(game_id: str) -> Any:
    def act(token: str) -> str:
        pc.service().pause(game_id, token, channel=CHANNEL)
        return "The game is paused: every clock stopped."

    return _command(game_id, act)


@admin_page.post("/games/<game_id>/admin/resume")
def resume(game_id: str) -> Any:
    def act(token: str) -> str:
        pc.service().resume(game_id, token, channel=CHANNEL)
        return "The game is resumed: the clocks run again."

    return _command(game_id, act)


@admin_page.post("/games/<game_id>/admin/time-control")
def time_control(game_id: str) -> Any:
    def act(token: str) -> str:
        value = request.form.get("time_control", "").strip()[:200]
        if not value:
            raise BadRequest(
                "Write a time control: a preset (standard, fast …) or a time per move (48h)."
            )
        result = pc.service().set_time_control(game_id, token, value, channel=CHANNEL)
        return f"Done: {result.done} (from each seat's next decision on)."

    return _command(game_id, act)


@admin_page.post("/games/<game_id>/admin/resign")
def resign(game_id: str) -> Any:
    def act(token: str) -> str:
        seat = _seat(game_id)
        svc = pc.service()
        result = svc.admin_resign(game_id, token, seat)
        name = svc.load(game_id).names.of(seat)
        end = " The game is over." if result.finished else ""
        return f"{name} is resigned: their turns are played automatically from now on.{end}"

    return _command(game_id, act)


@admin_page.post("/games/<game_id>/admin/end")
def end(game_id: str) -> Any:
    def act(token: str) -> str:
        if request.form.get("confirm") != "yes":
            raise BadRequest("Tick the box to say you mean to end the game.")
        pc.service().admin_end(game_id, token)
        return "The game is ended: every seat still playing resigned, and the seed is revealed."

    return _command(game_id, act)


@admin_page.post("/games/<game_id>/admin/disputes/<int:dispute>/resolve")
def resolve(game_id: str, dispute: int) -> Any:
    def act(token: str) -> str:
        decision = request.form.get("decision")
        if decision not in ("uphold", "dismiss"):
            raise BadRequest("Choose to uphold or to dismiss the dispute.")
        reason = request.form.get("reason", "")[:MAX_TEXT]
        result = pc.service().resolve_dispute(
            game_id, token, dispute, uphold=decision == "uphold", reason=reason, channel=CHANNEL
        )
        if decision == "dismiss":
            return f"Dispute {dispute} dismissed: every player is told why."
        taken = ", ".join(str(v) for v in result.retracted)
        return (
            f"Dispute {dispute} upheld: version(s) {taken} taken back."
            if taken
            else (f"Dispute {dispute} upheld.")
        )

    return _command(game_id, act)


@admin_page.post("/games/<game_id>/admin/start")
def start_now(game_id: str) -> Any:
    """Start a game waiting for players with those who joined (``pbem.create.open_seats``)."""

    def act(token: str) -> str:
        players = pc.service().start_game_now(game_id, token, channel=CHANNEL)
        return f"The game has started with {players} players."

    return _command(game_id, act)


@admin_page.post("/games/<game_id>/admin/join-link")
def new_join_link(game_id: str) -> Any:
    """Replace the game's join link: the old one stops working; the new one is shown once."""

    def act(token: str) -> str:
        key = pc.service().revoke_join_link(game_id, token)
        return (
            f"The old join link no longer works. The new one (shown once): {join_url(game_id, key)}"
        )

    return _command(game_id, act)


@admin_page.post("/games/<game_id>/admin/talk/<int:version>/hide")
def hide_talk(game_id: str, version: int) -> Any:
    def act(token: str) -> str:
        reason = request.form.get("reason", "")[: 4 * MAX_REASON]
        pc.service().hide_talk(game_id, token, version, reason, channel=CHANNEL)
        return f"The message at version {version} is hidden: its readers see your reason."

    return _command(game_id, act)
