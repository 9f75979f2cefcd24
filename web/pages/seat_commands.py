"""The seat page's clock and preference forms, the mail's clock commands on the page: a
standing order (``default <move>`` / ``default none``), away until a day and back, asking
the others to extend this seat's deadline, pause or resume, answering such a request, the
address's time zone and its daily digest (``pbem.clock.replies`` words them for mail). Each
calls the service command the mail door calls, and answers by going back to the top of the
game page with what was done, or the page again with the refusal at its top.

Who may do what: each form acts for the seat this browser holds in this game, and only it
(``seat_or_refusal``). Away, back, time zone and digest are the address's, across its games,
in the mail: the page acts for the address only when the seat was opened from the link of a
mail to it (``?link=``, held in the session); the token shown when the game was created
proves the seat, not the address (whoever creates a game naming an address is handed it),
so with it away and back act in this game only, and time zone and digest are refused.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from pbem.clock.commands import MAX_ORDER, duration, parse_until
from pbem.clock.display import when_text
from pbem.clock.events import REQUESTS
from pbem.clock.replies import away_game_lines, back_game_lines
from pbem.core.errors import BadRequest, Forbidden, ServiceError
from web.pages.common import ADDRESS_NEEDS_MAIL, opened_by_mail, seat_or_refusal, service
from web.pages.game_page import done, render_game

seat_commands = Blueprint("seat", __name__)

CHANNEL = "web"
CLOCK = "change this seat's clock or settings"


def _shown(when: str | None) -> str:
    return "" if when is None else when[:16].replace("T", " ") + " UTC"


def _address(game_id: str, seat: int) -> str | None:
    """The seat's address when this browser's session proves it (a mail's link), else None."""
    if not opened_by_mail(game_id):
        return None
    info = service().seat_info(game_id, seat)
    return info.email if info is not None and info.email else None


@seat_commands.post("/games/<game_id>/standing-order")
def standing_order(game_id: str) -> Any:
    seat, refusal = seat_or_refusal(game_id, CLOCK)
    if seat is None:
        return refusal
    clear = request.form.get("clear") == "yes"
    text = request.form.get("order", "")[: MAX_ORDER + 1]
    try:
        if not clear and not text.strip():
            raise BadRequest("Write the move to play for you at your next deadline.")
        result = service().set_standing_order(
            game_id, seat, None if clear else text, channel=CHANNEL
        )
    except ServiceError as e:
        return render_game(game_id, seat, alert=e.message, order_typed=text, status=e.status)
    if clear:
        return done(game_id, "Your standing order is cleared: nothing is set for your deadline.")
    order = " ".join(text.split())
    if result.checked:
        return done(
            game_id,
            f"Standing order set: if your deadline passes, “{order}” is played for you "
            "(it is legal now).",
        )
    return done(
        game_id,
        f"Standing order kept: “{order}” is played for you if your next deadline passes; it "
        "is checked then, and if it is not legal at that moment the game's default move is "
        "played instead.",
    )


@seat_commands.post("/games/<game_id>/away")
def away(game_id: str) -> Any:
    seat, refusal = seat_or_refusal(game_id, CLOCK)
    if seat is None:
        return refusal
    svc = service()
    typed = request.form.get("until", "")[:40]
    try:
        until = parse_until(typed, svc.clock.now())
        address = _address(game_id, seat)
        if address is None:
            result = svc.away_in_game(game_id, seat, until, channel=CHANNEL)
            return done(
                game_id,
                f"Away until {_shown(result.until)} in this game: your clock stops here, "
                "within its vacation allowance. (Your other games: from a mail's link.)",
            )
        results = svc.away(address, until, channel=CHANNEL)
    except ServiceError as e:
        return render_game(game_id, seat, alert=e.message, until_typed=typed, status=e.status)
    # The mail's answer to "away until …", game by game, in the same words.
    games = " ".join(away_game_lines(until, results, game_id))
    return done(
        game_id,
        f"You are away until {when_text(until)}: your time stops counting in each of your "
        f"games, within its vacation allowance. {games}",
    )


@seat_commands.post("/games/<game_id>/back")
def back(game_id: str) -> Any:
    seat, refusal = seat_or_refusal(game_id, CLOCK)
    if seat is None:
        return refusal
    svc = service()
    try:
        address = _address(game_id, seat)
        if address is None:
            svc.back_in_game(game_id, seat, channel=CHANNEL)
            return done(game_id, "Welcome back: your clock runs again in this game.")
        results = svc.back(address, channel=CHANNEL)
    except ServiceError as e:
        return render_game(game_id, seat, alert=e.message, status=e.status)
    games = " ".join(back_game_lines(results, game_id))
    return done(game_id, f"Welcome back: your time counts again in every game. {games}")


@seat_commands.post("/games/<game_id>/clock-request")
def ask(game_id: str) -> Any:
    seat, refusal = seat_or_refusal(game_id, CLOCK)
    if seat is None:
        return refusal
    what = request.form.get("what", "")
    by = request.form.get("by", "").strip()[:40]
    try:
        if what not in REQUESTS:
            raise BadRequest(f"Ask for one of: {', '.join(REQUESTS)}.")
        seconds = duration(by) if by and what == "extend" else None
        asked = service().request_clock_change(game_id, seat, what, seconds, channel=CHANNEL)
    except ServiceError as e:
        return render_game(game_id, seat, alert=e.message, status=e.status)
    if asked.status == "granted":
        return done(game_id, f"Done: {asked.done}.")
    return done(
        game_id,
        f"You {asked.done}: each of them can agree or refuse on their page or by mail; you "
        "will hear the outcome.",
    )


@seat_commands.post("/games/<game_id>/clock-request/answer")
def answer(game_id: str) -> Any:
    seat, refusal = seat_or_refusal(game_id, CLOCK)
    if seat is None:
        return refusal
    agree = request.form.get("agree")
    what = request.form.get("what") or None
    try:
        if agree not in ("yes", "no"):
            raise BadRequest("Choose to agree or to refuse.")
        if what is not None and what not in REQUESTS:
            raise BadRequest(f"Answer a request to one of: {', '.join(REQUESTS)}.")
        answered = service().answer_clock_request(
            game_id, seat, what, agree == "yes", channel=CHANNEL
        )
    except ServiceError as e:
        return render_game(game_id, seat, alert=e.message, status=e.status)
    if answered.status == "granted":
        return done(game_id, f"You agreed, the last player asked to. Granted: {answered.done}.")
    return done(game_id, f"Recorded: you {answered.done}.")


def _address_or_refusal(game_id: str, seat: int) -> str:
    address = _address(game_id, seat)
    if address is None:
        raise Forbidden(ADDRESS_NEEDS_MAIL)
    return address


@seat_commands.post("/games/<game_id>/time-zone")
def time_zone(game_id: str) -> Any:
    seat, refusal = seat_or_refusal(game_id, CLOCK)
    if seat is None:
        return refusal
    typed = request.form.get("zone", "")[:64]
    try:
        address = _address_or_refusal(game_id, seat)
        zone = service().set_time_zone(address, typed)
    except ServiceError as e:
        return render_game(game_id, seat, alert=e.message, zone_typed=typed, status=e.status)
    if zone is None:
        return done(game_id, f"Time zone cleared: deadlines are shown to {address} in UTC only.")
    return done(
        game_id,
        f"Time zone set: {zone}. Every deadline mailed or shown to {address}, in all your "
        f"games, now gives its time in {zone} too.",
    )


@seat_commands.post("/games/<game_id>/digest")
def digest(game_id: str) -> Any:
    seat, refusal = seat_or_refusal(game_id, CLOCK)
    if seat is None:
        return refusal
    mode = request.form.get("digest")
    try:
        address = _address_or_refusal(game_id, seat)
        if mode not in ("daily", "off"):
            raise BadRequest("Choose a daily digest, or a mail at each of your turns.")
        service().set_digest(address, mode == "daily")
    except ServiceError as e:
        return render_game(game_id, seat, alert=e.message, status=e.status)
    if mode == "daily":
        return done(
            game_id,
            f"Daily digest on: {address} gets one mail a day listing every game waiting for "
            "your move, instead of a mail at each turn (every other mail still comes).",
        )
    return done(game_id, f"Daily digest off: {address} gets a mail at each of its turns again.")
