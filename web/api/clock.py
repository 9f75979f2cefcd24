# flask-smorest ships no type hints: its decorators and classes are Any to mypy.
# mypy: disable-error-code="untyped-decorator,misc"
"""The JSON API of the game's clock (docs/deadlines.md), on the API's blueprint.

With the game's admin token (``/admin/…``): each seat's deadline, extending a seat's
deadline, pausing and resuming the game, changing its time control from the next decision
on. With a seat token: a standing order for the seat's next deadline, going away and coming
back (in this game only: a seat token does not prove the address), and asking the others'
consent to extend the deadline, pause or resume, or answering such a request.
"""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from pbem.clock.commands import MAX_ORDER, duration, parse_until
from pbem.clock.events import REQUESTS
from pbem.core.errors import BadRequest, Forbidden
from web.api.routes import BEARER, _errors, bearer_token, blp, required_seat, service
from web.api.schemas import Strict
from web.numbers import WholeNumber

CHANNEL = "api"


class ExtendIn(Strict):
    seat = WholeNumber(required=True, strict=True)
    by = fields.String(
        required=True,
        validate=validate.Length(min=1, max=40),
        metadata={"description": "how much longer, as people write it", "example": "24h"},
    )


class TimeControlIn(Strict):
    time_control = fields.Raw(
        required=True,
        metadata={
            "description": "a preset (standard), a time per decision (48h), or an object",
            "example": "standard",
        },
    )


class StandingOrderIn(Strict):
    text = fields.String(
        required=True,
        allow_none=True,
        validate=validate.Length(min=1, max=MAX_ORDER),
        metadata={"description": "the move for your next deadline; null clears it"},
    )


class AwayIn(Strict):
    until = fields.String(
        required=True,
        validate=validate.Length(min=1, max=40),
        metadata={"description": "the day you are back (UTC)", "example": "2026-12-24 18:00"},
    )


class RequestIn(Strict):
    what = fields.String(required=True, validate=validate.OneOf(REQUESTS))
    by = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.Length(min=1, max=40),
        metadata={"description": "extend only: how much (default: one decision's time)"},
    )


class RequestAnswerIn(Strict):
    what = fields.String(load_default=None, allow_none=True, validate=validate.OneOf(REQUESTS))
    agree = fields.Boolean(required=True)


class ClockOut(Schema):
    game_id = fields.String()
    version = fields.Integer()
    done = fields.String()
    status = fields.String()
    checked = fields.Boolean()
    request = fields.Integer(allow_none=True)
    deadlines = fields.List(fields.Dict())


class VacationOut(Schema):
    games = fields.List(fields.Dict())


def _admin(game_id: str) -> str | None:
    token = bearer_token()
    svc = service()
    if not svc.is_admin(game_id, token):
        raise Forbidden("This needs the game's admin token.")
    return token


def _with_deadlines(result: Any, seat: int | None = None) -> dict[str, Any]:
    """The result with each seat's deadline; answering a seat (``seat``), whether another
    seat has a standing order is left out: it is that seat's alone (docs/deadlines.md)."""
    data: dict[str, Any] = result.to_json()
    for name in ("status", "checked", "request"):
        if hasattr(result, name):
            data[name] = getattr(result, name)
    deadlines = service().deadlines(result.game_id)
    if seat is not None:
        for row in deadlines:
            if row["seat"] != seat:
                del row["standing_order"]
    data["deadlines"] = deadlines
    return data


@blp.route("/games/<game_id>/admin/deadlines")
class AdminDeadlines(MethodView):
    @blp.response(200, ClockOut)
    @blp.doc(security=BEARER)
    @_errors(403, 404)
    def get(self, game_id: str) -> dict[str, Any]:
        """Each seat's deadline (the game's admin token)."""
        _admin(game_id)
        return {"game_id": game_id, "deadlines": service().deadlines(game_id)}


@blp.route("/games/<game_id>/admin/extend")
class AdminExtend(MethodView):
    @blp.arguments(ExtendIn)
    @blp.response(201, ClockOut)
    @blp.doc(security=BEARER)
    @_errors(400, 403, 404, 409)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Give a seat more time for the decision it owes now."""
        seconds = duration(body["by"])
        result = service().extend(game_id, bearer_token(), body["seat"], seconds, channel=CHANNEL)
        return _with_deadlines(result)


@blp.route("/games/<game_id>/admin/pause")
class AdminPause(MethodView):
    @blp.response(201, ClockOut)
    @blp.doc(security=BEARER)
    @_errors(403, 404, 409)
    def post(self, game_id: str) -> dict[str, Any]:
        """Stop every clock of the game until it is resumed."""
        return _with_deadlines(service().pause(game_id, bearer_token(), channel=CHANNEL))


@blp.route("/games/<game_id>/admin/resume")
class AdminResume(MethodView):
    @blp.response(201, ClockOut)
    @blp.doc(security=BEARER)
    @_errors(403, 404, 409)
    def post(self, game_id: str) -> dict[str, Any]:
        """Let the game's clocks run again."""
        return _with_deadlines(service().resume(game_id, bearer_token(), channel=CHANNEL))


@blp.route("/games/<game_id>/admin/time-control")
class AdminTimeControl(MethodView):
    @blp.arguments(TimeControlIn)
    @blp.response(201, ClockOut)
    @blp.doc(security=BEARER)
    @_errors(400, 403, 404, 409)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Change the time control from each seat's next decision on."""
        result = service().set_time_control(
            game_id, bearer_token(), body["time_control"], channel=CHANNEL
        )
        return _with_deadlines(result)


@blp.route("/games/<game_id>/standing-order")
class StandingOrder(MethodView):
    @blp.arguments(StandingOrderIn)
    @blp.response(201, ClockOut)
    @blp.doc(security=BEARER)
    @_errors(400, 401, 403, 404, 409, 422)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """The move to play for you if your next deadline passes (checked now if you owe the
        decision now, else at the deadline); null clears it."""
        seat = required_seat(game_id)
        result = service().set_standing_order(game_id, seat, body["text"], channel=CHANNEL)
        return _with_deadlines(result, seat)


# A seat token proves one seat of one game, not its address (whoever creates a game naming
# an address is handed that seat's token): going away and coming back here act in this game
# only, and the answer names no other game. Across every game of the address: by mail.


@blp.route("/games/<game_id>/away")
class Away(MethodView):
    @blp.arguments(AwayIn)
    @blp.response(201, VacationOut)
    @blp.doc(security=BEARER)
    @_errors(400, 401, 403, 404, 409)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Go away until a day: your clock stops in this game, within its vacation allowance
        (in every game of your address: reply 'away until …' to a mail of the game)."""
        seat = required_seat(game_id)
        svc = service()
        until = parse_until(body["until"], svc.clock.now())
        result = svc.away_in_game(game_id, seat, until, channel=CHANNEL)
        return {"games": [result.to_json()]}


@blp.route("/games/<game_id>/back")
class Back(MethodView):
    @blp.response(201, VacationOut)
    @blp.doc(security=BEARER)
    @_errors(401, 403, 404, 409)
    def post(self, game_id: str) -> dict[str, Any]:
        """Back early: your vacation in this game ends now (in every game of your address:
        reply 'back' to a mail of the game)."""
        seat = required_seat(game_id)
        result = service().back_in_game(game_id, seat, channel=CHANNEL)
        return {"games": [result.to_json()]}


@blp.route("/games/<game_id>/clock-requests")
class ClockRequests(MethodView):
    @blp.arguments(RequestIn)
    @blp.response(201, ClockOut)
    @blp.doc(security=BEARER)
    @_errors(400, 401, 403, 404, 409)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Ask every other seat to agree to extend your deadline, pause or resume."""
        seat = required_seat(game_id)
        if body["by"] is not None and body["what"] != "extend":
            raise BadRequest("'by' is for an extension only.")
        seconds = duration(body["by"]) if body["by"] else None
        result = service().request_clock_change(
            game_id, seat, body["what"], seconds, channel=CHANNEL
        )
        return _with_deadlines(result, seat)


@blp.route("/games/<game_id>/clock-requests/answer")
class ClockRequestAnswer(MethodView):
    @blp.arguments(RequestAnswerIn)
    @blp.response(201, ClockOut)
    @blp.doc(security=BEARER)
    @_errors(400, 401, 403, 404, 409)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Agree or not to the request waiting for answers."""
        seat = required_seat(game_id)
        result = service().answer_clock_request(
            game_id, seat, body["what"], body["agree"], channel=CHANNEL
        )
        return _with_deadlines(result, seat)
