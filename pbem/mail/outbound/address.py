"""Reply addresses: ``play+<token>@<reply_domain>``.

The token routes and authenticates a reply without trusting ``From:`` alone. It is the
lower-case base32 of a compact binary record — (game, seat, key version, version seen) —
followed by an HMAC-SHA256 tag cut to 80 bits, so it survives clients and servers that change
the case of the address, and the whole local part stays within the 64 characters RFC 5321
allows.

The HMAC key is per seat: derived from the service's secret, the game, the seat and the seat's
*key version*. Rotating a seat's key (incrementing its key version, stored by the service)
revokes every reply address handed out before, while other seats' addresses keep working.

The same record, signed for another *purpose*, is the credential of a seat's page link
(``/games/<id>?link=<token>``, in the mails to that seat): the key derivation includes the
purpose, so a reply address (which travels in headers) never opens a page, nor a page link
routes a reply. Rotating the seat's key revokes both.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import re
from collections.abc import Iterable
from dataclasses import dataclass

from pbem.core.header_text import LOCAL_PART_MAX

_FORMAT = 1  # the high nibble of the first byte: the token layout version
# The low nibble: how the game id is stored. Only as text: the service's ids are short text
# (2 was its number beside integer and UUID ids, which nothing ever made; tokens keep it).
_TEXT = 2
_TAG_BYTES = 10  # 80 bits: an online forger would need ~2**79 tries
_TEXT_ID = re.compile(r"^[A-Za-z0-9_-]{1,18}$")


#: What a token is for; part of the key derivation (see the module docstring).
REPLY, PAGE = b"pbem reply token", b"pbem seat page"
#: The link in an invitation that accepts it.
INVITATION = b"pbem invitation"
#: The link in a substitute's invitation that takes the seat over (``pbem.handover``); its
#: ``version_seen`` is the proposal's version.
HANDOVER = b"pbem seat handover"


class BadToken(ValueError):
    """A reply token that is malformed, forged, or revoked; the message says which."""


@dataclass(frozen=True)
class ReplyToken:
    game_id: str
    seat: int
    key_version: int
    #: The game version the mail showed (None when the token was made without one).
    version_seen: int | None


def _varint(n: int) -> bytes:
    if n < 0:
        raise ValueError("token numbers cannot be negative")
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _read_varint(data: bytes, at: int) -> tuple[int, int]:
    n = shift = 0
    while True:
        if at >= len(data) or shift > 56:
            raise BadToken("the reply token is cut short")
        byte = data[at]
        at += 1
        n |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return n, at


def _game_bytes(game_id: str) -> tuple[int, bytes]:
    if _TEXT_ID.match(game_id):
        raw = game_id.encode()
        return _TEXT, bytes([len(raw)]) + raw
    raise ValueError(f"a game id of this form cannot go into a reply address: {game_id!r}")


def _payload(token: ReplyToken) -> bytes:
    kind, game = _game_bytes(token.game_id)
    seen = 0 if token.version_seen is None else token.version_seen + 1
    return (
        bytes([_FORMAT << 4 | kind])
        + game
        + _varint(token.seat)
        + _varint(token.key_version)
        + _varint(seen)
    )


def _seat_key(secret: bytes, token: ReplyToken, purpose: bytes) -> bytes:
    """The per-seat key: a new key version gives an unrelated key (rotation revokes)."""
    return _seat_key_of(secret, token.game_id, token.seat, token.key_version, purpose)


# Kept: every move's mails sign for the same few seats again (a pure function of its inputs).
@functools.lru_cache(maxsize=4096)
def _seat_key_of(secret: bytes, game_id: str, seat: int, key_version: int, purpose: bytes) -> bytes:
    _, game = _game_bytes(game_id)
    label = purpose + b"\0" + game + _varint(seat) + _varint(key_version)
    return hmac.new(secret, label, hashlib.sha256).digest()


def _as_bytes(secret: bytes | str) -> bytes:
    key = secret.encode() if isinstance(secret, str) else secret
    if len(key) < 16:
        raise ValueError("the signing secret is too short (16 bytes at least)")
    return key


@functools.lru_cache(maxsize=4096)  # a pure function: a seat's page link repeats in its mails
def make_token(
    secret: bytes | str,
    game_id: str,
    seat: int,
    key_version: int,
    version_seen: int | None = None,
    *,
    purpose: bytes = REPLY,
) -> str:
    """The token for a reply address, or with ``purpose=PAGE`` for a seat's page link
    (lower-case base32, no padding)."""
    token = ReplyToken(game_id, seat, key_version, version_seen)
    payload = _payload(token)
    tag = hmac.new(_seat_key(_as_bytes(secret), token, purpose), payload, hashlib.sha256).digest()
    return base64.b32encode(payload + tag[:_TAG_BYTES]).decode().rstrip("=").lower()


def peek(token: str) -> ReplyToken:
    """Decode a token WITHOUT checking it (to find the seat whose key version to look up);
    raises BadToken when it cannot be read."""
    data = _decode(token)
    return _parse(data[:-_TAG_BYTES])


def _decode(token: str) -> bytes:
    text = token.strip().upper()
    if not text or not re.fullmatch(r"[A-Z2-7]+", text) or len(text) > LOCAL_PART_MAX:
        raise BadToken("the reply token is not in the form we write")
    try:
        data = base64.b32decode(text + "=" * (-len(text) % 8))
    except ValueError as error:
        raise BadToken("the reply token is not in the form we write") from error
    # The decoder ignores the spare bits of the last character: without this check, several
    # spellings of one token would all be accepted.
    if base64.b32encode(data).decode().rstrip("=") != text:
        raise BadToken("the reply token is not in the form we write")
    if len(data) <= _TAG_BYTES + 4:
        raise BadToken("the reply token is cut short")
    return data


def _parse(payload: bytes) -> ReplyToken:
    head = payload[0]
    if head >> 4 != _FORMAT:
        raise BadToken("the reply token is in a format we no longer read")
    kind, at = head & 0x0F, 1
    game_id: str
    if kind == _TEXT:
        size = payload[at]
        try:
            game_id = payload[at + 1 : at + 1 + size].decode()
        except UnicodeDecodeError as error:
            raise BadToken("the reply token is not in the form we write") from error
        if not _TEXT_ID.match(game_id):
            raise BadToken("the reply token is not in the form we write")
        at += 1 + size
    else:
        raise BadToken("the reply token is not in the form we write")
    seat, at = _read_varint(payload, at)
    key_version, at = _read_varint(payload, at)
    seen, at = _read_varint(payload, at)
    if at != len(payload):
        raise BadToken("the reply token is not in the form we write")
    return ReplyToken(game_id, seat, key_version, None if seen == 0 else seen - 1)


def verify(
    secret: bytes | str, token: str, current_key_version: int, *, purpose: bytes = REPLY
) -> ReplyToken:
    """Check a token's tag against the seat's current key; raises BadToken when it was forged,
    damaged, made for another purpose, or made with a key version that has since been rotated
    away."""
    data = _decode(token)
    payload, tag = data[:-_TAG_BYTES], data[-_TAG_BYTES:]
    claimed = _parse(payload)
    key = _seat_key(_as_bytes(secret), claimed, purpose)
    expected = hmac.new(key, payload, hashlib.sha256).digest()
    what = "reply address" if purpose == REPLY else "link"
    if not hmac.compare_digest(expected[:_TAG_BYTES], tag):
        raise BadToken(f"the {what} was not made by this service (or was altered)")
    if claimed.key_version != current_key_version:
        latest = "reply to" if purpose == REPLY else "use the link in"
        raise BadToken(f"this {what} has been revoked; {latest} the latest mail from the game")
    return claimed


def reply_address(
    secret: bytes | str,
    game_id: str,
    seat: int,
    key_version: int,
    version_seen: int | None,
    *,
    domain: str,
    local: str = "play",
) -> str:
    """``<local>+<token>@<domain>``; raises ValueError if the local part would pass 64."""
    local_part = f"{local}+{make_token(secret, game_id, seat, key_version, version_seen)}"
    if len(local_part) > LOCAL_PART_MAX:
        raise ValueError(f"reply address local part is {len(local_part)} characters (max 64)")
    return f"{local_part}@{domain}"


def find_token(addresses: Iterable[str], *, domain: str, local: str = "play") -> str | None:
    """The token of the first address of the form ``<local>+<token>@<domain>`` (any case)."""
    prefix, suffix = f"{local}+".lower(), f"@{domain}".lower()
    for address in addresses:
        lowered = address.strip().strip("<>").lower()
        if lowered.startswith(prefix) and lowered.endswith(suffix):
            token = lowered[len(prefix) : -len(suffix)]
            if token:
                return token
    return None
