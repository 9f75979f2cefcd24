"""Marshmallow schemas of the JSON API: they validate requests (unknown fields are refused)
and describe responses in the OpenAPI document."""

from __future__ import annotations

from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from web.numbers import WholeNumber

MAX_TEXT = 4000


class Strict(Schema):
    class Meta:
        unknown = RAISE


# -- requests ---------------------------------------------------------------------------------


class PlayerIn(Strict):
    name = fields.String(load_default=None, validate=validate.Length(min=1, max=200))
    email = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=320))
    open = fields.Boolean(
        load_default=False,
        metadata={
            "description": "an open seat, for a player to join later (no name, no email); "
            "open seats come after the named ones"
        },
    )

    @validates_schema
    def _named_or_open(self, data: dict[str, Any], **_: Any) -> None:
        if data.get("open") and (data.get("name") or data.get("email")):
            raise ValidationError("an open seat has no name or email", "name")
        if not data.get("open") and not data.get("name"):
            raise ValidationError("Missing data for required field.", "name")


class JoinIn(Strict):
    name = fields.String(
        required=True,
        validate=validate.Length(min=1, max=200),
        metadata={"description": "your name as the other players will see it", "example": "Cy"},
    )
    email = fields.String(
        required=True,
        validate=validate.Length(min=3, max=320),
        metadata={"description": "the game's mails go here (an invitation first, if new)"},
    )
    join_key = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.Length(max=200),
        metadata={"description": "the key of a private game's join link (its 'key' parameter)"},
    )


class CreateGameIn(Strict):
    game = fields.String(
        required=True,
        validate=validate.Length(min=1, max=40),
        metadata={"description": "the game's name, e.g. lancelot", "example": "lancelot"},
    )
    config = fields.Dict(
        keys=fields.String(),
        load_default=dict,
        metadata={"description": "game options; players is taken from the list of players"},
    )
    players = fields.List(
        fields.Nested(PlayerIn), required=True, validate=validate.Length(min=1, max=10)
    )
    private = fields.Boolean(
        load_default=False,
        metadata={
            "description": "only the seats and the admin see the game: it is listed nowhere, "
            "and anyone else is answered 404 'no such game'"
        },
    )
    idempotency_key = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.Length(min=1, max=200),
        metadata={
            "description": "retrying with the same key returns the same game (its tokens "
            "too): keep it as secret as the tokens; another request with it is a 409"
        },
    )
    # A string or an object: the service reads it (``parse_time_control``) and answers a
    # 400 saying what to change.
    time_control = fields.Raw(
        load_default=None,
        allow_none=True,
        metadata={
            "description": "how long each player has: a preset (none, relaxed, standard, "
            'fast, demo), a duration per move such as "48h", or an object such as '
            '{"kind": "clock", "initial": "3d", "increment": "12h", "cap": "5d"} '
            "(docs/deadlines.md); none when left out",
            "example": "standard",
        },
    )


class ActionIn(Strict):
    action = fields.String(
        required=True,
        validate=validate.Length(min=1, max=MAX_TEXT),
        metadata={
            "description": "one or more command lines, applied in order until one fails",
            "example": "E5",
        },
    )
    expected_version = WholeNumber(
        required=True,
        strict=True,
        metadata={"description": "the version of the game you decided on"},
    )
    idempotency_key = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.Length(min=1, max=200),
        metadata={"description": "retrying with the same key returns the original result"},
    )


class UndoIn(Strict):
    to_version = WholeNumber(
        load_default=None,
        allow_none=True,
        strict=True,
        metadata={"description": "go back to this version (default: before your last action)"},
    )
    expected_version = WholeNumber(load_default=None, allow_none=True, strict=True)


class DecisionIn(Strict):
    accept = fields.Boolean(required=True, metadata={"description": "true to accept"})


class AfterQuery(Strict):
    after = WholeNumber(load_default=0)


class AtQuery(Strict):
    at = WholeNumber(required=True, minimum=1)


class ReceiptQuery(Strict):
    version = WholeNumber(
        required=True,
        minimum=1,
        metadata={"description": "the version printed at the foot of your mail"},
    )
    hash = fields.String(
        required=True,
        validate=validate.Regexp(
            "^[0-9a-fA-F]{64}$", error="The hash is 64 hexadecimal characters, as in your mail."
        ),
        metadata={"description": "the head hash printed at the foot of your mail"},
    )
    salt = fields.String(
        load_default=None,
        validate=validate.Regexp(
            "^[0-9a-f]{32}$",
            error="The salt is the 32 hexadecimal characters given with your secret action.",
        ),
        metadata={"description": "a secret action's salt: also check the vote revealed there"},
    )


# -- responses --------------------------------------------------------------------------------


class PlayerOut(Schema):
    seat = fields.Integer()
    name = fields.String()
    label = fields.String(
        allow_none=True, metadata={"description": "the seat's label on the board, e.g. Red"}
    )
    display = fields.String(metadata={"description": "how people read the seat: Ann (Red)"})
    resigned = fields.Boolean()


class GameOut(Schema):
    """The game as the caller may see it: built from the rules' view for the caller's seat."""

    id = fields.String()
    game = fields.String()
    version = fields.Integer()
    head_hash = fields.String(metadata={"description": "hash of the latest event: a receipt"})
    latest = fields.Boolean(metadata={"description": "false for a past version (state?at=)"})
    seat = fields.Integer(allow_none=True, metadata={"description": "your seat, if a token"})
    players = fields.List(fields.Nested(PlayerOut))
    to_act = fields.List(fields.Integer())
    view = fields.Dict(metadata={"description": "the rules' view for your seat"})
    legal = fields.List(fields.String(), metadata={"description": "what you can play now"})
    finished = fields.Boolean()
    outcome = fields.Dict(allow_none=True)
    result = fields.String(
        allow_none=True, metadata={"description": "the outcome for people, players named"}
    )


class AppliedOut(Schema):
    version = fields.Integer()
    seat = fields.Integer()
    text = fields.String()
    canonical = fields.String()
    line = fields.Integer()


class ErrorOut(Schema):
    code = fields.String()
    status = fields.Integer()
    message = fields.String(metadata={"description": "what was wrong and what you can do"})
    errors = fields.Dict(metadata={"description": "per-field problems of the request"})
    can_type = fields.List(fields.String())
    line = fields.Integer(allow_none=True)
    version = fields.Integer()
    current = fields.Nested(GameOut, allow_none=True)


class ActionOut(GameOut):
    applied = fields.List(fields.Nested(AppliedOut))
    error = fields.Nested(ErrorOut, allow_none=True, metadata={"description": "a later line"})
    replayed = fields.Boolean(metadata={"description": "the stored result of a retry"})


class SeatCreatedOut(Schema):
    seat = fields.Integer()
    name = fields.String()
    token = fields.String(metadata={"description": "the seat's bearer token: keep it secret"})


class CreatedOut(Schema):
    id = fields.String()
    version = fields.Integer()
    head_hash = fields.String()
    seats = fields.List(fields.Nested(SeatCreatedOut))
    admin_token = fields.String()
    private = fields.Boolean()
    open_seats = fields.List(
        fields.Integer(), metadata={"description": "the seats left open for players to join"}
    )
    join_link = fields.String(
        allow_none=True,
        metadata={"description": "the join link (shown once): anyone with it may take a seat"},
    )


class JoinedOut(Schema):
    game_id = fields.String()
    seat = fields.Integer()
    name = fields.String()
    token = fields.String(metadata={"description": "your seat token, shown once"})
    invited = fields.Boolean(
        metadata={"description": "an invitation was mailed: accept it to get the game's mails"}
    )
    started = fields.Boolean(metadata={"description": "yours was the last open seat"})
    open_seats = fields.Integer(metadata={"description": "seats still open"})


class OpenGameOut(Schema):
    id = fields.String()
    game = fields.String()
    players = fields.List(fields.String())
    seats = fields.Integer()
    open_seats = fields.Integer()
    created_at = fields.String()
    join_link = fields.String()


class OpenGamesOut(Schema):
    games = fields.List(fields.Nested(OpenGameOut))


class EventOut(Schema):
    version = fields.Integer()
    type = fields.String()
    recorded_at = fields.String()
    prev_hash = fields.String()
    hash = fields.String()
    data = fields.Dict()
    text = fields.String(metadata={"description": "the event in one line, players named"})


class EventsOut(Schema):
    version = fields.Integer()
    events = fields.List(fields.Nested(EventOut))


class UndoOut(Schema):
    status = fields.String(metadata={"description": "retracted, requested, accepted, declined"})
    request = fields.Integer(allow_none=True)
    retracted = fields.List(fields.Integer())
    version = fields.Integer()
    game = fields.Nested(GameOut)


class VoteCheckOut(Schema):
    status = fields.String(
        metadata={
            "description": "matches, does not match, pending (not revealed yet: check "
            "again after the reveal), retracted (taken back before its reveal), "
            "not a committed secret action"
        }
    )
    commitment = fields.String(allow_none=True)
    committed_text = fields.String(
        allow_none=True, metadata={"description": "what was committed to (after the salt)"}
    )
    message = fields.String()


class ReceiptOut(Schema):
    game_id = fields.String()
    version = fields.Integer()
    claimed_hash = fields.String()
    chain_hash = fields.String(
        allow_none=True,
        metadata={"description": "the hash recomputed at that version (null: chain broken)"},
    )
    matches = fields.Boolean()
    ok = fields.Boolean(
        metadata={
            "description": "the hash matches, and nothing asked of the vote failed (a pending "
            "vote is not checked yet: see vote.status)"
        }
    )
    message = fields.String()
    vote = fields.Nested(VoteCheckOut, allow_none=True)


class GameSummaryOut(Schema):
    id = fields.String()
    game = fields.String()
    version = fields.Integer()
    to_act = fields.List(fields.Integer())
    finished = fields.Boolean()
    open_seats = fields.Integer(
        metadata={"description": "seats still open: the game waits for players to join"}
    )
    players = fields.List(fields.String())
    updated_at = fields.String()


class GamesOut(Schema):
    games = fields.List(fields.Nested(GameSummaryOut))
