# flask-smorest ships no type hints: its decorators and classes are Any to mypy.
# mypy: disable-error-code="untyped-decorator,misc"
"""The JSON API of rematches, on the API's blueprint: a seat of a finished game proposes a
rematch (``POST /games/<id>/rematch``, the seats rotated or the same), agrees to it or
declines it (``POST /games/<id>/rematch/<proposal>/answer``); anyone who may see the game
reads where it stands and which game it is a rematch of (``GET /games/<id>/rematch``).
"""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from pbem.rematch.commands import RematchResult
from pbem.rematch.events import ROTATE, SEATINGS
from web.api.routes import BEARER, _errors, blp, required_seat, service
from web.api.schemas import Strict

CHANNEL = "api"


class RematchProposeIn(Strict):
    seating = fields.String(
        load_default=ROTATE,
        validate=validate.OneOf(SEATINGS),
        metadata={
            "description": "rotate: every player moves one seat on (the old first seat plays "
            "last); same: everyone keeps their seat"
        },
    )


class RematchAnswerIn(Strict):
    agree = fields.Boolean(required=True, metadata={"description": "false: decline it"})


class RematchResultOut(Schema):
    game_id = fields.String()
    status = fields.String(
        metadata={"description": "proposed, agreed, already, declined or started"}
    )
    proposal = fields.Integer()
    new_game_id = fields.String(allow_none=True)


class RematchProposalOut(Schema):
    proposal = fields.Integer()
    seat = fields.Integer()
    seating = fields.String()
    status = fields.String(metadata={"description": "open, declined, agreed or started"})
    agreed = fields.List(fields.Integer())
    waiting = fields.List(fields.Integer())
    declined_by = fields.Integer(allow_none=True)
    new_game_id = fields.String(allow_none=True)


class RematchOut(Schema):
    rematch_of = fields.String(
        allow_none=True, metadata={"description": "the game this one is a rematch of"}
    )
    proposal = fields.Nested(RematchProposalOut, allow_none=True)


def _result(result: RematchResult) -> dict[str, Any]:
    return {
        "game_id": result.game_id,
        "status": result.status,
        "proposal": result.proposal,
        "new_game_id": result.new_game_id,
    }


@blp.route("/games/<game_id>/rematch")
class Rematch(MethodView):
    @blp.response(200, RematchOut)
    @_errors(403, 404)
    def get(self, game_id: str) -> dict[str, Any]:
        """The game's latest rematch proposal, and the game it is a rematch of."""
        svc = service()
        status = svc.rematch_status(game_id)
        return {
            "rematch_of": svc.rematch_of(game_id),
            "proposal": None if status is None else status.__dict__,
        }

    @blp.arguments(RematchProposeIn)
    @blp.response(201, RematchResultOut)
    @blp.doc(security=BEARER)
    @_errors(400, 403, 404, 409, 422, 429)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Propose a rematch of this finished game (or join the one proposed): it starts
        when every seat agrees. A game takes at most 3 proposals (429 after)."""
        seat = required_seat(game_id)
        result = service().propose_rematch(game_id, seat, body["seating"], channel=CHANNEL)
        return _result(result)


@blp.route("/games/<game_id>/rematch/<int:proposal>/answer")
class RematchAnswer(MethodView):
    @blp.arguments(RematchAnswerIn)
    @blp.response(201, RematchResultOut)
    @blp.doc(security=BEARER)
    @_errors(400, 403, 404, 409, 422)
    def post(self, body: dict[str, Any], game_id: str, proposal: int) -> dict[str, Any]:
        """Agree to the rematch proposed (the last agreement starts it), or decline it."""
        seat = required_seat(game_id)
        svc = service()
        if body["agree"]:
            return _result(svc.agree_rematch(game_id, seat, proposal, channel=CHANNEL))
        return _result(svc.decline_rematch(game_id, seat, proposal, channel=CHANNEL))
