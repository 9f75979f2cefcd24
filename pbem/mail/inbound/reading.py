"""Reading an incoming mail: decode it, classify it, and find the commands in a reply.

Decoding uses the standard ``email`` package with ``policy.default`` (any charset, base64 or
quoted-printable); a header value of a plain shape (printable ASCII without an encoded word, a
plain address or Message-ID) is taken as the text the package would decode it to, without its
header registry (``_plain_value``, checked against the package by
tests/mail/test_reading_headers.py). The text part is preferred; an HTML-only mail is turned
into text with quoted blocks kept as ``>`` lines. Quotes, attributions and signatures are
removed in four steps, each for the cases the previous one misses (measured on
``tests/mail/corpus``):

1. lines quoted with ``>`` are dropped wherever they stand (bottom posting, interleaving:
   mail-parser-reply only ever keeps the first fragment, which for a bottom-posted reply is
   the attribution and the quote, not the answer);
2. everything from our own "type your move above this line" marker on is dropped (clients
   that quote without ``>``, such as Outlook);
3. greeting lines at the top are dropped (``courtesy.py``);
4. mail-parser-reply cuts at the first "On … wrote:", Outlook ``From:/Sent:`` block or
   "-----Original Message-----" and removes the signatures it knows (``-- ``, "Sent from my
   iPhone", "Best regards", …); a short list of our own adds the mobile and webmail
   signatures it misses ("Sent from Mail for Windows", "Sent with Proton Mail", …), and a
   closing ("Cheers, Ann") ends the reply (``courtesy.py``).

Each remaining non-empty line is a command.

Nothing here raises on malformed input: every message, however broken, gives an
:class:`Incoming`.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from email import message_from_bytes, message_from_string
from email.headerregistry import HeaderRegistry
from email.message import EmailMessage, Message
from email.utils import getaddresses, parseaddr
from enum import StrEnum
from html.parser import HTMLParser
from typing import Any

from mailparser_reply import EmailReplyParser
from mailparser_reply.parser import EmailMessage as _LibraryMessage

from pbem.mail.inbound.courtesy import drop_opening, is_closing, is_own_name, name_words
from pbem.mail.outbound.headers import READ_POLICY, clean

#: The line our mails start with; a reply is cut where its quoted copy begins.
REPLY_MARKER = "## Type your reply above this line ##"

#: mail-parser-reply languages tried on every reply (players write in any of them).
# Danish, Swedish and Polish are left out on purpose: their patterns treat lines starting with
# "Kh", "Tak", "/word" or a single "Do:" as signatures or headers, which could eat a command.
LANGUAGES = ("en", "de", "fr", "es", "it", "nl")

#: At most this many command lines are read from one reply, each cut to this length.
MAX_COMMANDS = 30
MAX_LINE = 200


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


# -- decoding -----------------------------------------------------------------------------


def _header(message: Message, name: str) -> str:
    """A header's decoded value as one cleaned line; '' when absent or undecodable."""
    try:
        value = message.get(name)
        return "" if value is None else clean(str(value), 2000)
    except Exception:  # a malformed header must not stop the reading of the mail
        return ""


def _headers(message: Message, name: str) -> list[str]:
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


class _Fields:
    """The headers of one message, read as :func:`_header` and :func:`_headers` read them
    (the same values, the same errors) but cheaper: the names it has are listed once, so a
    name it lacks (most of those :func:`classify` asks for) costs no scan of its headers,
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
        """``_header(message, name)``."""
        try:
            values = self._values(name, first=True)
            return clean(str(values[0]), 2000) if values else ""
        except Exception:  # a malformed header must not stop the reading of the mail
            return ""

    def all(self, name: str) -> list[str]:
        """``_headers(message, name)``."""
        try:
            values = self._values(name, first=False)
        except Exception:
            return []
        return _cleaned(values)


#: ``_addresses`` of the last header values read (at most 4096): a player's From is the same
#: in each of their replies.
_ADDRESSES: dict[tuple[str, ...], tuple[tuple[str, str], ...]] = {}


def _addresses(values: Iterable[str]) -> list[tuple[str, str]]:
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


def _decode_part(part: Message) -> str:
    """A text part's content as str, whatever its charset or transfer encoding."""
    try:
        content = part.get_content()  # type: ignore[attr-defined]
        if isinstance(content, str):
            return content
    except Exception:  # unknown charset or broken encoding: decode by hand below
        pass
    try:
        payload = part.get_payload(decode=True)
    except Exception:
        payload = None
    if not isinstance(payload, bytes):
        raw = part.get_payload()
        return raw if isinstance(raw, str) else ""
    charset = "utf-8"
    with contextlib.suppress(Exception):
        charset = part.get_content_charset() or "utf-8"
    for candidate in (charset, "utf-8"):
        try:
            return payload.decode(candidate)
        except (LookupError, UnicodeDecodeError):
            continue
    return payload.decode("latin-1")


def _unflow(text: str, delsp: bool) -> str:
    """RFC 3676 format=flowed: a line ending in a space continues on the next line."""
    out: list[str] = []
    pending = ""
    for line in text.split("\n"):
        if line.endswith(" ") and line != "-- " and not line.startswith(">"):
            pending += line[:-1] if delsp else line
            continue
        out.append(pending + line)
        pending = ""
    if pending:
        out.append(pending)
    return "\n".join(out)


class _HtmlText(HTMLParser):
    """HTML to plain text: blocks become lines, blockquotes become ``>`` lines."""

    BLOCKS = frozenset(
        {
            *("address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt"),
            *("footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li"),
            *("main", "nav", "ol", "p", "pre", "section", "table", "tbody", "td", "tfoot"),
            *("th", "thead", "tr", "ul"),
        }
    )
    SKIP = frozenset({"head", "script", "style", "title", "template"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.current: list[str] = []
        self.depth = 0
        self.skipping = 0
        self.pre = 0

    def _break(self) -> None:
        line = "".join(self.current)
        if not self.pre:
            line = " ".join(line.split())
        self.lines.append("> " * self.depth + line if line else ("> " * self.depth).rstrip())
        self.current = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIP:
            self.skipping += 1
        elif tag in self.BLOCKS:
            self._break()
            if tag == "blockquote":
                self.depth += 1
            elif tag == "pre":
                self.pre += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self.skipping = max(0, self.skipping - 1)
        elif tag in self.BLOCKS:
            self._break()
            if tag == "blockquote":
                self.depth = max(0, self.depth - 1)
            elif tag == "pre":
                self.pre = max(0, self.pre - 1)

    def handle_data(self, data: str) -> None:
        if self.skipping:
            return
        if self.pre:
            parts = data.split("\n")
            for part in parts[:-1]:
                self.current.append(part)
                self._break()
            self.current.append(parts[-1])
        else:
            self.current.append(data)

    def text(self) -> str:
        self._break()
        return "\n".join(self.lines)


def html_to_text(html: str) -> str:
    parser = _HtmlText()
    try:
        parser.feed(html)
        parser.close()
    except Exception:  # HTMLParser is lenient; this is only a last guard
        pass
    return parser.text()


def body_text(message: Message) -> str:
    """The text a person wrote: the text/plain part, else the HTML part as text."""
    part: Message | None = None
    try:
        if isinstance(message, EmailMessage):
            part = message.get_body(preferencelist=("plain", "html"))
    except Exception:
        part = None
    if part is None:
        # No proper body (e.g. a bare text/plain with a broken MIME structure): use the first
        # text part found.
        try:
            part = next(
                (p for p in message.walk() if p.get_content_maintype() == "text"),
                None,
            )
        except Exception:
            part = None
    if part is None:
        return ""
    text = _decode_part(part).replace("\r\n", "\n").replace("\r", "\n")
    subtype = ""
    with contextlib.suppress(Exception):
        subtype = part.get_content_subtype()
    if subtype == "html":
        return html_to_text(text)
    params: dict[str, Any] = {}
    with contextlib.suppress(Exception):
        params = {k.lower(): (v or "").lower() for k, v in part.get_params() or []}
    if params.get("format") == "flowed":
        text = _unflow(text, params.get("delsp") == "yes")
    return text


# -- stripping quotes and signatures -------------------------------------------------------

_INVISIBLE = re.compile("[\u200b-\u200f\u2060-\u2064\ufeff\u00ad]")
_QUOTED = re.compile(r"^\s*>")
#: Signatures mail-parser-reply 1.36 does not know (measured on the corpus).
_MORE_SIGNATURES = re.compile(
    r"^\s*(?:"
    r"sent from (?:mail|outlook|yahoo|my|samsung|gmail|proton)\b|sent with proton|"
    r"sent via |get outlook for|von meinem .* gesendet|envoyé de mon|envoyé depuis|"
    r"enviado desde mi|inviato da|verzonden vanaf|skickat från|"
    r"-- ?$|__+$"
    r")",
    re.IGNORECASE,
)

_PARSER = EmailReplyParser(languages=list(LANGUAGES))
#: The library's three regular expressions for these languages, built once: it builds them
#: anew for every text it reads (a new ``EmailMessage`` each time), which costs more than
#: reading a short reply. Passed back to each ``EmailMessage`` through its own fields for
#: them; tests/mail/test_reading_headers.py checks the result is ``_PARSER.read``'s.
_PATTERNS = _LibraryMessage(text="", languages=_PARSER.languages)
_COMPILED: dict[str, Any] = {
    "_header_regex": _PATTERNS.HEADER_REGEX,
    "_disclaimers_regex": _PATTERNS.DISCLAIMERS_REGEX,
    "_signature_regex": _PATTERNS.SIGNATURE_REGEX,
}
# Fails here, at import, if the library no longer takes them (not as a reply read unparsed).
_LibraryMessage(text="", languages=_PARSER.languages, **_COMPILED)


def _library_body(text: str) -> str:
    """``_PARSER.read(text)``'s first reply body, or ``text`` when it finds none."""
    replies = _LibraryMessage(text=text, languages=_PARSER.languages, **_COMPILED).read().replies
    return replies[0].body if replies else text


_MARKER = REPLY_MARKER.lower()


def strip_reply(text: str, sender_name: str = "", sender: str = "") -> str:
    """The part of a reply its author wrote: no quotes, attributions, greetings, closings or
    signatures. ``sender_name`` (the From display name) and ``sender`` (the address) give
    the names a closing may end with, or a signature may be."""
    text = _INVISIBLE.sub("", text.replace("\u00a0", " "))
    text = text.replace("\u2028", "\n").replace("\u2029", "\n")
    kept = []
    for line in text.split("\n"):
        if _QUOTED.match(line):
            continue
        if _MARKER in line.lower():
            break  # an unquoted copy of our mail starts here: the rest is ours, not theirs
        kept.append(line)
    sender_words = name_words(sender_name, sender)
    # Greetings go before the library sees the text: it takes a "Thanks," at the top for a
    # signature and would drop the commands under it.
    kept = drop_opening(kept, sender_words)
    # Cap what the library's regular expressions see: a command reply is short.
    text = "\n".join(kept).strip()[:20_000]
    if not text:
        return ""
    try:
        body = _library_body(text)
    except Exception:  # a library bug must not cost the reply: keep the unparsed text
        body = text
    lines = []
    for line in body.split("\n"):
        if _MORE_SIGNATURES.match(line) or is_closing(line, sender_words):
            break  # the closing or signature, and everything under it
        lines.append(line)
    written = [line for line in lines if line.strip()]
    if len(written) > 1 and is_own_name(written[-1], sender_words):
        # The sender's name alone under the commands: a signature without a closing.
        lines = lines[: len(lines) - lines[::-1].index(written[-1]) - 1]
    return "\n".join(lines).strip()


_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def command_lines(text: str) -> tuple[str, ...]:
    """Each non-empty line of the stripped reply, trimmed; at most MAX_COMMANDS. Control
    characters (NUL and friends) become spaces: no game notation uses them."""
    text = _CONTROLS.sub(" ", text)
    lines = [" ".join(line.split())[:MAX_LINE] for line in text.split("\n")]
    return tuple(line for line in lines if line)[:MAX_COMMANDS]


# -- classification ------------------------------------------------------------------------

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


def _bounce_details(message: Message, own_domains: Sequence[str]) -> Bounce:
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
                    texts.append("Message-ID: " + _header(inner[0], "Message-ID"))
            elif part.get_content_maintype() == "text":
                texts.append(_decode_part(part))
    blob = "\n".join(texts)
    recipients = [m.group(1).lower() for m in _FINAL_RECIPIENT.finditer(blob)]
    recipients += [
        a for _, a in _addresses(_headers(message, "X-Failed-Recipients")) if a not in recipients
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
    fields: _Fields | None = None,
) -> tuple[Kind, str]:
    """What kind of mail this is, and why (for the inbound log). ``fields``: the message's
    headers, when the caller has them already."""
    fields = fields or _Fields(message)
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


def read_message(raw: bytes, own_domains: Sequence[str] = ()) -> Incoming:
    """Read one raw RFC 822 message; never raises."""
    try:
        message: Message = message_from_bytes(raw, policy=READ_POLICY)
    except Exception:  # the parser is lenient; this guards against the unknown
        message = message_from_string("", policy=READ_POLICY)
    fields = _Fields(message)
    ids = message_ids(fields.one("Message-ID"))
    message_id = ids[0] if ids else None
    from_pairs = _addresses(fields.all("From"))
    sender_name, sender = from_pairs[0] if from_pairs else ("", "")
    if not sender:
        # A From: the stricter parser rejects may still hold a plain address.
        _, loose = parseaddr(fields.one("From"))
        sender = loose.lower() if "@" in loose and " " not in loose else ""
    recipients: list[str] = []
    for name in ("Delivered-To", "X-Original-To", "Envelope-To", "X-Envelope-To", "To", "Cc"):
        for _, address in _addresses(fields.all(name)):
            if address not in recipients:
                recipients.append(address)
    kind, reason = classify(message, sender, message_id, own_domains, fields)
    bounce = _bounce_details(message, own_domains) if kind is Kind.BOUNCE else None
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
