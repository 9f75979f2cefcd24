"""What a player chose for themselves, per e-mail address (one person across games): for now
their time zone, in which every deadline they are shown is also given, and whether they
want one daily digest instead of a mail at each of their turns (``pbem.clock.digest``).

``player_preferences`` is a plain table like the outbox, written by the player's own mail
command (``time zone Europe/Paris``, ``digest daily``): it is not a projection of any game's
log, so a rebuild neither reads nor rewrites it, and no game's chain records it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo, available_timezones

from sqlmodel import Field, Session, SQLModel

from pbem.core.db import Database
from pbem.core.errors import BadRequest
from pbem.core.time_source import Clock, format_time

#: What a refusal suggests.
EXAMPLE = "time zone Europe/Paris"
#: Words that reset to UTC only (the zone every deadline is shown in anyway).
_UTC = {"utc", "gmt", "z", "etc/utc", "none"}


class PlayerPreference(SQLModel, table=True):
    """One address's choices (its ``address_key``: lower-cased, so case does not make
    another person). Not a projection: written only by the player's own command."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "player_preferences"

    address: str = Field(primary_key=True, max_length=320)
    #: an IANA zone (``Europe/Paris``); None: UTC only
    time_zone: str | None = Field(default=None, max_length=64)
    #: one daily digest of the games waiting for this address instead of its turn mails
    digest: bool = False
    updated_at: str = Field(max_length=32)


class DigestSent(SQLModel, table=True):
    """A daily digest mailed (or claimed by the run that mails it), written in the same
    transaction as its outbox mail: the key makes it go once per address and UTC day,
    however many runs there are."""

    model_config = {"defer_build": True}  # built on first use: pbem.core.models

    __tablename__ = "digests_sent"

    address: str = Field(primary_key=True, max_length=320)
    #: the UTC day, ``2026-11-23``
    day: str = Field(primary_key=True, max_length=10)
    sent_at: str = Field(max_length=32)


def address_key(address: str) -> str:
    """The address as one person: case does not make another person."""
    return address.strip().lower()


@lru_cache(maxsize=1)
def _zones() -> dict[str, str]:
    # Keyed lower-case so "europe/paris" is understood; read once (it lists files).
    return {name.lower(): name for name in available_timezones()}


def parse_zone(text: str) -> str | None:
    """An IANA zone name as the player wrote it, checked with zoneinfo: its canonical
    spelling, or None for UTC (a reset). BadRequest, with an example, when unknown."""
    word = " ".join(text.split())
    if not word:
        raise BadRequest(f"Write the zone after 'time zone', e.g. '{EXAMPLE}'.")
    if word.lower() in _UTC:
        return None
    name = _zones().get(word.lower())
    if name is None:
        raise BadRequest(
            f"'{word[:64]}' is not a time zone I know. Write its IANA name, e.g. "
            f"'{EXAMPLE}' or 'time zone America/New_York' ('time zone UTC' for UTC only)."
        )
    ZoneInfo(name)  # every listed name loads; a broken tzdata fails here, not later
    return name


def zone_of(session: Session, address: str | None) -> str | None:
    """The zone ``address`` chose (None: none, or no address)."""
    if not address:
        return None
    row = session.get(PlayerPreference, address_key(address))
    return None if row is None else row.time_zone


def local_text(when: datetime, zone: str) -> str:
    """``15:00 Europe/Paris``, with the local day when it is not the UTC day
    (``Wed 25 Nov 01:00 Pacific/Auckland``)."""
    utc = when.astimezone(UTC)
    local = utc.astimezone(ZoneInfo(zone))
    text = local.strftime("%H:%M")
    if local.second:
        text += local.strftime(":%S")
    if local.date() != utc.date():
        text = local.strftime("%a %d %b ") + text
    return f"{text} {zone}"


class Preferences:
    """The players' preferences, each write in a transaction of its own."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self.db = db
        self.clock = clock

    def set_time_zone(self, address: str, text: str) -> str | None:
        """Set (or, with ``UTC``, clear) the zone of ``address``; nothing is stored when
        ``text`` is not a zone (BadRequest). Returns the zone stored."""
        zone = parse_zone(text)
        self._update(address, "remember a time zone for", time_zone=zone)
        return zone

    def set_digest(self, address: str, on: bool) -> None:
        """Turn the daily digest of ``address`` on or off."""
        self._update(address, "send a digest to", digest=on)

    def _update(self, address: str, purpose: str, **choices: Any) -> None:
        """Store ``choices`` for ``address`` (its row made on its first choice)."""
        key = address_key(address)
        if not key:
            raise BadRequest(f"This mail has no address to {purpose}.")
        with self.db.write() as session:
            row = session.get(PlayerPreference, key)
            if row is None:
                row = PlayerPreference(address=key, updated_at="")
            for name, value in choices.items():
                setattr(row, name, value)
            row.updated_at = format_time(self.clock.now())
            session.add(row)

    def time_zone(self, address: str) -> str | None:
        with self.db.read() as session:
            return zone_of(session, address)
