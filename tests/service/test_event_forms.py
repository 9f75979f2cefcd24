"""Every event type's stored form survives its schema unchanged: ``dump(load(x)) == x``.

The hash chain covers the stored bytes of every event, so a schema that loaded a stored
payload and wrote back anything else (a field renamed, a default added, a list read as
something that dumps differently) would break every game's chain or its receipts. For
each (type, schema version) registered, the examples below are payloads as the service
stores them; they are loaded and dumped by that version's schema and must come back
byte for byte in canonical JSON. An old schema version is also upcast to the current one,
and the result pinned, since that is what the service and the API read.
"""

from __future__ import annotations

from typing import Any

import pytest

from pbem.clock import events as ce
from pbem.core import chain
from pbem.core import events as ev
from pbem.create import events as creation_events
from pbem.disputes import events as dispute_events
from pbem.talk import events as talk_events
from pbem.undo import events as undo_events

SALT = "5" * 32
VOTE = ["vote", "yes"]
COMMITMENT = chain.secret_commitment(SALT, VOTE, "vote yes", "Vote yes")
SEATS = [
    {"seat": 0, "name": "Ann", "email": "ann@example.org"},
    {"seat": 1, "name": "Bob", "email": None},
]
CREATED_V1 = {
    "game": "lancaster",
    "rules_version": "2.1.0",
    "config": {"players": 2, "variants": {"henry_v": ["kings_court"]}},
    "seats": SEATS,
    "seed_commitment": "a" * 64,
    "channel": "api",
}
APPLIED_V1 = {
    "seat": 1,
    "text": "place 2 in York",
    "canonical": "place 2 york",
    "action": ["place", 2, "york", None, True, [1, ["x"]]],
    "channel": "email",
    "channel_ref": "<m1@example.org>",
    "received_at": "2026-01-02T03:04:05.000006+00:00",
    "irreversible": True,
    "secret": False,
    "log": ["Bob places knight 2 in York (C)"],
    "nonce": None,
}
RESOLVED_V1 = {
    "dispute": 9,
    "seat": 1,
    "outcome": "upheld",
    "by": "consent",
    "reason": "the move was misread",
    "to_version": 6,
    "retracted": [7, 8],
    "revealed": ["a card was drawn"],
    "channel": "email",
}
REF = {"channel": "web", "channel_ref": None}

#: (type, schema version) -> payloads as stored in that version
EXAMPLES: dict[tuple[str, int], list[dict[str, Any]]] = {
    (ev.GAME_CREATED, 1): [CREATED_V1],
    (ev.GAME_CREATED, 2): [{**CREATED_V1, "private": True}],
    (ev.GAME_CREATED, 3): [
        {**CREATED_V1, "private": False, "invited": [1]},
        {**CREATED_V1, "config": {}, "seats": [], "private": True, "invited": []},
    ],
    (ev.GAME_CREATED, 4): [
        {**CREATED_V1, "private": False, "invited": [1], "open_seats": []},
        {**CREATED_V1, "seats": SEATS[:1], "private": True, "invited": [], "open_seats": [1]},
    ],
    (ev.SEAT_TAKEN, 1): [
        {"seat": 1, "name": "Cy", "email": "cy@example.org", "invited": True, "channel": "web"}
    ],
    (ev.SEATS_CLOSED, 1): [{"players": 2, "config": {"players": 2}, "channel": "api"}],
    (creation_events.GAME_STARTED, 1): [{"to_act": [0, 1]}, {"to_act": []}],
    (ev.ACTION_APPLIED, 1): [APPLIED_V1, {**APPLIED_V1, "secret": True, "nonce": SALT}],
    (ev.ACTION_APPLIED, 2): [
        {**APPLIED_V1, "commitment": None},
        {
            **APPLIED_V1,
            "action": VOTE,
            "canonical": "vote yes",
            "text": "Vote yes",
            "secret": True,
            "nonce": SALT,
            "commitment": COMMITMENT,
            "log": [],
        },
    ],
    (undo_events.UNDO_REQUESTED, 1): [{"seat": 0, "to_version": 3, "versions": [4, 5], **REF}],
    (undo_events.UNDO_DECIDED, 1): [{"request": 6, "seat": 1, "accept": False, **REF}],
    (undo_events.UNDO_LAPSED, 1): [{"request": 6, "seat": 0, "to_version": 3}],
    (ev.ACTIONS_RETRACTED, 1): [
        {"seat": 0, "request": 6, "to_version": 3, "versions": [4, 5], **REF},
        {
            "seat": 0,
            "request": None,
            "to_version": 3,
            "versions": [4],
            "channel": "cli",
            "channel_ref": "x",
        },
    ],
    (ev.PLAYER_RESIGNED, 1): [{"seat": 1, **REF}],
    (ev.GAME_FINISHED, 1): [
        {
            "outcome": {"scores": [3, 4], "winners": [1], "breakdown": {"a": [1]}},
            "seed": "12345678901234567890",
            "reason": "rules",
        },
        {"outcome": {}, "seed": "1", "reason": "resignation"},
    ],
    (dispute_events.DISPUTE_OPENED, 1): [
        {"seat": 0, "versions": [7], "text": "not my move", **REF}
    ],
    (dispute_events.DISPUTE_ANSWERED, 1): [{"dispute": 9, "seat": 1, "agree": True, **REF}],
    (dispute_events.DISPUTE_RESOLVED, 1): [RESOLVED_V1],
    (dispute_events.DISPUTE_RESOLVED, 2): [
        {**RESOLVED_V1, "opener": 1, "seat": 0},
        {
            **RESOLVED_V1,
            "opener": 1,
            "seat": None,
            "outcome": "dismissed",
            "by": "administrator",
            "to_version": None,
            "retracted": [],
            "revealed": [],
            "channel": "cli",
        },
    ],
    (creation_events.INVITATION_ACCEPTED, 1): [{"seat": 1, "channel": "web"}],
    (ce.TIME_CONTROL_SET, 1): [
        {
            "time_control": {"kind": "fixed", "per_decision": 172800},
            "by": "creator",
            "channel": "api",
        },
    ],
    (ce.DEADLINE_MISSED, 1): [
        {"seat": 0, "due_at": "2026-01-02T03:04:05+00:00", "move": True, "reason": "default"},
    ],
    (ce.DEADLINE_EXTENDED, 1): [
        {"seat": 0, "seconds": 3600, "by": "seat", "by_seat": 0, **REF},
        {"seat": 0, "seconds": 60, "by": "administrator", "by_seat": None, **REF},
    ],
    (ce.GAME_PAUSED, 1): [{"by": "consent", "by_seat": 1, **REF}],
    (ce.GAME_RESUMED, 1): [{"by": "administrator", "by_seat": None, **REF}],
    (ce.VACATION_STARTED, 1): [{"seat": 1, "until": "2026-02-01T00:00:00+00:00", **REF}],
    (ce.VACATION_ENDED, 1): [{"seat": 1, **REF}],
    (ce.STANDING_ORDER_SET, 1): [
        {"seat": 1, "text": "pass", **REF},
        {"seat": 1, "text": None, **REF},
    ],
    (ce.STANDING_ORDER_SET, 2): [
        {"seat": 1, "text": "pass", **REF, "salt": SALT},
        {"seat": 1, "text": None, **REF, "salt": ""},
    ],
    ("ClockRequested", 1): [
        {"seat": 0, "what": "extend", "seconds": 7200, **REF},
        {"seat": 0, "what": "pause", "seconds": None, **REF},
    ],
    ("ClockRequestAnswered", 1): [{"request": 5, "seat": 1, "agree": False, **REF}],
    # substitutes (pbem.handover.events): the administrator's proposal has no seat
    ("SubstituteProposed", 1): [
        {"seat": 2, "by_seat": 0, "name": "Dan", "email": "dan@example.org", **REF},
        {"seat": 1, "by_seat": None, "name": "Eve", "email": "eve@example.org", **REF},
    ],
    ("SubstituteDecided", 1): [{"proposal": 9, "seat": 1, "agree": True, **REF}],
    # rematch (pbem.rematch.events): in the finished game, and RematchOf in the new one
    ("RematchProposed", 1): [
        {"seat": 0, "seating": "rotate", **REF},
        {"seat": 2, "seating": "same", "channel": "email", "channel_ref": "<a@example.org>"},
    ],
    ("RematchAgreed", 1): [{"proposal": 40, "seat": 1, **REF}],
    ("RematchDeclined", 1): [{"proposal": 40, "seat": 2, **REF}],
    ("RematchStarted", 1): [{"proposal": 40, "game_id": "3f9a1c2b7d"}],
    ("RematchOf", 1): [{"game_id": "3f9a1c2b7d", "proposal": 40, "seating": "rotate"}],
    ("SeatHandedOver", 1): [
        {
            "proposal": 9,
            "seat": 2,
            "old_name": "Cat",
            "old_email": None,
            "new_name": "Dan",
            "new_email": "dan@example.org",
            "from_version": 12,
            "by": "consent",
            "channel": "web",
        }
    ],
    (talk_events.TABLE_TALK_SENT, 1): [
        {"seat": 0, "recipients": [], "text": "Good luck, all!", **REF},
        {
            "seat": 2,
            "recipients": [0, 1],
            "text": "shall we?",
            "channel": "web",
            "channel_ref": None,
        },
    ],
    (talk_events.TABLE_TALK_SENT, 2): [
        {"seat": 0, "recipients": [], "text": "Good luck, all!", **REF, "salt": SALT},
        {
            "seat": 2,
            "recipients": [0, 1],
            "text": "shall we?",
            "channel": "web",
            "channel_ref": None,
            "salt": "",
        },
    ],
    (talk_events.TABLE_TALK_HIDDEN, 1): [
        {"message": 7, "by": "administrator", "reason": "insults", "channel": "api"},
    ],
}

#: what an old version reads as once upcast to the current one (what the API shows)
UPCAST: dict[tuple[str, int], list[dict[str, Any]]] = {
    (ev.GAME_CREATED, 1): [{**CREATED_V1, "private": False, "invited": [], "open_seats": []}],
    (ev.GAME_CREATED, 2): [{**CREATED_V1, "private": True, "invited": [], "open_seats": []}],
    (ev.GAME_CREATED, 3): [
        {**CREATED_V1, "private": False, "invited": [1], "open_seats": []},
        {**CREATED_V1, "config": {}, "seats": [], "private": True, "invited": [], "open_seats": []},
    ],
    (ev.ACTION_APPLIED, 1): [
        {**APPLIED_V1, "commitment": None},
        {**APPLIED_V1, "secret": True, "nonce": SALT, "commitment": None},
    ],
    (dispute_events.DISPUTE_RESOLVED, 1): [
        {**{k: v for k, v in RESOLVED_V1.items() if k != "seat"}, "opener": 1, "seat": None}
    ],
    (ce.STANDING_ORDER_SET, 1): [
        {"seat": 1, "text": "pass", **REF, "salt": ""},
        {"seat": 1, "text": None, **REF, "salt": ""},
    ],
    (talk_events.TABLE_TALK_SENT, 1): [
        {"seat": 0, "recipients": [], "text": "Good luck, all!", **REF, "salt": ""},
        {
            "seat": 2,
            "recipients": [0, 1],
            "text": "shall we?",
            "channel": "web",
            "channel_ref": None,
            "salt": "",
        },
    ],
}

CASES = [
    pytest.param(key, i, id=f"{key[0]}-v{key[1]}-{i}")
    for key, examples in EXAMPLES.items()
    for i in range(len(examples))
]


def test_every_registered_schema_version_has_examples() -> None:
    assert set(EXAMPLES) == set(ev.SCHEMAS)
    old = {(t, v) for (t, v) in ev.SCHEMAS if v < ev.CURRENT_VERSION[t]}
    assert set(UPCAST) == old


@pytest.mark.parametrize(("key", "index"), CASES)
def test_a_stored_payload_dumps_back_to_the_same_bytes(key: tuple[str, int], index: int) -> None:
    stored = chain.canonical_json(EXAMPLES[key][index])
    schema = ev.SCHEMAS[key]
    loaded = schema.load(EXAMPLES[key][index])
    assert chain.canonical_json(schema.dump(loaded)) == stored
    type_, version = key
    upcast = ev.decode(type_, version, stored)
    if version == ev.CURRENT_VERSION[type_]:
        assert chain.canonical_json(upcast) == stored
        # The typed event, as the service appends it, stores the same bytes.
        assert ev.encode(ev.typed(type_, upcast)) == (version, stored)
    else:
        assert upcast == UPCAST[key][index]
        assert chain.canonical_json(ev.typed(type_, upcast).data) == chain.canonical_json(upcast)


@pytest.mark.parametrize(("key", "index"), CASES)
def test_a_payload_read_again_is_the_same_and_its_json_is_the_readers_own(
    key: tuple[str, int], index: int
) -> None:
    # decode_payload keeps the typed payloads it loaded: a second read gives the same typed
    # payload and equal JSON, and the JSON is a new object each time, so a reader that
    # changes it (as a page's code may) changes nobody else's.
    type_, version = key
    stored = chain.canonical_json(EXAMPLES[key][index])
    first_data, first = ev.decode_payload(type_, version, stored)
    first_data["changed by a reader"] = True
    for value in first_data.values():
        if isinstance(value, list):
            value.append("changed by a reader")
    second_data, second = ev.decode_payload(type_, version, stored)
    assert second == first
    assert "changed by a reader" not in second_data
    assert second_data == ev.decode_payload(type_, version, stored)[0]
    assert chain.canonical_json(second_data) == chain.canonical_json(
        ev.decode_payload(type_, version, stored)[0]
    )
    expected = UPCAST[key][index] if version < ev.CURRENT_VERSION[type_] else EXAMPLES[key][index]
    assert chain.canonical_json(second_data) == chain.canonical_json(expected)
    assert chain.canonical_json(second.data) == chain.canonical_json(expected)  # nor the payload


def test_a_payload_refused_once_is_refused_every_time() -> None:
    # Only what loaded is kept: an invalid payload is checked (and refused) at every read.
    type_ = "GameCreated"
    version = ev.CURRENT_VERSION[type_]
    for _ in range(2):
        with pytest.raises(ev.EventDataError):
            ev.decode_payload(type_, version, '{"game": 3}')
