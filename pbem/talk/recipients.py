"""Whom a message is for, as a person names them: by the player's name ("Bob"), by the
seat's colour ("Blue"), or both as the mails write them ("Bob (Blue)"), in any case;
several joined by commas or "and" ("to Bob and Cy: …", "to Bob, Cy and Dee: …");
"everyone" or "all" for the whole table. A name that fits no seat, or more than one, is
refused with the names that may be used."""

from __future__ import annotations

import re
from collections.abc import Sequence

from pbem.core.errors import BadRequest
from pbem.core.naming import Names

#: The words that name the whole table.
EVERYONE = frozenset({"everyone", "everybody", "all", "all of you", "the table"})

_JOINS = re.compile(r"\s*(?:,|\band\b|&|\+)\s*", re.IGNORECASE)


def _key(text: str) -> str:
    return " ".join(text.split()).casefold()


def _forms(names: Names, seat: int) -> set[str]:
    forms = {_key(names.people[seat]), _key(names.of(seat))}
    label = names.label(seat)
    if label:
        forms.add(_key(label))
    return forms


def seats_named(names: Names, sender: int, said: str) -> tuple[int, ...]:
    """The seats ``said`` names ("Bob and Cy"), sorted; () for the whole table. The sender
    may not write to itself alone; naming itself among others is passed over."""
    seats = range(len(names.people))
    if _key(said) in EVERYONE:
        called = [s for s in seats if s != sender and _key(said) in _forms(names, s)]
        if called:
            # A player called "All": guessing the table would publish a private message.
            raise BadRequest(
                f"'{said.strip()[:40]}' names both the whole table and "
                f"{names.of(called[0])}: write 'say …' for everyone; to the player alone, "
                "name their colour, or choose them on your seat page."
            )
        return ()
    whole = [s for s in seats if _key(said) in _forms(names, s)]
    # A whole name first: a player may be called "Bob and Cy".
    parts = [said] if len(whole) == 1 else [p for p in _JOINS.split(said) if p.strip()]
    found: set[int] = set()
    for part in parts:
        matching = [s for s in seats if _key(part) in _forms(names, s)]
        if len(matching) != 1:
            why = "fits no seat" if not matching else "fits more than one seat"
            raise BadRequest(
                f"'{part.strip()[:40]}' {why} of this game. Write to "
                f"{choices_text(names, sender)}, or 'everyone'."
            )
        found.add(matching[0])
    found.discard(sender)
    if not found:
        raise BadRequest(
            "Name at least one other player to write to: " + choices_text(names, sender) + "."
        )
    return tuple(sorted(found))


def choices_text(names: Names, sender: int) -> str:
    """The other players as they may be named: "Bob (Blue), Cy (Yellow)"."""
    return ", ".join(names.of(s) for s in range(len(names.people)) if s != sender)


def check_seats(count: int, sender: int, seats: Sequence[int]) -> tuple[int, ...]:
    """Seat numbers (the page's and the API's choice) checked: each a seat of the game, the
    sender passed over; BadRequest when none is left."""
    bad = [s for s in seats if not 0 <= s < count]
    if bad:
        raise BadRequest(f"There is no seat {bad[0]} in this game (seats 0 to {count - 1}).")
    found = tuple(sorted(set(seats) - {sender}))
    if seats and not found:
        raise BadRequest("Choose at least one other player to write to, or everyone.")
    return found
