"""What an incoming mail is, and why: a reply (the only kind ever acted on or answered), an
auto-reply, a bounce (with what its delivery report says), mailing-list mail, or one of our own
mails come back. Read from the headers and, for a bounce, every part of the report."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from email.message import Message
from enum import StrEnum

from pbem.mail.inbound.body import decode_part
from pbem.mail.inbound.header_fields import HeaderFields, addresses, header_value, header_values


class Kind(StrEnum):
    """What an incoming message is; only ``REPLY`` is ever acted on or answered."""

    REPLY = "reply"
    AUTO_REPLY = "auto_reply"
    BOUNCE = "bounce"
    LIST = "list"
    OWN = "own"


@dataclass(frozen=True)
class Bounce:
    """What a delivery report says: ``failed`` is false for a mere delay warning."""

    failed: bool
    recipients: tuple[str, ...]
    #: Message-IDs (bare, without brackets) of our mails the report is about.
    original_ids: tuple[str, ...]


_AUTO_SUBJECT = re.compile(
    r"^\s*(?:auto(?:matic)?[ _-]?(?:reply|response|antwort)|auto:|autoreply|"
    r"automatische antwort|out of (?:the )?office|ooo\b|on vacation|vacation|abwesend|"
    r"abwesenheit|réponse automatique|absence|respuesta automática|fuera de la oficina|"
    r"risposta automatica|automatisch antwoord|afwezig|frånvaro)",
    re.IGNORECASE,
)
_BOUNCE_SENDERS = frozenset({"mailer-daemon", "postmaster", "mail-daemon", "mailerdaemon"})
_FINAL_RECIPIENT = re.compile(
    r"^(?:final|original)-recipient:\s*[^;]*;\s*<?([^\s>]+)>?", re.I | re.M
)
_ORIGINAL_ID = re.compile(r"^(?:original-)?message-id:\s*<([^<>\s]+)>", re.I | re.M)
_ACTION = re.compile(r"^action:\s*(\w+)", re.I | re.M)


def _report_type(message: Message) -> str:
    with contextlib.suppress(Exception):
        if message.get_content_type() == "multipart/report":
            return str(message.get_param("report-type") or "").lower()
    return ""


def bounce_details(message: Message, own_domains: Sequence[str]) -> Bounce:
    """Failed recipients and our original Message-IDs, read from every part of a report."""
    texts = []
    for part in message.walk():
        with contextlib.suppress(Exception):
            ctype = part.get_content_type()
            if ctype == "message/delivery-status":
                # policy.default parses the status blocks into sub-messages.
                payload = part.get_payload()
                if isinstance(payload, list):
                    texts.append("\n".join(str(p) for p in payload))
                else:
                    texts.append(str(payload))
            elif ctype == "message/rfc822":
                inner = part.get_payload()
                if isinstance(inner, list) and inner and isinstance(inner[0], Message):
                    texts.append("Message-ID: " + header_value(inner[0], "Message-ID"))
            elif part.get_content_maintype() == "text":
                texts.append(decode_part(part))
    blob = "\n".join(texts)
    recipients = [m.group(1).lower() for m in _FINAL_RECIPIENT.finditer(blob)]
    recipients += [
        a
        for _, a in addresses(header_values(message, "X-Failed-Recipients"))
        if a not in recipients
    ]
    actions = {m.group(1).lower() for m in _ACTION.finditer(blob)}
    # A report whose every action is "delayed" (or relayed/delivered) is only a warning.
    failed = not actions or "failed" in actions
    ids = []
    for found in _ORIGINAL_ID.findall(blob):
        if any(found.lower().endswith("@" + d.lower()) for d in own_domains) and found not in ids:
            ids.append(found)
    return Bounce(
        failed=failed, recipients=tuple(dict.fromkeys(recipients)), original_ids=tuple(ids)
    )


def classify(
    message: Message,
    sender: str,
    message_id: str | None,
    own_domains: Sequence[str],
    fields: HeaderFields | None = None,
) -> tuple[Kind, str]:
    """What kind of mail this is, and why (for the inbound log). ``fields``: the message's
    headers, when the caller has them already."""
    fields = fields or HeaderFields(message)
    header = fields.one
    own = tuple(d.lower() for d in own_domains)
    if message_id and any(message_id.lower().endswith("@" + d) for d in own):
        return Kind.OWN, "its Message-ID is one of ours"
    if header("X-Pbem-Mail"):
        return Kind.OWN, "it carries our X-Pbem-Mail header"
    report = _report_type(message)
    local = sender.partition("@")[0]
    if report == "delivery-status":
        return Kind.BOUNCE, "a delivery status notification (multipart/report)"
    if header("X-Failed-Recipients"):
        return Kind.BOUNCE, "it names failed recipients"
    if local in _BOUNCE_SENDERS:
        return Kind.BOUNCE, f"it comes from {local}"
    auto = header("Auto-Submitted").lower().split(";")[0].strip()
    if auto and auto != "no":
        return Kind.AUTO_REPLY, f"Auto-Submitted: {auto}"
    for name in ("X-Autoreply", "X-Autorespond", "X-Auto-Reply", "X-Autogenerated"):
        if header(name):
            return Kind.AUTO_REPLY, f"it carries {name}"
    if report:
        return Kind.AUTO_REPLY, f"a {report} report"
    precedence = header("Precedence").lower()
    if precedence in ("bulk", "junk", "auto_reply"):
        return Kind.AUTO_REPLY, f"Precedence: {precedence}"
    if precedence == "list" or any(header(n) for n in ("List-Id", "List-Post", "Mailing-List")):
        return Kind.LIST, "mailing-list mail"
    if _AUTO_SUBJECT.match(header("Subject")):
        return Kind.AUTO_REPLY, "an auto-reply subject"
    return_paths = fields.all("Return-Path")
    if return_paths and all(rp.strip() in ("<>", "") for rp in return_paths):
        return Kind.BOUNCE, "an empty Return-Path (a bounce or another automatic message)"
    return Kind.REPLY, "a reply"
