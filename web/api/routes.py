# flask-smorest ships no type hints: its decorators and classes are Any to mypy.
# mypy: disable-error-code="untyped-decorator,misc"
"""The JSON API under ``/api/v1`` (flask-smorest: schemas validate requests and generate the
OpenAPI document at ``/api/v1/openapi.json``).

Seat tokens authenticate with ``Authorization: Bearer <token>``. Every game document in a
response is built by ``pbem.play.views.describe`` from the rules' view for the caller's seat.
"""

from __future__ import annotations

from typing import Any

from flask import Request, current_app, g, request
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import RAISE, missing
from webargs.flaskparser import FlaskParser, is_json_request

from pbem.app.service import GameService
from pbem.core.errors import BadRequest
from pbem.create.invitations import client_requester
from pbem.play.queries import Viewer
from pbem.play.views import describe
from web.api import json_input
from web.api import schemas as s

CHANNEL = "api"
BEARER: list[dict[str, list[str]]] = [{"bearerAuth": []}]


class Parser(FlaskParser):
    # A request that does not fit the schema is a bad request (400); 422 is kept for
    # actions the rules forbid.
    DEFAULT_VALIDATION_STATUS = 400

    def _raw_load_json(self, req: Request) -> Any:
        # The strict reader of every request's JSON (web.api.json_input), with its own message.
        if not is_json_request(req):
            return missing
        data = req.get_data(cache=True)
        if not data:
            return missing
        try:
            return json_input.loads(data)
        except json_input.UnreadableJson as e:
            raise BadRequest(str(e)) from None


class ApiBlueprint(Blueprint):
    ARGUMENTS_PARSER = Parser()


blp = ApiBlueprint(
    "api",
    __name__,
    url_prefix="/api/v1",
    description="Games: create, look, act, undo; the log as you may see it.",
)


def service() -> GameService:
    svc: GameService = current_app.extensions["pbem"]
    return svc


def bearer_token() -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if header and scheme.lower() != "bearer":
        raise BadRequest("Send the seat token as 'Authorization: Bearer <token>'.")
    return token.strip() or None


def viewer() -> Viewer:
    """Who sent this request, as ``_private_games`` read it (with the game's row)."""
    found: Viewer = g.api_viewer
    return found


def optional_seat(game_id: str) -> int | None:
    """The caller's seat if a seat token was sent; None for no token or the game's admin
    token (the public view). Any other token is refused, not ignored."""
    return service().viewer_seat(viewer(), required=False)


@blp.before_request
def _private_games() -> None:
    """A private game exists only for its seats and its admin: anyone else is told there is
    no such game, whatever the endpoint (a 403 would confirm it exists). The same read says
    which seat the token opens, for the endpoint (one read per request, not one per check)."""
    game_id = (request.view_args or {}).get("game_id")
    if request.endpoint == "api.JoinSeat":
        # Joining a private game needs its join link's key, which the command checks
        # (without it: "no such game", as here).
        return
    if game_id is not None:
        g.api_viewer = service().viewer(game_id, bearer_token())


def required_seat(game_id: str) -> int:
    seat = service().viewer_seat(viewer(), required=True)
    assert seat is not None  # required: a seat or an error
    return seat


ERRORS = {
    400: "the request is not readable: the message says what to send",
    401: "a seat token that was replaced (pbem rotate-token): the new one was mailed to the seat",
    403: "no token, or not a seat token of this game (creating: no valid organiser key)",
    404: "no such game",
    409: "the game moved on (stale version) or the request conflicts with what happened",
    413: "the request body is too large",
    429: "a limit was reached (invitations per day): the message says which",
    422: "readable, but the rules forbid it: the message names the rule",
}


def _errors(*codes: int) -> Any:
    def decorate(f: Any) -> Any:
        for code in codes:
            f = blp.alt_response(code, schema=s.ErrorOut, description=ERRORS[code])(f)
        return f

    return decorate


@blp.route("/games")
class Games(MethodView):
    @blp.response(200, s.GamesOut)
    def get(self) -> dict[str, Any]:
        """Recent games (public: names and progress, never tokens or emails)."""
        return {"games": service().list_games()}

    @blp.arguments(s.CreateGameIn)
    @blp.response(201, s.CreatedOut)
    @_errors(400, 403, 409, 413, 429)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Create a game: returns each seat's token (shown once) and an admin token. Players
        whose address never played here get an invitation, and no other mail until they
        accept. Send ``Organiser-Key`` when the service requires one; an idempotency key
        (``Idempotency-Key`` or ``idempotency_key``) makes a retry return the same game."""
        created = service().create_game(
            body["game"],
            body["config"],
            body["players"],
            channel=CHANNEL,
            private=body["private"],
            idempotency_key=body["idempotency_key"] or request.headers.get("Idempotency-Key"),
            requester=client_requester(request.remote_addr),
            organiser_key=request.headers.get("Organiser-Key"),
            time_control=body["time_control"],
        )
        return {
            "id": created.id,
            "version": created.version,
            "head_hash": created.head_hash,
            "seats": [{"seat": x.seat, "name": x.name, "token": x.token} for x in created.seats],
            "admin_token": created.admin_token,
            "private": body["private"],
            "open_seats": list(created.open_seats),
            "join_link": join_link(created.id, created.join_key) if created.join_key else None,
        }


def join_link(game_id: str, key: str | None) -> str:
    """The join page of a game: with the key, the link a private game is joined by."""
    base = service().settings.base_url.rstrip("/")
    return f"{base}/games/{game_id}/join" + (f"?key={key}" if key else "")


@blp.route("/games/open")
class OpenGames(MethodView):
    @blp.response(200, s.OpenGamesOut)
    def get(self) -> dict[str, Any]:
        """The public games waiting for players (never a private one, nor one started)."""
        return {
            "games": [
                {**g.to_json(), "join_link": join_link(g.id, None)} for g in service().open_games()
            ]
        }


@blp.route("/games/<game_id>/join")
class JoinSeat(MethodView):
    @blp.arguments(s.JoinIn)
    @blp.response(201, s.JoinedOut)
    @_errors(400, 404, 409, 413, 429)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Take an open seat: your name (unique in the game) and your address, which gets the
        game's mails (an invitation first, if it never played here). A private game needs its
        join link's key. The game starts when its last open seat is taken."""
        joined = service().join_game(
            game_id,
            body["name"],
            body["email"],
            channel=CHANNEL,
            requester=client_requester(request.remote_addr),
            join_key=body["join_key"],
        )
        return {
            "game_id": joined.game_id,
            "seat": joined.seat,
            "name": joined.name,
            "token": joined.token,
            "invited": joined.invited,
            "started": joined.started,
            "open_seats": joined.open_seats,
        }


@blp.route("/games/<game_id>")
class GameResource(MethodView):
    @blp.response(200, s.GameOut)
    @blp.doc(security=BEARER)
    @_errors(401, 403, 404)
    def get(self, game_id: str) -> dict[str, Any]:
        """The game as your seat sees it (with a token), or the public view."""
        seat = optional_seat(game_id)
        return service().described(service().loaded_for(viewer()), seat)


@blp.route("/games/<game_id>/actions")
class Actions(MethodView):
    @blp.arguments(s.ActionIn)
    @blp.response(201, s.ActionOut)
    @blp.doc(security=BEARER)
    @_errors(400, 401, 403, 404, 409, 413, 422)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Play: the text of one or more command lines, on the version you saw."""
        seat = required_seat(game_id)
        key = body["idempotency_key"] or request.headers.get("Idempotency-Key") or None
        svc = service()
        result = svc.submit(
            game_id,
            seat,
            body["action"],
            expected_version=body["expected_version"],
            channel=CHANNEL,
            idempotency_key=key,
        )
        loaded = result.loaded or svc.load(game_id, at=result.version)
        return {
            **svc.described(loaded, seat),
            "applied": [a.__dict__ for a in result.applied],
            "error": result.error.to_json() if result.error else None,
            "replayed": result.replayed,
        }


@blp.route("/games/<game_id>/events")
class Events(MethodView):
    @blp.arguments(s.AfterQuery, location="query", unknown=RAISE)
    @blp.response(200, s.EventsOut)
    @blp.doc(security=BEARER)
    @_errors(400, 401, 403, 404)
    def get(self, query: dict[str, Any], game_id: str) -> dict[str, Any]:
        """The log after version ``after``, as you may see it (others' secrets hidden)."""
        seat = optional_seat(game_id)
        events = service().events(game_id, query["after"], seat)
        return {"version": service().load(game_id).version, "events": events}


@blp.route("/games/<game_id>/state")
class State(MethodView):
    @blp.arguments(s.AtQuery, location="query", unknown=RAISE)
    @blp.response(200, s.GameOut)
    @blp.doc(security=BEARER)
    @_errors(400, 401, 403, 404)
    def get(self, query: dict[str, Any], game_id: str) -> dict[str, Any]:
        """The game as your seat saw it at version ``at``."""
        seat = optional_seat(game_id)
        return describe(service().load(game_id, at=query["at"]), seat)


@blp.route("/games/<game_id>/receipt")
class Receipt(MethodView):
    @blp.arguments(s.ReceiptQuery, location="query", unknown=RAISE)
    @blp.response(200, s.ReceiptOut)
    @_errors(400, 404)
    def get(self, query: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Does the chain at ``version`` have ``hash`` (the receipt at the foot of a mail)? With
        ``salt``: is the vote revealed at ``version`` the one committed to before the reveal?
        Anyone may ask of a public game; of a private one, its seats and admin."""
        result = service().check_receipt(game_id, query["version"], query["hash"], query["salt"])
        return result.to_json()


@blp.route("/games/<game_id>/undo")
class Undo(MethodView):
    @blp.arguments(s.UndoIn)
    @blp.response(201, s.UndoOut)
    @blp.doc(security=BEARER)
    @_errors(400, 401, 403, 404, 409, 422)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Take back your latest action(s), or ask the others to go further back."""
        seat = required_seat(game_id)
        result = service().undo(
            game_id,
            seat,
            to_version=body["to_version"],
            expected_version=body["expected_version"],
            channel=CHANNEL,
        )
        return {**result.to_json(), "game": describe(service().load(game_id), seat)}


@blp.route("/games/<game_id>/undo/<int:request_id>/decision")
class UndoDecision(MethodView):
    @blp.arguments(s.DecisionIn)
    @blp.response(201, s.UndoOut)
    @blp.doc(security=BEARER)
    @_errors(400, 401, 403, 404, 409, 422)
    def post(self, body: dict[str, Any], game_id: str, request_id: int) -> dict[str, Any]:
        """Accept or decline another seat's undo request."""
        seat = required_seat(game_id)
        result = service().decide_undo(game_id, seat, request_id, body["accept"], channel=CHANNEL)
        return {**result.to_json(), "game": describe(service().load(game_id), seat)}


@blp.route("/games/<game_id>/resign")
class Resign(MethodView):
    @blp.response(201, s.GameOut)
    @blp.doc(security=BEARER)
    @_errors(401, 403, 404, 409)
    def post(self, game_id: str) -> dict[str, Any]:
        """Leave the game: your turns are then played automatically."""
        seat = required_seat(game_id)
        service().resign(game_id, seat, channel=CHANNEL)
        return describe(service().load(game_id), seat)
