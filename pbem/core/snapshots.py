"""Snapshots (the state after a version, a cache) sealed with the service's secret key.

Anyone who can write to the database can change a snapshot row, and with it any hash stored
beside it: a hash in the same row proves nothing. What such a person does not hold is the
service's secret key (a setting, or a file in ``var_dir``; never in the database). Each
snapshot therefore carries an HMAC-SHA256, under a key derived from the secret key for this
one purpose, over everything the snapshot claims: the game, the version, the hash of the
event at that version, the rules version and the state. The repository uses a snapshot only
while its seal verifies and its event hash is the chain's hash at that version; any other is
ignored and logged, and the state is folded from the log instead.

Chosen over re-deriving each snapshot before use (which costs the fold the snapshot saves)
and over a state hash in the event log (which would change every event written). Its limit:
a snapshot the service itself sealed from a wrong state (a bug, not an edit) would pass;
``replay --verify`` catches that too, as it re-derives the state at every stored snapshot's
version from the log and compares.

A service with another secret key (a rotated or lost key) trusts none of the existing
snapshots: it folds from the log and seals new ones as versions cross ``snapshot_every``.
"""

from __future__ import annotations

import hashlib
import hmac

from pbem.core.events import canonical_json
from pbem.core.models import Snapshot

_PURPOSE = b"pbem snapshot seal v1\0"


def _key(secret_key: str) -> bytes:
    # Derived for this purpose alone, so that a seal can never serve as a token's signature.
    return hmac.new(secret_key.encode("utf-8"), _PURPOSE, hashlib.sha256).digest()


def seal(
    secret_key: str, game_id: str, version: int, event_hash: str, rules_version: str, state: str
) -> str:
    """The seal of a snapshot: hex HMAC-SHA256 over its fields (as one canonical JSON list,
    so that no two different snapshots give the same message)."""
    message = canonical_json([game_id, version, event_hash, rules_version, state])
    return hmac.new(_key(secret_key), message.encode("utf-8"), hashlib.sha256).hexdigest()


def is_sealed(secret_key: str, snapshot: Snapshot) -> bool:
    """Whether the row is exactly as this service (this secret key) stored it."""
    if not secret_key or not snapshot.mac:
        return False
    expected = seal(
        secret_key,
        snapshot.game_id,
        snapshot.version,
        snapshot.event_hash,
        snapshot.rules_version,
        snapshot.state,
    )
    return hmac.compare_digest(expected, snapshot.mac)
