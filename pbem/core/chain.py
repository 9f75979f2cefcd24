"""The hash chain and the commitments, in the standard library alone.

Everything here is what someone needs to check a game without the service: the canonical
JSON the events are stored in, ``hash = sha256(prev_hash ‖ canonical event)``, the seed's
commitment and the commitment of a secret action. The service (``pbem.core.events``,
``pbem.core.store``) and the offline verifier (``pbem.audit.verify``, which must run where only the
engine is installed) both use it, so the two can never disagree about a hash.

A secret action (a parliament vote) recorded with ``ActionApplied`` schema version 2 carries
``commitment = sha256(salt ‖ canonical {"action", "canonical", "text"})``; the chain hashes
the event's *public form*, with the commitment in place of the vote and its salt. So a copy
of the log that leaves out another seat's unrevealed vote still checks link by link, and
once the vote is revealed anyone can check that it is the one committed to before.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

GENESIS_HASH = "0" * 64

ACTION_APPLIED = "ActionApplied"

#: the fields of a committed secret action that its commitment stands for in the chain
SECRET_FIELDS = ("action", "canonical", "text")
#: ... and its salt, kept beside them
SALT_FIELD = "nonce"
#: the first ActionApplied schema version whose secret actions are committed
COMMITTED_SINCE = 2


class EventDataError(ValueError):
    """A payload does not match its event type's schema (or cannot be decoded)."""


def canonical_json(value: Any, *, known_storable: bool = False) -> str:
    """Sorted keys, no spaces, UTF-8 text as is; floats (and NaN) and NUL characters are
    refused. ``known_storable``: the caller knows that ``value`` holds none of them and only
    text keys (the verifier, which parsed it from JSON text with neither a float nor a
    ``\\u0000`` in it), so the walk through every value that looks for them is skipped."""
    if not known_storable:
        _refuse_unstorable(value)
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _refuse_unstorable(value: Any) -> None:
    # NUL: PostgreSQL text cannot hold it, and the same event must be storable everywhere.
    if isinstance(value, float):
        raise EventDataError(f"events hold no floats (found {value!r}): use integers or text")
    if isinstance(value, str) and "\x00" in value:
        raise EventDataError("events hold no NUL characters")
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                raise EventDataError(f"JSON object keys must be text, not {k!r}")
            _refuse_unstorable(k)
            _refuse_unstorable(v)
    elif isinstance(value, list | tuple):
        for v in value:
            _refuse_unstorable(v)


def is_committed(type_: str, schema_version: int, data: Mapping[str, Any]) -> bool:
    """A secret action whose chain link is its commitment (not its vote)."""
    return (
        type_ == ACTION_APPLIED
        and schema_version >= COMMITTED_SINCE
        and data.get("commitment") is not None
    )


def public_form(type_: str, schema_version: int, data: Mapping[str, Any]) -> dict[str, Any]:
    """What the chain hashes of a payload: the payload itself, except that a committed secret
    action keeps its commitment in place of its vote and salt. Idempotent: the public form
    of a public form is itself (a seat's export carries exactly that)."""
    if not is_committed(type_, schema_version, data):
        return dict(data)
    hidden = (*SECRET_FIELDS, SALT_FIELD)
    return {k: v for k, v in data.items() if k not in hidden}


def committed_text(action: Any, canonical: str, text: str, *, known_storable: bool = False) -> str:
    """The exact text a secret action's commitment is the hash of (after its salt)."""
    return canonical_json(
        {"action": action, "canonical": canonical, "text": text}, known_storable=known_storable
    )


def secret_commitment(
    salt: str, action: Any, canonical: str, text: str, *, known_storable: bool = False
) -> str:
    """``sha256(salt ‖ canonical {"action", "canonical", "text"})`` as lowercase hex."""
    body = salt + committed_text(action, canonical, text, known_storable=known_storable)
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def commitment_problem(
    type_: str, schema_version: int, data: Mapping[str, Any], *, known_storable: bool = False
) -> str | None:
    """Why a committed secret action's vote or salt does not match its commitment (None: it
    matches, or the event holds no vote to check, as in a seat's export before the reveal);
    ``known_storable`` as ``canonical_json``'s."""
    if not is_committed(type_, schema_version, data):
        return None
    if all(k not in data for k in (*SECRET_FIELDS, SALT_FIELD)):
        return None  # the public form: nothing to check it against yet
    missing = [k for k in (*SECRET_FIELDS, SALT_FIELD) if k not in data]
    if missing:
        return f"the secret action carries its commitment but not its {', '.join(missing)}"
    if not isinstance(data[SALT_FIELD], str) or not isinstance(data["canonical"], str):
        return "the secret action's salt and canonical text must be text"
    if not isinstance(data["text"], str):
        return "the secret action's text must be text"
    try:
        expected = secret_commitment(
            data[SALT_FIELD],
            data["action"],
            data["canonical"],
            data["text"],
            known_storable=known_storable,
        )
    except EventDataError as e:
        return f"the secret action cannot be committed: {e}"
    if expected != data["commitment"]:
        return "the secret action (its vote, text or salt) does not match its commitment"
    return None


def canonical_event(
    game_id: str,
    version: int,
    type_: str,
    schema_version: int,
    data: Mapping[str, Any],
    recorded_at: str,
    *,
    known_storable: bool = False,
) -> str:
    """The text an event's chain link hashes: its place, type and public payload
    (``known_storable`` as ``canonical_json``'s, for the whole event)."""
    return canonical_json(
        {
            "game_id": game_id,
            "version": version,
            "type": type_,
            "schema_version": schema_version,
            "data": public_form(type_, schema_version, data),
            "recorded_at": recorded_at,
        },
        known_storable=known_storable,
    )


def chain_hash(prev_hash: str, canonical: str) -> str:
    """``sha256(prev_hash ‖ canonical event)`` as lowercase hex."""
    return hashlib.sha256((prev_hash + canonical).encode("utf-8")).hexdigest()


def seed_commitment(seed: int) -> str:
    return hashlib.sha256(str(seed).encode("ascii")).hexdigest()
