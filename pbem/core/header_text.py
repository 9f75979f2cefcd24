"""Text safe in a mail header: one line without control, zero-width or bidi-override
characters (``clean``), and a plain e-mail address (``clean_address``).

Standard library only and apart from the mail package, so that the settings check the
addresses they hold with the very check the outgoing headers make (``pbem.app.config``,
``pbem.mail.outbound.headers``) without loading the mail code.
"""

from __future__ import annotations

import re

#: Controls (C0, DEL, C1), zero-width and bidi-override characters, line/paragraph separators.
UNSAFE = re.compile(
    "[\x00-\x1f\x7f\x80-\x9f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)
#: The caps: RFC 5322 recommends lines of at most 78 characters; a subject may fold, but an
#: address never needs more than this.
SUBJECT_MAX = 200
ADDRESS_MAX = 254  # RFC 5321 path limit
LOCAL_PART_MAX = 64  # RFC 5321 4.5.3.1.1

_ADDRESS = re.compile(r"^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@[A-Za-z0-9.-]+$")


def clean(value: str, limit: int = SUBJECT_MAX) -> str:
    """One line of text that is safe in any header: unsafe characters become spaces, runs of
    whitespace collapse, and the result is cut to ``limit`` characters (with an ellipsis)."""
    # type(), not isinstance(): parsed header objects are str subclasses, and refusing them
    # keeps any incoming header object out of our mails (see pbem.mail.outbound.headers).
    if type(value) is not str:
        raise TypeError(f"header text must be a plain str, not {type(value).__name__}")
    text = " ".join(UNSAFE.sub(" ", value).split())
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text


def clean_address(address: str) -> str:
    """An addr-spec (``local@domain``) we are willing to put in a header or an SMTP envelope;
    raises ValueError with the reason otherwise. Quoted local parts and IP literals are
    refused on purpose: players' and our own addresses never need them."""
    if type(address) is not str:
        raise TypeError(f"an address must be a str, not {type(address).__name__}")
    if UNSAFE.search(address) or not _ADDRESS.match(address):
        raise ValueError(f"{clean(address, 80)!r} is not a plain e-mail address (name@domain)")
    local, _, domain = address.rpartition("@")
    if len(address) > ADDRESS_MAX or len(local) > LOCAL_PART_MAX:
        raise ValueError(f"{clean(address, 80)!r} is too long for an e-mail address")
    if domain.startswith(".") or domain.endswith(".") or ".." in domain or ".." in local:
        raise ValueError(f"{clean(address, 80)!r} has an empty part in its name")
    return address
