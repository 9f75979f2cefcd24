"""Reading an incoming mail: decode it, classify it, and find the commands in a reply, as one
:class:`Incoming`.

Its parts each have a module: the headers (``header_fields``), the text of the body (``body``),
what kind of mail it is (``classification``), and the part of a reply its author wrote
(``quotes``, with the greetings and closings of ``courtesy``). Decoding uses the standard
``email`` package with ``policy.default`` (any charset, base64 or quoted-printable). Each
remaining non-empty line of the reply is a command.

Nothing here raises on malformed input: every message, however broken, gives an
:class:`Incoming`.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from email import message_from_bytes, message_from_string
from email.message import Message
from email.utils import parseaddr

from pbem.mail.inbound.body import body_text
from pbem.mail.inbound.classification import Bounce, Kind, bounce_details, classify
from pbem.mail.inbound.header_fields import HeaderFields, addresses, message_ids
from pbem.mail.inbound.quotes import strip_reply
from pbem.mail.outbound.headers import READ_POLICY

#: At most this many command lines are read from one reply, each cut to this length: room
#: for a table-talk line (``to Bob and Cy: `` and a message of up to 1,000 characters,
#: ``pbem.talk.limits``), so that a line cut here holds a message too long to be sent, or
#: names no seat, and is refused rather than sent cut short.
MAX_COMMANDS = 30
MAX_LINE = 2000


@dataclass(frozen=True)
class Incoming:
    """An incoming message as the inbound pipeline needs it; every string is cleaned."""

    key: str
    message_id: str | None
    sender: str
    sender_name: str
    recipients: tuple[str, ...]
    in_reply_to: tuple[str, ...]
    references: tuple[str, ...]
    subject: str
    kind: Kind
    reason: str
    text: str
    commands: tuple[str, ...]
    bounce: Bounce | None = None
    defects: tuple[str, ...] = field(default_factory=tuple)


_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def command_lines(text: str) -> tuple[str, ...]:
    """Each non-empty line of the stripped reply, trimmed; at most MAX_COMMANDS. Control
    characters (NUL and friends) become spaces: no game notation uses them."""
    text = _CONTROLS.sub(" ", text)
    lines = [" ".join(line.split())[:MAX_LINE] for line in text.split("\n")]
    return tuple(line for line in lines if line)[:MAX_COMMANDS]


def read_message(raw: bytes, own_domains: Sequence[str] = ()) -> Incoming:
    """Read one raw RFC 822 message; never raises."""
    try:
        message: Message = message_from_bytes(raw, policy=READ_POLICY)
    except Exception:  # the parser is lenient; this guards against the unknown
        message = message_from_string("", policy=READ_POLICY)
    fields = HeaderFields(message)
    ids = message_ids(fields.one("Message-ID"))
    message_id = ids[0] if ids else None
    from_pairs = addresses(fields.all("From"))
    sender_name, sender = from_pairs[0] if from_pairs else ("", "")
    if not sender:
        # A From: the stricter parser rejects may still hold a plain address.
        _, loose = parseaddr(fields.one("From"))
        sender = loose.lower() if "@" in loose and " " not in loose else ""
    recipients: list[str] = []
    for name in ("Delivered-To", "X-Original-To", "Envelope-To", "X-Envelope-To", "To", "Cc"):
        for _, address in addresses(fields.all(name)):
            if address not in recipients:
                recipients.append(address)
    kind, reason = classify(message, sender, message_id, own_domains, fields)
    bounce = bounce_details(message, own_domains) if kind is Kind.BOUNCE else None
    text = ""
    commands: tuple[str, ...] = ()
    if kind is Kind.REPLY:
        try:
            text = strip_reply(body_text(message), sender_name, sender)
        except Exception:  # keep "one outcome per message": an unreadable body has no commands
            text = ""
        commands = command_lines(text)
    defects = []
    with contextlib.suppress(Exception):
        defects = [type(d).__name__ for d in message.defects][:10]
    return Incoming(
        key=message_id if message_id else "sha256:" + hashlib.sha256(raw).hexdigest(),
        message_id=message_id,
        sender=sender,
        sender_name=sender_name,
        recipients=tuple(recipients),
        in_reply_to=message_ids(fields.one("In-Reply-To")),
        references=message_ids(fields.one("References")),
        subject=fields.one("Subject")[:200],
        kind=kind,
        reason=reason,
        text=text,
        commands=commands,
        bounce=bounce,
        defects=tuple(defects),
    )
