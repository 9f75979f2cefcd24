"""Turning a player's action into its ``ActionApplied`` event, the moves the service plays for
resigned seats, and the check of the players named at creation."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from engine.core import Rules, action_to_json
from pbem.core import events as ev
from pbem.core.errors import BadRequest
from pbem.create.player_names import check_player_name
from pbem.mail.outbound.headers import check_display_name, clean_address

MAX_NAME = 200


def check_players(
    players: Sequence[Mapping[str, Any]], rules: Rules, *, open_seats: int = 0
) -> list[dict[str, Any]]:
    """The named players, checked; ``open_seats`` more seats are left for players to join
    (the count of both together must be one the rules are played by)."""
    total = len(players) + open_seats
    if total not in rules.player_counts:
        counts = ", ".join(map(str, rules.player_counts))
        raise BadRequest(f"{rules.name} is played by {counts} players, not {total}.")
    return [
        checked_player(p.get("name"), p.get("email"), f"Player {i + 1}")
        for i, p in enumerate(players)
    ]


def checked_player(name: Any, email: Any, who: str) -> dict[str, Any]:
    """A player's name and address, checked (BadRequest saying what is wrong with ``who``'s):
    the name printable and not read as a link, the address one the mail layer can write."""
    name = str(name or "").strip()
    email = email or None
    if not name or len(name) > MAX_NAME or any(ord(c) < 32 or c in "\u2028\u2029" for c in name):
        raise BadRequest(f"{who} needs a name of 1 to {MAX_NAME} printable characters.")
    try:
        check_display_name(name)
        check_player_name(name)
    except ValueError as e:
        raise BadRequest(f"{who}'s name {e}.") from None
    if email is not None:
        email = str(email).strip()
        try:
            # The check the mail layer makes before it writes the address in a header:
            # an address accepted here must never make a notification fail later.
            clean_address(email)
        except ValueError as e:
            raise BadRequest(f"{who}'s email is not an address: {e}.") from None
    return {"name": name, "email": email}


def seats_text(seats: frozenset[int]) -> str:
    return ", ".join(f"seat {s}" for s in sorted(seats)) or "no one"


def action_event(
    rules: Rules,
    state: Any,
    seat: int,
    action: Any,
    text: str,
    channel: str,
    channel_ref: str | None,
    received: str,
) -> tuple[ev.ActionApplied, Any]:
    secret = rules.is_secret(state, seat, action)
    transition = rules.apply(state, seat, action)
    canonical = rules.format_action(state, action)
    stored_action = action_to_json(action)
    # Salt, so that the commitment of a secret action cannot be used to guess it.
    salt = secrets.token_hex(16) if secret else None
    event = ev.ActionApplied(
        seat=seat,
        text=text,
        canonical=canonical,
        action=stored_action,
        channel=channel,
        channel_ref=channel_ref,
        received_at=received,
        irreversible=transition.irreversible,
        secret=secret,
        log=tuple(transition.log),
        nonce=salt,
        # The chain holds this in place of the vote: a seat's export can leave the vote out
        # until it is revealed, and its author can show afterwards that it was not changed.
        commitment=None
        if salt is None
        else ev.secret_commitment(salt, stored_action, canonical, text),
    )
    return event, transition.state


def auto_moves(
    rules: Rules, state: Any, resigned: set[int], received: str
) -> tuple[list[ev.ActionApplied], Any]:
    """Turns of resigned seats, played with the engine's default action (decision: a
    resigned seat stays in the game as an automaton so the others can finish it)."""
    out: list[ev.ActionApplied] = []
    for _ in range(100_000):
        due = sorted(rules.to_act(state) & resigned)
        if not due:
            break
        action = rules.auto_action(state, due[0])
        event, state = action_event(
            rules, state, due[0], action, "(resigned: played automatically)", "auto", None, received
        )
        out.append(event)
    return out, state
