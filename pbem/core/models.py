"""The tables (SQLModel). Alembic owns the schema: a change here needs a migration.

``events`` is the truth. ``games``, ``seats``, ``undo_requests``, ``disputes`` and
``invitations`` are read models: written only by the projections (``pbem.core.projections.runner``),
rebuilt from the events alone by ``pbem db rebuild-projections``. ``game_secrets`` and
``seat_tokens`` hold what the log cannot: the seed until it is revealed at the end, and the
hashes of the admin and seat tokens; they are written when the game is created, and a seat's
token is replaced by ``pbem rotate-token`` (the old hash kept in ``revoked_seat_tokens``).
``game_requests`` records who asked for each game and its idempotency key, and
``creation_addresses`` whom each creation mailed (the limits on creations). ``snapshots`` is
a cache, sealed with the service's secret key: it can be deleted at any time.
Every JSON column holds canonical JSON text (see ``pbem.core.events.canonical_json``).

Times are stored as ISO 8601 text in UTC with microseconds (``2025-01-31T12:00:00.000000Z``):
the same bytes on every database, which the hash chain needs.

Every table here and in the features' modules says ``model_config = {"defer_build": True}``:
pydantic builds a table's validator and serializer when one is first used (validating or
dumping a row), not when the class is defined. Rows are read and written through SQLAlchemy,
which uses neither, so a command that only does that (``pbem mail-in``, ``pbem show``) builds
none: the 31 tables' schemas were about a twentieth of its start.
"""

from __future__ import annotations

from sqlalchemy import Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel


class Event(SQLModel, table=True):
    """One event of one game's stream; ``(game_id, version)`` is the concurrency control."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "events"

    game_id: str = Field(primary_key=True, max_length=32)
    version: int = Field(primary_key=True)
    type: str = Field(max_length=40)
    schema_version: int
    #: canonical JSON of the event's payload
    data: str = Field(sa_type=Text)
    recorded_at: str = Field(max_length=32)
    prev_hash: str = Field(max_length=64)
    hash: str = Field(max_length=64)


class Game(SQLModel, table=True):
    """Read model of a game (``pbem.core.projections.games``)."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "games"

    id: str = Field(primary_key=True, max_length=32)
    game: str = Field(max_length=40)
    rules_version: str = Field(max_length=40)
    #: canonical JSON of the validated config
    config: str = Field(sa_type=Text)
    seed_commitment: str = Field(max_length=64)
    version: int
    head_hash: str = Field(max_length=64)
    #: canonical JSON list of the seats that owe an action
    to_act: str = Field(sa_type=Text)
    finished: bool = False
    #: canonical JSON of the outcome, once finished
    outcome: str | None = Field(default=None, sa_type=Text)
    created_at: str = Field(max_length=32)
    updated_at: str = Field(max_length=32)
    #: only its seats and its admin see it (GameCreated's ``private``)
    private: bool = False
    #: seats still open: GameCreated's ``open_seats`` less the ``SeatTaken`` since; 0 once
    #: started (every seat taken, or ``SeatsClosed``). While above 0 nobody acts.
    open_seats: int = 0


class Seat(SQLModel, table=True):
    """Read model of a seat (``pbem.core.projections.seats``)."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "seats"

    game_id: str = Field(primary_key=True, max_length=32)
    seat: int = Field(primary_key=True)
    name: str = Field(max_length=200)
    email: str | None = Field(default=None, max_length=320)
    resigned: bool = False


class GameSecret(SQLModel, table=True):
    """What a game keeps outside its log: written once, at creation; never projected."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "game_secrets"

    game_id: str = Field(primary_key=True, max_length=32)
    #: the secret seed (decimal text): never in a response; revealed in GameFinished
    seed: str = Field(max_length=80)
    #: sha256 of the admin token (the token itself is shown once, at creation)
    admin_token_hash: str = Field(max_length=64)
    #: sha256 of the join link's key of a game created with open seats (shown to the
    #: organiser once; replaced when the organiser revokes the link), else None
    join_key_hash: str | None = Field(default=None, max_length=64)


class SeatToken(SQLModel, table=True):
    """The hash of a seat's bearer token (shown once, at creation, or mailed to the seat by
    ``pbem rotate-token``): a credential, not a read model."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "seat_tokens"
    __table_args__ = (UniqueConstraint("token_hash", name="uq_seat_tokens_token_hash"),)

    game_id: str = Field(primary_key=True, max_length=32)
    seat: int = Field(primary_key=True)
    token_hash: str = Field(max_length=64)


class RevokedSeatToken(SQLModel, table=True):
    """The hash of a seat token replaced by ``pbem rotate-token``: kept so that the old token
    is refused saying it was replaced (401), not as an unknown one."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "revoked_seat_tokens"

    token_hash: str = Field(primary_key=True, max_length=64)
    game_id: str = Field(max_length=32)
    seat: int
    revoked_at: str = Field(max_length=32)


class Snapshot(SQLModel, table=True):
    """The state after ``version`` (a cache only: replay without it gives the same state),
    used only while its seal verifies (``pbem.core.snapshots``)."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "snapshots"

    game_id: str = Field(primary_key=True, max_length=32)
    version: int = Field(primary_key=True)
    #: hash of the event at ``version``: a snapshot is used only while it matches the chain
    event_hash: str = Field(max_length=64)
    rules_version: str = Field(max_length=40)
    #: canonical JSON of ``rules.dump_state(state)``
    state: str = Field(sa_type=Text)
    #: hex HMAC-SHA256 of the fields above under the service's secret key (``pbem.core.snapshots``)
    mac: str = Field(max_length=64)


class IdempotencyKey(SQLModel, table=True):
    """The result of a submission, kept so that a retry with the same key gets it again."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "idempotency_keys"

    game_id: str = Field(primary_key=True, max_length=32)
    key: str = Field(primary_key=True, max_length=200)
    seat: int
    #: sha256 of the canonical request: the same key with another payload is a conflict
    request_hash: str = Field(max_length=64)
    #: canonical JSON of the result
    result: str = Field(sa_type=Text)
    created_at: str = Field(max_length=32)


class UndoRequest(SQLModel, table=True):
    """Read model of an undo request (``pbem.undo.projection``)."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "undo_requests"

    game_id: str = Field(primary_key=True, max_length=32)
    #: the version of its UndoRequested event
    request: int = Field(primary_key=True)
    seat: int
    to_version: int
    #: open | accepted | declined | lapsed
    status: str = Field(max_length=16)
    #: canonical JSON list of the seats that accepted so far
    accepted_by: str = Field(sa_type=Text)


class Dispute(SQLModel, table=True):
    """Read model of a dispute (``pbem.disputes.projection``). The index on the status lets
    whatever waits on a game (a deadline) find its open disputes at once."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "disputes"
    __table_args__ = (Index("ix_disputes_open", "game_id", "status"),)

    game_id: str = Field(primary_key=True, max_length=32)
    #: the version of its DisputeOpened event
    dispute: int = Field(primary_key=True)
    seat: int
    #: canonical JSON list of the disputed ActionApplied versions
    versions: str = Field(sa_type=Text)
    text: str = Field(sa_type=Text)
    #: open | dismissed | upheld
    status: str = Field(max_length=16)
    #: canonical JSON object: seat (as text) -> true (agrees to retract) or false
    answers: str = Field(sa_type=Text)
    opened_at: str = Field(max_length=32)
    #: the version of its DisputeResolved event, once resolved
    resolved: int | None = None


class Invitation(SQLModel, table=True):
    """Read model of an invited seat (``pbem.create.projection``): its address had
    never played when the game was created, so it got an invitation and waits for nothing
    else until it accepts."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "invitations"
    __table_args__ = (Index("ix_invitations_address", "address", "invited_at"),)

    game_id: str = Field(primary_key=True, max_length=32)
    seat: int = Field(primary_key=True)
    #: the seat's address, lower-cased
    address: str = Field(max_length=320)
    #: when the game was created (the invitation's time)
    invited_at: str = Field(max_length=32)
    #: when the player accepted (its InvitationAccepted); None while it waits
    accepted_at: str | None = Field(default=None, max_length=32)
    accepted_version: int | None = None


class GameRequest(SQLModel, table=True):
    """A game creation as it was asked for: who asked, and its idempotency key, so that a
    retry with the same key gets the same game (the limits count ``creation_addresses``).
    Not a read model: the log does not hold who asked."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "game_requests"
    __table_args__ = (
        Index("ix_game_requests_requester", "requester", "created_at"),
        UniqueConstraint("key_hash", name="uq_game_requests_key_hash"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(max_length=32, index=True)
    #: ``ip:<address>``, ``organiser:<key id>`` or ``cli`` (see ``pbem.create.invitations``)
    requester: str = Field(max_length=100)
    #: sha256 of the idempotency key (and the organiser key it was sent with), if any
    key_hash: str | None = Field(default=None, max_length=64)
    #: sha256 of the canonical request: the same key with another request is a conflict
    request_hash: str = Field(max_length=64)
    #: the game's version and head hash right after its creation (the first answer's)
    version: int
    head_hash: str = Field(max_length=64)
    created_at: str = Field(max_length=32)


class CreationAddress(SQLModel, table=True):
    """One addressed seat of a created game, for the limits on creations
    (``pbem.create.limits``): the requester whose budget the mail to it spent, and the
    address as limits compare it (lower case, without ``+tag``). Not a read model: the log
    does not hold who asked."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "creation_addresses"
    __table_args__ = (
        Index("ix_creation_addresses_address", "address_key", "created_at"),
        Index("ix_creation_addresses_requester", "requester", "created_at"),
    )

    game_id: str = Field(primary_key=True, max_length=32)
    seat: int = Field(primary_key=True)
    #: as in ``game_requests``: ``ip:<address>``, ``organiser:<key id>`` or ``cli``
    requester: str = Field(max_length=100)
    #: the seat's address normalised for the limits (``pbem.create.limits.limit_key``)
    address_key: str = Field(max_length=320)
    #: whether the seat was invited (its address had never played)
    invited: bool
    created_at: str = Field(max_length=32)


class GameClockState(SQLModel, table=True):
    """Read model of a timed game's clock (``pbem.clock.projection``): the fold of its
    events that its seats' deadlines are computed from (``pbem.clock.schedule``), kept so
    that an append folds only its own events. A game that never had a time control has none."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "game_clocks"

    game_id: str = Field(primary_key=True, max_length=32)
    #: canonical JSON of ``GameClock.to_json()``
    state: str = Field(sa_type=Text)


class Deadline(SQLModel, table=True):
    """Read model of a seat's deadline (``pbem.clock.projection``). The indexes let the
    sweep find what is due without replaying any game."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "deadlines"
    __table_args__ = (
        Index("ix_deadlines_act_at", "act_at"),
        Index("ix_deadlines_next_reminder_at", "next_reminder_at"),
    )

    game_id: str = Field(primary_key=True, max_length=32)
    seat: int = Field(primary_key=True)
    #: idle (owes nothing) | untimed | running | paused | late (missed; the game waits)
    status: str = Field(max_length=16)
    owes_since: str | None = Field(default=None, max_length=32)
    #: when its counted time runs out
    due_at: str | None = Field(default=None, max_length=32)
    #: when the sweep makes the deadline move: the due time plus the grace
    act_at: str | None = Field(default=None, max_length=32)
    #: canonical JSON list of [key, time] of the decision's reminders
    reminders: str = Field(default="[]", sa_type=Text)
    #: the earliest of them (None when there is none)
    next_reminder_at: str | None = Field(default=None, max_length=32)
    #: the bank of a clock time control, between decisions (seconds)
    bank: int | None = None
    standing_order: str | None = Field(default=None, sa_type=Text)
    #: the end of the seat's current or coming vacation, if any
    away_until: str | None = Field(default=None, max_length=32)


class ReminderSent(SQLModel, table=True):
    """A deadline reminder mailed (or claimed by the sweep that mails it): the key makes each
    reminder of each deadline go once, however many sweeps run. Written by the sweep with
    the outbox mail, in one transaction; like the outbox, not a projection of the log."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "reminders_sent"

    game_id: str = Field(primary_key=True, max_length=32)
    seat: int = Field(primary_key=True)
    due_at: str = Field(primary_key=True, max_length=32)
    reminder: str = Field(primary_key=True, max_length=40)
    address: str = Field(max_length=320)
    sent_at: str = Field(max_length=32)


class SeatHandover(SQLModel, table=True):
    """Read model of a proposal to hand a seat to a substitute (``pbem.handover.projection``):
    who proposed it, the newcomer, the answers, and — once the newcomer accepted — from which
    version the newcomer plays the seat."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "seat_handovers"
    __table_args__ = (Index("ix_seat_handovers_status", "game_id", "status"),)

    game_id: str = Field(primary_key=True, max_length=32)
    #: the version of its SubstituteProposed event
    proposal: int = Field(primary_key=True)
    #: the seat to be handed over
    seat: int
    #: the seat that proposed it; None: the game's administrator
    by_seat: int | None = None
    #: the newcomer
    new_name: str = Field(max_length=200)
    new_email: str = Field(max_length=320)
    #: open (the other seats decide) | agreed (waiting for the newcomer to accept) |
    #: refused | superseded | handed_over
    status: str = Field(max_length=16)
    #: canonical JSON list of the seats that agreed so far
    agreed_by: str = Field(sa_type=Text)
    #: the version of its SeatHandedOver event, once handed over
    handed_over: int | None = None


class SeatJoin(SQLModel, table=True):
    """Who took an open seat (``pbem.create.open_seats``), for the hourly limits on joins
    (``pbem.create.limits``). Not a read model: the log does not hold who asked."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "seat_joins"
    __table_args__ = (
        Index("ix_seat_joins_requester", "requester", "joined_at"),
        Index("ix_seat_joins_address", "address_key", "joined_at"),
    )

    game_id: str = Field(primary_key=True, max_length=32)
    seat: int = Field(primary_key=True)
    #: as in ``game_requests``: ``ip:<address>``, ``organiser:<key id>`` or ``cli``
    requester: str = Field(max_length=100)
    #: the joiner's address normalised for the limits (``pbem.create.limits.limit_key``)
    address_key: str = Field(max_length=320)
    joined_at: str = Field(max_length=32)
