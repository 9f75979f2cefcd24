"""Game creations as they were asked for (``game_requests``): who asked, and the idempotency
key of a creation, so that a retry whose first answer was lost gets the same game instead of
a second one (the limits on creations count ``creation_addresses``: pbem.create.limits).

The answer to a creation holds the seat and admin tokens, which are shown once and stored
only as hashes. For a creation with an idempotency key they are therefore not random but
derived from the service's secret and the key (an HMAC): a retry with the same key derives
the same tokens, and nothing that could give them back is stored. Whoever holds the key and
the request can get the tokens again, as with the first answer: keep a key as secret as the
tokens (a random UUID, say). A key belongs to the requester that first used it (its organiser
key, else its client address): the same key from another requester is refused, so a guessed
key cannot fetch another organiser's tokens.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Mapping, Sequence
from typing import Any

from sqlmodel import Session, select

from pbem.core import events as ev
from pbem.core.errors import BadRequest, Conflict
from pbem.core.events import StoredEvent
from pbem.core.models import GameRequest, SeatToken
from pbem.seats import credentials

#: The prefix of a requester the service vouches for (a creation it makes on the players'
#: behalf: a rematch). Its keys are apart from clients' as organisers' are: no client can
#: take one first.
VOUCHED = "service:"

#: The longest idempotency key.
MAX_KEY = 200


def check_key(key: str | None) -> None:
    if key is not None and (
        not 1 <= len(key) <= MAX_KEY or any(ord(c) < 32 or c == "\x7f" for c in key)
    ):
        raise BadRequest(
            f"An idempotency key has 1 to {MAX_KEY} printable characters, without control "
            f"characters (the one sent has {len(key)} characters)."
        )


def key_hash(key: str, requester: str) -> str:
    """The stored form of a key: organisers' keys are apart (``requester`` names the
    organiser key when keys are required). Client addresses share one space of keys, but a
    key is answered only to the requester that used it first (``find``)."""
    scope = requester if requester.startswith(("organiser:", VOUCHED)) else ""
    return hashlib.sha256(f"{scope}\0{key}".encode()).hexdigest()


def request_hash(
    game: str, config: Mapping[str, Any], seats: Sequence[Mapping[str, Any]], private: bool
) -> str:
    request = {"game": game, "config": dict(config), "players": list(seats), "private": private}
    return hashlib.sha256(ev.canonical_json(request).encode()).hexdigest()


def derived_tokens(secret: str, hashed_key: str, seats: int) -> tuple[list[str], str]:
    """The seat tokens and the admin token of the creation with this key."""

    def token(role: str) -> str:
        digest = hmac.new(
            secret.encode(), f"pbem creation\0{hashed_key}\0{role}".encode(), hashlib.sha256
        ).digest()
        return base64.urlsafe_b64encode(digest[:24]).decode()

    return [token(f"seat {i}") for i in range(seats)], token("admin")


def derived_join_key(secret: str, hashed_key: str) -> str:
    """The key of the join link of the creation with this key (its open seats)."""
    digest = hmac.new(
        secret.encode(), f"pbem creation\0{hashed_key}\0join".encode(), hashlib.sha256
    ).digest()
    return base64.urlsafe_b64encode(digest[:24]).decode()


def find(
    session: Session, hashed_key: str, hashed_request: str, requester: str
) -> GameRequest | None:
    """The creation made with this key, if any; Conflict when it was another request, or
    another requester's (the answer holds every token: only its requester gets it again)."""
    row = session.exec(select(GameRequest).where(GameRequest.key_hash == hashed_key)).first()
    if row is not None and row.requester != requester:
        raise Conflict(
            "This idempotency key was used by another requester; use a key of your own (a "
            "random UUID, say)."
        )
    if row is not None and row.request_hash != hashed_request:
        raise Conflict(
            "This idempotency key was already used to create a different game; use a new key "
            "for a new game."
        )
    return row


def check_tokens(session: Session, game_id: str, seat_tokens: Sequence[str]) -> None:
    """Conflict when the game's seat tokens are no longer the ones the key derives (a token
    was replaced since): the first answer cannot be given again."""
    stored = {
        t.seat: t.token_hash
        for t in session.exec(select(SeatToken).where(SeatToken.game_id == game_id))
    }
    if any(stored.get(i) != credentials.token_hash(t) for i, t in enumerate(seat_tokens)):
        raise Conflict(
            f"This idempotency key created game {game_id}, but its seat tokens have been "
            "replaced since, so the first answer cannot be given again."
        )


def record(
    session: Session,
    game_id: str,
    requester: str,
    hashed_key: str | None,
    hashed_request: str,
    head: StoredEvent,
) -> None:
    session.add(
        GameRequest(
            game_id=game_id,
            requester=requester,
            key_hash=hashed_key,
            request_hash=hashed_request,
            version=head.version,
            head_hash=head.hash,
            created_at=head.recorded_at,
        )
    )
    session.flush()
