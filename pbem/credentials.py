"""What a game keeps outside its log: the seed until the end reveals it, and the hashes of the
admin and seat tokens. Written once, by the create command; read to authenticate."""

from __future__ import annotations

import hashlib
import secrets

from sqlmodel import Session, select

from pbem.models import GameSecret, SeatToken


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(24)


def keep(
    session: Session, game_id: str, seed: int, admin_token: str, seat_tokens: list[str]
) -> None:
    session.add(
        GameSecret(game_id=game_id, seed=str(seed), admin_token_hash=token_hash(admin_token))
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


def is_admin_token(session: Session, game_id: str, token: str | None) -> bool:
    secret = session.get(GameSecret, game_id)
    if secret is None or not token:
        return False
    return secrets.compare_digest(secret.admin_token_hash, token_hash(token))


def seed(session: Session, game_id: str) -> str:
    secret = session.get(GameSecret, game_id)
    assert secret is not None, f"game {game_id} has no kept seed"
    return secret.seed
