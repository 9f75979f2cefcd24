"""The HTML pages: the index, a game's page for its seats (the board drawn from the seat's
view, legal moves as clickable choices, the typed-text box) and for spectators (the public
view), and the small JSON document the pages poll to refresh when the game moves.

History, audit, game creation, disputes, undo, the seat's clock and settings forms and the
administrator's page are blueprints of their own, registered
under this one, so that its check of private games covers their pages too; the page itself is
drawn by ``game_page.render_game``, which the forms of those blueprints answer with as well.
Everything shown comes from ``pbem.play.views.describe`` (the rules' view for the viewer) and the
log as the viewer may see it.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, redirect, render_template, request, session, url_for

from pbem.core.errors import ServiceError
from pbem.core.naming import Names
from pbem.core.numbers import NumberError, read_int
from web.games import WEB_GAMES
from web.pages.admin_links import take_admin_link
from web.pages.admin_page import admin_page
from web.pages.audit import audit
from web.pages.common import (
    ADMIN_KEY,
    SESSION_KEY,
    forget,
    held_admin,
    refused,
    remember,
    seat_from_credential,
    seat_names,
    seat_or_refusal,
    service,
    session_seat,
)
from web.pages.disputes import disputes_pages
from web.pages.game_page import render_game
from web.pages.handover import handover_pages
from web.pages.history import history
from web.pages.newgame import newgame
from web.pages.open_seats import open_seats
from web.pages.rematch import rematch_pages
from web.pages.seat_commands import seat_commands
from web.pages.talk import talk_pages
from web.pages.undo import undo_pages
from web.pages.webhooks import webhook_pages

pages = Blueprint("pages", __name__)
pages.register_blueprint(history)
pages.register_blueprint(audit)
pages.register_blueprint(newgame)
pages.register_blueprint(disputes_pages)
pages.register_blueprint(undo_pages)
pages.register_blueprint(rematch_pages)
pages.register_blueprint(seat_commands)
pages.register_blueprint(talk_pages)
pages.register_blueprint(admin_page)
pages.register_blueprint(handover_pages)
pages.register_blueprint(webhook_pages)
pages.register_blueprint(open_seats)

#: The longest move text the page accepts (a whole mail's worth of lines).
MAX_TEXT = 4000


#: the pages a substitute's invitation link opens (``web.pages.handover``)
_NEWCOMER_PAGES = ("pages.handover.invitation", "pages.handover.accept")


def _holds_newcomer_link(game_id: str) -> bool:
    """Whether the request carries a valid, still open substitute invitation link."""
    link = request.values.get("link", "")[:500]
    if not link:
        return False
    try:
        service().substitute_invitation(game_id, link)
    except ServiceError:
        return False
    return True


@pages.before_request
def _private_games() -> Any:
    """A private game exists only for its seats and its admin: every page of it (the game,
    history, audit, export, status) tells anyone else there is no such game, in the words
    used for a game that does not exist, so it is never confirmed."""
    game_id = (request.view_args or {}).get("game_id")
    if game_id is None:
        return None
    svc = service()
    if request.endpoint in ("pages.open_seats.join_page", "pages.open_seats.join"):
        # A private game's join page opens with its join link's key, which the page checks
        # (without it: "no such game", in these words).
        return None
    if svc.can_see(game_id):
        return None  # a public game
    on_game_page = request.endpoint == "pages.game_page"
    # The game's admin link on its page or its administrator's page (or in the form that
    # confirms taking it): the view exchanges it for the cookie (a seat token presented as
    # one is refused there).
    takes_admin = request.endpoint in ("pages.game_page", "pages.admin.admin_home")
    presented = request.args.get("admin") if takes_admin else None
    if request.endpoint == "pages.take_admin":
        presented = request.form.get("admin")
    if presented and svc.can_see(game_id, token=presented):
        return None
    if svc.can_see(game_id, seat=session_seat(game_id), token=held_admin(game_id)):
        return None
    if request.endpoint in _NEWCOMER_PAGES and _holds_newcomer_link(game_id):
        # A substitute's invitation link opens its own page of a private game (the newcomer
        # holds no seat yet); without a valid link: "no such game", as below.
        return None
    exchanging = on_game_page or request.endpoint == "pages.take_seat"
    for kind in ("link", "token"):
        # A seat's credential on the game page (or in the form that confirms taking the
        # seat): the page exchanges it for the cookie.
        if exchanging and request.values.get(kind):
            try:
                seat_from_credential(game_id, {kind: request.values[kind]})
            except ServiceError:
                continue
            return None
    message = f"There is no game {game_id!r}."
    if request.endpoint == "pages.status":
        return {"error": message}, 404
    return refused(message, 404)


@pages.get("/")
def index() -> str:
    svc = service()
    games = svc.list_games(50)
    for g in games:
        try:
            names = svc.load(g["id"]).names
        except (ServiceError, ValueError, KeyError):
            names = Names(tuple(g["players"]))  # a game that cannot be folded: names alone
        g["players"] = seat_names(names)
        g["to_act_names"] = [names.of(s) for s in g["to_act"]]
    # Anything held (a seat or an admin link of any game) can be signed out of from here.
    signed_in = bool(session.get(SESSION_KEY) or session.get(ADMIN_KEY))
    return render_template("index.html", games=games, signed_in=signed_in)


@pages.get("/games/<game_id>")
def game_page(game_id: str) -> Any:
    presented_admin = request.args.get("admin")
    if presented_admin:
        return take_admin_link(game_id, presented_admin, "game")
    for kind in ("link", "token"):
        presented = request.args.get(kind)
        if presented:
            # Exchange the credential for the session cookie, then show the clean URL.
            try:
                offered = seat_from_credential(game_id, {kind: presented})
            except ServiceError as e:
                return refused(e.message, e.status)
            held = session_seat(game_id)
            if held is not None and held != offered:
                # Another site can make a browser open any link: it must not swap the seat
                # this browser holds for one of its choosing without the person saying so.
                return switch_seat_page(game_id, held, offered, kind, presented)
            remember(game_id, {kind: presented})
            return redirect(url_for("pages.game_page", game_id=game_id), 303)
    seat = None if request.args.get("view") == "public" else session_seat(game_id)
    try:
        return render_game(game_id, seat)
    except ServiceError as e:
        return refused(e.message, e.status)


@pages.post("/games/<game_id>")
def play(game_id: str) -> Any:
    seat, refusal = seat_or_refusal(game_id, "move")
    if seat is None:
        return refusal
    # A clicked choice plays that action; otherwise the typed text (kept on an error).
    typed = request.form.get("action", "")[:MAX_TEXT]
    text = request.form.get("choice") or typed
    game = WEB_GAMES.get(service().load(game_id).game)
    if game is not None:
        # a move whose parts the game's board asks for in fields of their own
        text = game.form_move(text, request.form)
    try:
        expected = read_int(request.form.get("expected_version", ""), what="the version")
    except NumberError:
        return render_game(
            game_id,
            seat,
            error="The form was not complete; reload the page and try again.",
            typed=typed,
            status=400,
        )
    if not text.strip():
        return render_game(
            game_id, seat, error="Choose a move, or type one in the box.", typed=typed, status=400
        )
    try:
        result = service().submit(
            game_id,
            seat,
            text,
            expected_version=expected,
            channel="web",
            stale_policy="same_decision",
        )
    except ServiceError as e:
        return render_game(game_id, seat, error=e.message, typed=typed, status=e.status)
    if result.error is not None:
        # Some lines were applied before one failed: say which one stopped.
        return render_game(game_id, seat, error=result.error.message, typed=typed, status=422)
    return redirect(url_for("pages.game_page", game_id=game_id), 303)


def switch_seat_page(game_id: str, held: int, offered: int, kind: str, credential: str) -> Any:
    """The question asked before a link replaces the seat this browser holds in a game: the
    answer is this site's own form (a CSRF token, same origin only)."""
    names = service().load(game_id).names
    page = render_template(
        "switch_seat.html",
        game_id=game_id,
        held=names.of(held),
        offered=names.of(offered),
        kind=kind,
        credential=credential,
    )
    # The page holds a seat's credential: no cache keeps it; the site's Referrer-Policy
    # (same-origin) keeps it from other sites ("no-referrer" would post its form with
    # "Origin: null", refused as cross-site).
    return page, 200, {"Cache-Control": "no-store"}


@pages.post("/games/<game_id>/seat")
def take_seat(game_id: str) -> Any:
    """Take the seat of a link in place of the one held, once the person has confirmed it."""
    for kind in ("link", "token"):
        presented = request.form.get(kind)
        if presented:
            try:
                seat_from_credential(game_id, {kind: presented})
            except ServiceError as e:
                return refused(e.message, e.status)
            remember(game_id, {kind: presented})
            return redirect(url_for("pages.game_page", game_id=game_id), 303)
    return refused("The form named no seat: open the seat's link again.", 400)


@pages.post("/games/<game_id>/admin")
def take_admin(game_id: str) -> Any:
    """Take the admin link in place of the one held, once the person has confirmed it."""
    presented = request.form.get("admin")
    if not presented:
        return refused("The form named no admin link: open the admin link again.", 400)
    return take_admin_link(game_id, presented, request.form.get("page", ""), confirmed=True)


@pages.post("/games/<game_id>/leave")
def leave(game_id: str) -> Any:
    """Forget this browser's seat in the game (the link from the mails opens it again)."""
    forget(game_id)
    return redirect(url_for("pages.game_page", game_id=game_id), 303)


@pages.post("/leave")
def leave_browser() -> Any:
    """Forget every seat and admin token this browser holds (signing out of the service on a
    shared computer); the links from the mails open them again."""
    session.clear()
    return redirect(url_for("pages.index"), 303)


@pages.get("/games/<game_id>/status.json")
def status(game_id: str) -> Any:
    """What the pages poll: the version (a change means reload) and who is to act."""
    try:
        return service().game_status(game_id)
    except ServiceError as e:
        return {"error": e.message}, e.status
