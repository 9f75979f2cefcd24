# flask-smorest ships no type hints: its decorators and classes are Any to mypy.
# mypy: disable-error-code="untyped-decorator,misc"
"""The JSON API of substitutes (``pbem.handover``), on the API's blueprint: a seat proposes a
newcomer for a seat that missed its deadlines, the other seats agree or refuse, and anyone
who may see the game reads the proposal waiting. The administrator hands a seat over under
``/admin`` (``web.api.admin``). The newcomer accepts by the link mailed to them (a page)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from pbem.handover.rules import MAX_NAME
from web.api.routes import BEARER, _errors, blp, required_seat, service
from web.api.schemas import Strict
from web.numbers import WholeNumber

CHANNEL = "api"


class SubstituteIn(Strict):
    seat = WholeNumber(required=True, metadata={"description": "the seat to hand over"})
    name = fields.String(required=True, validate=validate.Length(min=1, max=MAX_NAME))
    email = fields.String(required=True, validate=validate.Length(min=3, max=320))


class SubstituteDecisionIn(Strict):
    agree = fields.Boolean(required=True, metadata={"description": "false ends the proposal"})


class SubstituteOut(Schema):
    version = fields.Integer()
    proposal = fields.Integer()
    seat = fields.Integer()
    status = fields.String(
        metadata={"description": "open, agreed (the newcomer is invited), refused, handed_over"}
    )


class WaitingOut(Schema):
    substitute = fields.Raw(
        allow_none=True, metadata={"description": "the proposal waiting, or null"}
    )


@blp.route("/games/<game_id>/substitute")
class Substitute(MethodView):
    @blp.response(200, WaitingOut)
    @_errors(404)
    def get(self, game_id: str) -> dict[str, Any]:
        """The substitute proposal waiting in the game, if any (no addresses)."""
        return {"substitute": service().substitute_waiting(game_id)}

    @blp.arguments(SubstituteIn)
    @blp.response(201, SubstituteOut)
    @blp.doc(security=BEARER)
    @_errors(400, 401, 403, 404, 409, 422)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Propose a newcomer for a seat that missed its deadlines in a row."""
        seat = required_seat(game_id)
        result = service().propose_substitute(
            game_id, seat, body["seat"], body["name"], body["email"], channel=CHANNEL
        )
        return result.to_json()


@blp.route("/games/<game_id>/substitute/<int:proposal>/decision")
class SubstituteDecision(MethodView):
    @blp.arguments(SubstituteDecisionIn)
    @blp.response(201, SubstituteOut)
    @blp.doc(security=BEARER)
    @_errors(400, 401, 403, 404, 409, 422)
    def post(self, body: dict[str, Any], game_id: str, proposal: int) -> dict[str, Any]:
        """Agree to the substitute proposed, or refuse it (one refusal ends it)."""
        seat = required_seat(game_id)
        result = service().decide_substitute(
            game_id, seat, body["agree"], proposal=proposal, channel=CHANNEL
        )
        return result.to_json()
