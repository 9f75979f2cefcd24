"""Reply tokens: signed, case-insensitive, short, revocable per seat."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.mail.outbound.address import (
    BadToken,
    ReplyToken,
    find_token,
    make_token,
    peek,
    reply_address,
    verify,
)

SECRET = b"test-secret-0123456789abcdef0123"
UUID = "3f2a9c1e5b"  # a game id as the service makes them (10 hex digits)
BASE32 = "abcdefghijklmnopqrstuvwxyz234567"


@settings(derandomize=True)
@given(
    # The service's ids are 10 hex digits; 12 characters leave room for the numbers below.
    game=st.from_regex(r"[A-Za-z0-9_-]{1,12}", fullmatch=True),
    seat=st.integers(0, 9),
    key=st.integers(0, 10_000),
    seen=st.one_of(st.none(), st.integers(0, 10**7)),
)
def test_a_token_round_trips_in_any_case_and_fits_the_local_part(
    game: str, seat: int, key: int, seen: int | None
) -> None:
    address = reply_address(SECRET, game, seat, key, seen, domain="reply.example.org")
    local = address.split("@")[0]
    assert len(local) <= 64
    assert local == local.lower()
    token = find_token([address.upper()], domain="reply.example.org")
    assert token is not None
    assert verify(SECRET, token.upper(), key) == ReplyToken(game, seat, key, seen)
    assert peek(token) == ReplyToken(game, seat, key, seen)


def test_a_rotated_key_revokes_old_addresses_of_that_seat_only() -> None:
    old = make_token(SECRET, UUID, 1, key_version=0, version_seen=4)
    other_seat = make_token(SECRET, UUID, 2, key_version=0, version_seen=4)
    with pytest.raises(BadToken, match="revoked"):
        verify(SECRET, old, current_key_version=1)
    assert verify(SECRET, other_seat, current_key_version=0).seat == 2
    new = make_token(SECRET, UUID, 1, key_version=1, version_seen=4)
    assert verify(SECRET, new, current_key_version=1).seat == 1


def test_a_claimed_newer_key_version_without_the_key_is_refused() -> None:
    # Forging a token for the current key version needs that version's key.
    forged = make_token(b"another-secret-0123456789abcdef", "7", 1, key_version=3)
    with pytest.raises(BadToken, match="not made by this service"):
        verify(SECRET, forged, current_key_version=3)


def test_any_single_character_change_is_detected() -> None:
    # Tokens of several lengths, some with spare bits in their last character (which the
    # base32 decoder alone would ignore).
    tokens = [make_token(SECRET, "7", 1, 0, 12)]
    tokens += [make_token(SECRET, "3f9a1c2b7d", 1, 0, seen) for seen in (5, 200, 40_000)]
    assert {len(t) * 5 % 8 for t in tokens} - {0}, "no token with spare bits was tried"
    for token in tokens:
        for i in range(len(token)):
            for ch in BASE32:
                if token[i] == ch:
                    continue
                altered = token[:i] + ch + token[i + 1 :]
                with pytest.raises(BadToken):
                    verify(SECRET, altered, 0)


def test_a_record_too_long_for_the_local_part_is_refused_when_made() -> None:
    # 18 characters of game id and large numbers do not fit in 64 characters.
    with pytest.raises(ValueError, match="max 64"):
        reply_address(SECRET, "A" * 18, 9, 10_000, 10**7, domain="reply.example.org")


@pytest.mark.parametrize("junk", ["", "hello world", "0189", "a" * 70, "aaaaaaaa", "🙂"])
def test_junk_tokens_are_refused_with_bad_token(junk: str) -> None:
    with pytest.raises(BadToken):
        verify(SECRET, junk, 0)


def test_find_token_ignores_other_addresses_and_domains() -> None:
    addresses = ["alice@example.com", "play+abc@elsewhere.org", "Play+TOKEN@Reply.Example.Org"]
    assert find_token(addresses, domain="reply.example.org") == "token"
    assert find_token(["play@reply.example.org"], domain="reply.example.org") is None


def test_game_ids_that_cannot_fit_are_refused_when_made() -> None:
    with pytest.raises(ValueError):
        make_token(SECRET, "x" * 40, 1, 0)
    with pytest.raises(ValueError):
        make_token(b"short", "1", 1, 0)
