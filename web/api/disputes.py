# flask-smorest ships no type hints: its decorators and classes are Any to mypy.
# mypy: disable-error-code="untyped-decorator,misc"
"""The JSON API of disputes and evidence, on the API's blueprint: a seat opens a dispute
about a version or a range and the other seats answer it; anyone who may see the game lists
them; ``/audit`` gives the evidence of the disputed steps as the caller may see it (a seat:
its own moves in full, the public record of the others'; the admin token: everything).
The administrator resolves disputes under ``/admin`` (``web.api.admin``).
"""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from marshmallow import RAISE, Schema, fields, validate

from pbem.disputes.rules import MAX_TEXT, parse_versions
from web.api.routes import BEARER, _errors, bearer_token, blp, optional_seat, required_seat, service
from web.api.schemas import Strict
from web.numbers import WholeNumber

CHANNEL = "api"


class DisputeIn(Strict):
    versions = fields.String(
        required=True,
        validate=validate.Length(min=1, max=40),
        metadata={"description": "the version disputed, or a range", "example": "41-43"},
    )
    text = fields.String(
        required=True,
        validate=validate.Length(min=1, max=MAX_TEXT),
        metadata={"description": "what went wrong (every seat reads it)"},
    )


class AnswerIn(Strict):
    agree = fields.Boolean(
        required=True, metadata={"description": "true: retract the disputed moves"}
    )


class AuditQuery(Strict):
    version = WholeNumber(load_default=None, minimum=1)


class DisputeOut(Schema):
    dispute = fields.Integer()
    seat = fields.Integer()
    by = fields.String()
    versions = fields.List(fields.Integer())
    text = fields.String()
    status = fields.String(metadata={"description": "open, dismissed or upheld"})
    agreed = fields.List(fields.Integer())
    disagreed = fields.List(fields.Integer())
    agreed_names = fields.List(fields.String())
    disagreed_names = fields.List(fields.String())
    opened_at = fields.String()
    resolved = fields.Integer(allow_none=True)
    reason = fields.String(
        allow_none=True,
        metadata={"description": "why it was dismissed, or how it was upheld; null while open"},
    )

    administrator_only = fields.Boolean(
        metadata={
            "description": "an open dispute only the administrator can uphold (taking its "
            "moves back would cross a draw or a reveal): the other seats may disagree only"
        }
    )


class DisputesOut(Schema):
    disputes = fields.List(fields.Nested(DisputeOut))


class DisputeResultOut(Schema):
    version = fields.Integer()
    dispute = fields.Integer()
    status = fields.String(metadata={"description": "open, agreed, disagreed, dismissed or upheld"})
    retracted = fields.List(fields.Integer())
    revealed = fields.List(fields.String())


class AuditOut(Schema):
    game_id = fields.String()
    version = fields.Integer()
    head_hash = fields.String()
    seen_by = fields.Raw()
    deadline = fields.String()
    disputes = fields.List(fields.Dict())
    steps = fields.List(fields.Dict())


@blp.route("/games/<game_id>/disputes")
class Disputes(MethodView):
    @blp.response(200, DisputesOut)
    @_errors(403, 404)
    def get(self, game_id: str) -> dict[str, Any]:
        """Every dispute of the game and where it stands."""
        return {"disputes": service().disputes_of(game_id)}

    @blp.arguments(DisputeIn)
    @blp.response(201, DisputeResultOut)
    @blp.doc(security=BEARER)
    @_errors(400, 403, 404, 409, 422)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Dispute a move (or a range of versions): every seat and the admin are told."""
        seat = required_seat(game_id)
        first, last = parse_versions(body["versions"])
        result = service().open_dispute(game_id, seat, first, last, body["text"], channel=CHANNEL)
        return result.to_json()


@blp.route("/games/<game_id>/disputes/<int:dispute>/answer")
class DisputeAnswer(MethodView):
    @blp.arguments(AnswerIn)
    @blp.response(201, DisputeResultOut)
    @blp.doc(security=BEARER)
    @_errors(400, 403, 404, 409, 422)
    def post(self, body: dict[str, Any], game_id: str, dispute: int) -> dict[str, Any]:
        """Agree to retract the disputed moves (when every other seat agrees, they are), or
        disagree (the administrator then decides)."""
        seat = required_seat(game_id)
        result = service().answer_dispute(game_id, seat, dispute, body["agree"], channel=CHANNEL)
        return result.to_json()


@blp.route("/games/<game_id>/audit")
class Audit(MethodView):
    @blp.arguments(AuditQuery, location="query", unknown=RAISE)
    @blp.response(200, AuditOut)
    @blp.doc(security=BEARER)
    @_errors(400, 403, 404)
    def get(self, query: dict[str, Any], game_id: str) -> dict[str, Any]:
        """The evidence of each disputed step (or of ``version``), as you may see it."""
        admin = service().is_admin(game_id, bearer_token())
        seat = None if admin else optional_seat(game_id)
        return service().audit(game_id, viewer=seat, admin=admin, version=query["version"])
