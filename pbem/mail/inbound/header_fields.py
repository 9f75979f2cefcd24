"""A mail's headers as cleaned lines of text, read without ever raising: one value
(``header_value``), every value (``header_values``), the headers of one message read once and
cheaply (``HeaderFields``), the addresses of a header (``addresses``) and the Message-IDs of a
References / In-Reply-To value (``message_ids``).

A header value of a plain shape (printable ASCII without an encoded word, a plain address or
Message-ID) is taken as the text the standard ``email`` package would decode it to, without its
header registry (``_plain_value``, checked against the package by
tests/mail/test_reading_headers.py).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Sequence
from email.headerregistry import HeaderRegistry
from email.message import Message
from email.utils import getaddresses
from typing import Any

from pbem.mail.outbound.headers import READ_POLICY, clean


def header_value(message: Message, name: str) -> str:
    """A header's decoded value as one cleaned line; '' when absent or undecodable."""
    try:
        value = message.get(name)
        return "" if value is None else clean(str(value), 2000)
    except Exception:  # a malformed header must not stop the reading of the mail
        return ""


def header_values(message: Message, name: str) -> list[str]:
    """Every value of a header, each as one cleaned line; [] when absent or unreadable."""
    try:
        values = message.get_all(name) or []
    except Exception:
        return []
    return _cleaned(values)


def _cleaned(values: Sequence[object]) -> list[str]:
    """Each header value as one cleaned line; a value that cannot be read is left out."""
    out = []
    for value in values:
        with contextlib.suppress(Exception):
            out.append(clean(str(value), 2000))
    return out


#: Header names whose values ``policy.default`` parses as unstructured text: all but those of
#: its registry (addresses, message ids, dates, MIME headers), and Subject.
_STRUCTURED = frozenset(HeaderRegistry().registry) - {"subject"}
#: Printable ASCII on one line, no encoded word: unstructured text that decodes to itself.
_PLAIN_TEXT = re.compile(r"[\x20-\x7e]*")
_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
#: ``<id-left@id-right>`` of dot-atoms: a Message-ID whose parse is its text.
_PLAIN_MSGID = re.compile(rf"<{_ATEXT}(?:\.{_ATEXT})*@{_ATEXT}(?:\.{_ATEXT})*>")
_PLAIN_ADDR = r"[A-Za-z0-9+_-]+(?:\.[A-Za-z0-9+_-]+)*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
#: ``addr``, ``<addr>`` or ``Name Words <addr>``: an address the email package writes back as
#: ``addr`` or ``Name Words <addr>``.
_PLAIN_ADDRESS = re.compile(
    rf"(?P<bare>{_PLAIN_ADDR})|<(?P<angle>{_PLAIN_ADDR})>"
    rf"|[A-Za-z0-9]+(?: [A-Za-z0-9]+)* <{_PLAIN_ADDR}>"
)


def _plain_value(name: str, value: str) -> str | None:
    """``str(READ_POLICY.header_fetch_parse(name, value))`` for a raw value of a shape whose
    parse is known without parsing (plain text, a plain Message-ID or address: the text
    itself, or for ``<addr>`` the address); None for any other, which the email package
    reads. Checked against the email package by tests/mail/test_reading_headers.py."""
    if type(value) is not str:
        return None
    key = name.lower()
    if key not in _STRUCTURED:
        return value if _PLAIN_TEXT.fullmatch(value) and "=?" not in value else None
    if key == "message-id":
        return value if _PLAIN_MSGID.fullmatch(value) else None
    if key in ("from", "to", "cc"):
        found = _PLAIN_ADDRESS.fullmatch(value)
        if found is None:
            return None
        return found["bare"] or found["angle"] or value
    return None


class HeaderFields:
    """The headers of one message, read as :func:`header_value` and :func:`header_values` read them
    (the same values, the same errors) but cheaper: the names it has are listed once, so a
    name it lacks (most of those ``classification.classify`` asks for) costs no scan of its headers,
    and a value of a plain shape (``_plain_value``) is taken as it is instead of through the
    header registry (the reply address, the Message-ID and In-Reply-To differ in every reply,
    so READ_POLICY seldom remembers their parse)."""

    def __init__(self, message: Message) -> None:
        self.message = message
        self.fast = message.policy is READ_POLICY
        self.raw: dict[str, list[tuple[str, str]]] | None = {}
        try:
            # The raw (name, value) pairs, as Message.get and get_all see them.
            for key, value in message.raw_items():
                self.raw.setdefault(key.lower(), []).append((key, value))
        except Exception:  # unknown: read each name through the message
            self.raw = None

    def _values(self, name: str, first: bool) -> list[Any]:
        """What ``message.get_all(name) or []`` returns (only the first with ``first``)."""
        if self.raw is None or not self.fast:
            if first:
                value = self.message.get(name)
                return [] if value is None else [value]
            return self.message.get_all(name) or []
        pairs = self.raw.get(name.lower(), [])
        out = []
        for key, value in pairs[:1] if first else pairs:
            plain = _plain_value(key, value)
            out.append(READ_POLICY.header_fetch_parse(key, value) if plain is None else plain)
        return out

    def one(self, name: str) -> str:
        """``header_value(message, name)``."""
        try:
            values = self._values(name, first=True)
            return clean(str(values[0]), 2000) if values else ""
        except Exception:  # a malformed header must not stop the reading of the mail
            return ""

    def all(self, name: str) -> list[str]:
        """``header_values(message, name)``."""
        try:
            values = self._values(name, first=False)
        except Exception:
            return []
        return _cleaned(values)


#: ``addresses`` of the last header values read (at most 4096): a player's From is the same
#: in each of their replies.
_ADDRESSES: dict[tuple[str, ...], tuple[tuple[str, str], ...]] = {}


def addresses(values: Iterable[str]) -> list[tuple[str, str]]:
    """The (display name, address) pairs of header values, each address lowercased; a
    value that holds no plain address gives none."""
    key = tuple(values)
    if not key:
        return []
    found = _ADDRESSES.get(key)
    if found is None:
        pairs = []
        for name, address in getaddresses(list(key)):
            address = address.strip().lower()
            if "@" in address and " " not in address:
                pairs.append((clean(name, 64), address))
        found = tuple(pairs)
        if len(_ADDRESSES) >= 4096:
            _ADDRESSES.clear()  # bounded; the common senders come back at once
        _ADDRESSES[key] = found
    return list(found)


_MSGID = re.compile(r"<([^<>\s]{1,250})>")


def message_ids(value: str) -> tuple[str, ...]:
    """The bare ids in a References / In-Reply-To value, in order."""
    return tuple(m.group(1) for m in _MSGID.finditer(value))
