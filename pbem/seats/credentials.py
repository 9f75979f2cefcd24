"""What a game keeps outside its log: the seed until the end reveals it, and the hashes of the
admin and seat tokens. Written by the create command, and a seat's token again when it is
replaced (``pbem rotate-token``); read to authenticate."""

from __future__ import annotations

import hashlib
import secrets

from sqlmodel import Session, select

from pbem.core.models import GameSecret, RevokedSeatToken, SeatToken


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(24)


def keep(
    session: Session,
    game_id: str,
    seed: int,
    admin_token: str,
    seat_tokens: list[str],
    admin_token_hash: str | None = None,
    join_key: str | None = None,
) -> None:
    """The new game's secrets: its seed, and the hashes of its tokens and join link's key.
    ``admin_token_hash``: kept instead of ``admin_token``'s (a rematch keeps its finished
    game's administrator)."""
    session.add(
        GameSecret(
            game_id=game_id,
            seed=str(seed),
            admin_token_hash=admin_token_hash or token_hash(admin_token),
            join_key_hash=token_hash(join_key) if join_key else None,
        )
    )
    session.add_all(
        SeatToken(game_id=game_id, seat=i, token_hash=token_hash(t))
        for i, t in enumerate(seat_tokens)
    )


def seat_of_token(session: Session, game_id: str, token: str) -> int | None:
    return session.exec(
        select(SeatToken.seat).where(
            SeatToken.game_id == game_id, SeatToken.token_hash == token_hash(token)
        )
    ).first()


def replace_seat_token(session: Session, game_id: str, seat: int, revoked_at: str) -> str:
    """A new bearer token for the seat (returned: its only copy); the old one is refused from
    the commit on, as replaced."""
    row = session.get(SeatToken, (game_id, seat))
    assert row is not None, f"game {game_id} has no token for seat {seat}"
    session.add(
        RevokedSeatToken(
            token_hash=row.token_hash, game_id=game_id, seat=seat, revoked_at=revoked_at
        )
    )
    token = new_token()
    row.token_hash = token_hash(token)
    session.add(row)
    session.flush()
    return token


def revoked_seat_token(session: Session, game_id: str, token: str) -> RevokedSeatToken | None:
    """The record of a replaced token of this game, if ``token`` is one."""
    row = session.get(RevokedSeatToken, token_hash(token))
    return row if row is not None and row.game_id == game_id else None


def is_admin_token(session: Session, game_id: str, token: str | None) -> bool:
    secret = session.get(GameSecret, game_id)
    if secret is None or not token:
        return False
    return secrets.compare_digest(secret.admin_token_hash, token_hash(token))


def admin_token_hash(session: Session, game_id: str) -> str | None:
    secret = session.get(GameSecret, game_id)
    return secret.admin_token_hash if secret is not None else None


def seed(session: Session, game_id: str) -> str:
    secret = session.get(GameSecret, game_id)
    assert secret is not None, f"game {game_id} has no kept seed"
    return secret.seed


def add_seat_token(session: Session, game_id: str, seat: int) -> str:
    """A bearer token for a seat taken after the game was created (an open seat): returned,
    its only copy."""
    token = new_token()
    session.add(SeatToken(game_id=game_id, seat=seat, token_hash=token_hash(token)))
    return token


def is_join_key(session: Session, game_id: str, key: str | None) -> bool:
    """Whether ``key`` is the key of the game's join link (as it is now: a revoked one is not)."""
    secret = session.get(GameSecret, game_id)
    if secret is None or secret.join_key_hash is None or not key:
        return False
    return secrets.compare_digest(secret.join_key_hash, token_hash(key))


def replace_join_key(session: Session, game_id: str) -> str:
    """A new key for the game's join link (returned: its only copy); the old link stops
    working from the commit on."""
    secret = session.get(GameSecret, game_id)
    assert secret is not None, f"game {game_id} has no secrets"
    key = new_token()
    secret.join_key_hash = token_hash(key)
    session.add(secret)
    return key
