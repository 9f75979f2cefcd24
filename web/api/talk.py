# flask-smorest ships no type hints: its decorators and classes are Any to mypy.
# mypy: disable-error-code="untyped-decorator,misc"
"""The JSON API of table talk, on the API's blueprint: a seat (its Bearer token) lists the
messages it may read and writes one, to everyone or to some seats. The administrator lists
every message and hides one under ``/admin`` (``web.api.admin``). A message never moves the
game: a submission made before it is not stale (``pbem.talk.events``).
"""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from pbem.talk.events import MAX_TEXT
from web.api.routes import BEARER, _errors, blp, required_seat, service
from web.api.schemas import Strict

CHANNEL = "api"


class TalkIn(Strict):
    text = fields.String(
        required=True,
        # The service reads whitespace runs as one space and refuses over MAX_TEXT after that:
        # the bound here only keeps the request small.
        validate=validate.Length(min=1, max=4 * MAX_TEXT),
        metadata={"description": f"the message: 1 to {MAX_TEXT} characters, no links"},
    )
    to = fields.List(
        fields.Integer(strict=True, validate=validate.Range(min=0, max=99)),
        load_default=list,
        validate=validate.Length(max=10),
        metadata={
            "description": "the seats it is for; empty or absent: every seat (the table)",
            "example": [1],
        },
    )


class MessageOut(Schema):
    version = fields.Integer(metadata={"description": "its version in the game's log"})
    seat = fields.Integer(metadata={"description": "who wrote it"})
    # ``from`` is a Python keyword: the field is named by ``data_key``.
    from_ = fields.String(data_key="from", attribute="from")
    to = fields.List(fields.Integer(), metadata={"description": "its seats; [] for everyone"})
    to_names = fields.List(fields.String())
    text = fields.String(
        metadata={"description": "its words, or 'hidden by the administrator: <reason>'"}
    )
    hidden = fields.Boolean()
    sent_at = fields.String()
    channel = fields.String(metadata={"description": "web, api or email"})
    mine = fields.Boolean(metadata={"description": "you wrote it"})


class MessagesOut(Schema):
    messages = fields.List(fields.Nested(MessageOut))


class TalkResultOut(Schema):
    version = fields.Integer()
    recipients = fields.List(fields.Integer(), metadata={"description": "[] for everyone"})


@blp.route("/games/<game_id>/talk")
class Talk(MethodView):
    @blp.response(200, MessagesOut)
    @blp.doc(security=BEARER)
    @_errors(401, 403, 404)
    def get(self, game_id: str) -> dict[str, Any]:
        """The table talk your seat may read: the table's, yours, and what was written to
        you, oldest first. Table talk is among the players: it needs a seat token."""
        seat = required_seat(game_id)
        return {"messages": service().talk_messages(game_id, seat)}

    @blp.arguments(TalkIn)
    @blp.response(201, TalkResultOut)
    @blp.doc(security=BEARER)
    @_errors(400, 401, 403, 404, 409, 429)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Write to the table (``to`` empty) or to some seats: they are mailed it and see
        it on their pages; nobody else does."""
        seat = required_seat(game_id)
        result = service().send_talk(game_id, seat, body["text"], body["to"], channel=CHANNEL)
        return result.to_json()
