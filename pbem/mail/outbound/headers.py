"""Safe outgoing headers.

Every string that goes into an outgoing header passes through :func:`clean` (or
:func:`clean_address`, both in ``pbem.core.header_text``): CR, LF, NUL, the Unicode line and
paragraph separators and every other control or bidi-override character are removed and the
length is capped.

Outgoing messages are built only from plain ``str`` values: never from a header object of a
parsed incoming message. Python 3.11's ``email`` package writes a parsed header object back
verbatim when it re-serialises it, so an encoded word that decodes to ``"x\\r\\nBcc: ..."``
becomes a real header line (CVE-2024-6923); :func:`new_message` refuses anything that is not a
``str`` so that path cannot be taken by accident.
"""

from __future__ import annotations

import binascii
import random
import re
import sys
from collections.abc import Mapping, Sequence
from email import policy, quoprimime
from email.headerregistry import BaseHeader, HeaderRegistry
from email.message import EmailMessage
from email.policy import EmailPolicy
from email.utils import formataddr
from typing import Any

# The line and address checks are pure and shared with the settings' own check; the mail code
# takes them from here, with the rest of what makes a header safe.
from pbem.core.header_text import SUBJECT_MAX, UNSAFE
from pbem.core.header_text import clean as clean
from pbem.core.header_text import clean_address as clean_address

#: The caps beside ``SUBJECT_MAX``: RFC 5322 recommends lines of at most 78 characters; a
#: display name or an id never needs more than this.
NAME_MAX = 64
VALUE_MAX = 998  # RFC 5322 2.1.1 line limit


class _HeaderClasses(HeaderRegistry):
    """The standard header classes, each made once per header name; with ``remember``,
    also the header objects of the last values stored (at most that many).

    ``HeaderRegistry`` builds a new class (``type(...)``) for every header it parses or
    stores, which costs more than the rest of writing or reading a mail; the classes it
    builds for one name are all alike, so reusing the first changes nothing else. A header
    object is immutable (folding reads its parse tree and never changes it), so the one
    parsed for a (name, value) serves every mail that has that header: the sender, the
    subject and the threading headers of a game are the same in each of its mails.
    """

    def __init__(self, remember: int = 0) -> None:
        super().__init__()
        self._made: dict[str, type[BaseHeader]] = {}
        self._remember = remember
        self._parsed: dict[tuple[str, str], BaseHeader] = {}

    def __getitem__(self, name: str) -> type[BaseHeader]:
        key = name.lower()
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = super().__getitem__(name)
        return made

    def __call__(self, name: str, value: str) -> BaseHeader:
        if not self._remember or type(value) is not str:
            return super().__call__(name, value)
        key = (name, value)
        header = self._parsed.get(key)
        if header is None:
            if len(self._parsed) >= self._remember:
                self._parsed.clear()  # bounded; the common headers come back at once
            header = self._parsed[key] = super().__call__(name, value)
        return header


class _FoldsRemembered(EmailPolicy):
    """An ``EmailPolicy`` that remembers the folded bytes of the last header objects it
    folded (at most 4096): the header objects of a (name, value) are shared between mails
    (``_HeaderClasses``), folding one depends only on it and on the policy (immutable), and
    the sender, subject, threading and MIME headers of a game's mails are the same in each.
    Keyed by the object itself (held, so its id is not reused), never by its text: two
    values with the same text may have been written differently."""

    def fold_binary(self, name: str, value: Any) -> bytes:
        key = (id(self), name, id(value))
        hit = _FOLDED.get(key)
        if hit is not None and hit[0] is value:
            return hit[1]
        folded = super().fold_binary(name, value)
        if len(_FOLDED) >= 4096:
            _FOLDED.clear()  # bounded; the common headers come back at once
        _FOLDED[key] = (value, folded)
        return folded


_FOLDED: dict[tuple[int, str, int], tuple[Any, bytes]] = {}

#: ``policy.SMTP`` (for the mails we write, their headers and folds remembered) and
#: ``policy.default`` (for the mails we read), with reused header classes: the same output,
#: faster.
SMTP_POLICY = _FoldsRemembered(linesep="\r\n", header_factory=_HeaderClasses(remember=4096))
READ_POLICY = policy.default.clone(header_factory=_HeaderClasses(remember=4096))

_MSGID = re.compile(r"^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@[A-Za-z0-9.-]+$")


#: An RFC 2047 encoded word: mail clients show what it decodes to, not its text.
_ENCODED_WORD = re.compile(r"=\?[^?\s]*\?[BbQq]\?[^?\s]*\?=")


def check_display_name(name: str) -> str:
    """A person's name as the mail layer will write it in ``To:``; raises ValueError with
    the reason when it cannot be, so that a name is refused where it is given rather than
    when a mail to it is written.

    An encoded word (``=?utf-8?q?...?=``) is refused outright: every mail client shows what
    it decodes to, which may be another name or a line break that ends the header."""
    if type(name) is not str:
        raise TypeError(f"a name must be a str, not {type(name).__name__}")
    if _ENCODED_WORD.search(name):
        raise ValueError(
            "holds a MIME encoded word (=?charset?q?...?=), which mail programs show as "
            "other text: write the name as plain text"
        )
    try:
        # The very header the mails to this seat carry, built and written out.
        message = EmailMessage(policy=SMTP_POLICY)
        message["To"] = format_address(name, "player@example.org")
        message.as_bytes()
    except (ValueError, TypeError, IndexError) as e:
        raise ValueError(f"cannot be written in a mail header ({e})") from None
    return name


def format_address(name: str, address: str) -> str:
    """``"Name" <address>`` with the name cleaned and the address checked."""
    return formataddr((clean(name, NAME_MAX), clean_address(address)))


def msgid(value: str) -> str:
    """``<id>`` for a Message-ID-like header; the id (with or without brackets) is checked."""
    bare = value.strip().removeprefix("<").removesuffix(">")
    if UNSAFE.search(bare) or not _MSGID.match(bare) or len(bare) > VALUE_MAX // 4:
        raise ValueError(f"{clean(value, 80)!r} is not a message id")
    return f"<{bare}>"


def _header_list(
    *,
    from_: tuple[str, str],
    to: tuple[str, str],
    subject: str,
    message_id: str,
    reply_to: tuple[str, str] | None,
    in_reply_to: str | None,
    references: Sequence[str],
    extra: Mapping[str, str] | None,
    date: str | None,
) -> list[tuple[str, str]]:
    """The headers of a new message, in order, every value cleaned and checked."""
    headers = [("From", format_address(*from_)), ("To", format_address(*to))]
    if reply_to is not None:
        headers.append(("Reply-To", format_address(*reply_to)))
    headers.append(("Subject", clean(subject, SUBJECT_MAX)))
    headers.append(("Message-ID", msgid(message_id)))
    if date is not None:
        headers.append(("Date", clean(date, 64)))
    if in_reply_to is not None:
        headers.append(("In-Reply-To", msgid(in_reply_to)))
    if references:
        headers.append(("References", " ".join(msgid(r) for r in references)))
    for name, value in (extra or {}).items():
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9-]{0,60}", name):
            raise ValueError(f"{clean(name, 80)!r} is not a header name")
        headers.append((name, clean(value, VALUE_MAX)))
    return headers


def new_message(
    *,
    from_: tuple[str, str],
    to: tuple[str, str],
    subject: str,
    message_id: str,
    text: str,
    reply_to: tuple[str, str] | None = None,
    in_reply_to: str | None = None,
    references: Sequence[str] = (),
    extra: Mapping[str, str] | None = None,
    html: str | None = None,
    date: str | None = None,
) -> EmailMessage:
    """A new outgoing message built only from plain strings, every one cleaned.

    ``from_``, ``to`` and ``reply_to`` are (display name, address) pairs; ``extra`` holds
    further headers (``Auto-Submitted``, ``X-Pbem-*``). Raises TypeError for anything that is
    not a ``str`` (such as a header object taken from an incoming message) and ValueError for
    a malformed address or message id.
    """
    message = EmailMessage(policy=SMTP_POLICY)
    headers = _header_list(
        from_=from_, to=to, subject=subject, message_id=message_id, reply_to=reply_to,
        in_reply_to=in_reply_to, references=references, extra=extra, date=date,
    )  # fmt: skip
    for name, value in headers:
        message[name] = value
    if not isinstance(text, str):
        raise TypeError("the body must be a str")
    message.set_content(text)
    if html is not None:
        message.add_alternative(html, subtype="html")
    return message


def message_bytes(
    *,
    from_: tuple[str, str],
    to: tuple[str, str],
    subject: str,
    message_id: str,
    text: str,
    reply_to: tuple[str, str] | None = None,
    in_reply_to: str | None = None,
    references: Sequence[str] = (),
    extra: Mapping[str, str] | None = None,
    date: str | None = None,
    html: str | None = None,
) -> tuple[bytes, str]:
    """``new_message(...).as_bytes()`` and its ``Subject`` as read back: the same bytes and
    text (the same checks, the same errors), made faster — the mails of every move are
    written here.

    The generator writes each header as the policy folds it on its own, then the content
    headers and the body, which depend on the text alone. So each header's bytes are
    computed alone: written as they are when they are of a shape whose fold is the value
    itself (``_simple_fold``, checked against the email package by tests/mail/
    test_headers.py), else folded by the email package (remembered for the next mail: the
    sender, subject and threading headers of a game repeat); and the body is written as
    the email package writes it (``_text_part``), or by the email package itself. With
    ``html``, the body is ``multipart/alternative`` (the text part, then the HTML part), as
    the email package writes it."""
    headers = _header_list(
        from_=from_, to=to, subject=subject, message_id=message_id, reply_to=reply_to,
        in_reply_to=in_reply_to, references=references, extra=extra, date=date,
    )  # fmt: skip
    names = [name.lower() for name, _ in headers]
    if len(set(names)) != len(names):
        # A header given twice: the email package decides (it refuses a second From, ...).
        message = new_message(
            from_=from_, to=to, subject=subject, message_id=message_id, text=text,
            reply_to=reply_to, in_reply_to=in_reply_to, references=references, extra=extra,
            date=date, html=html,
        )  # fmt: skip
        return message.as_bytes(), str(message["Subject"])
    if not isinstance(text, str) or not isinstance(html, str | None):
        raise TypeError("the body must be a str")
    part = _text_part(text) if html is None else _alternative_part(text, html)
    if part is None:
        body = EmailMessage(policy=SMTP_POLICY)
        body.set_content(text)
        if html is not None:
            content, cte = _html_content(html)
            body.add_alternative(content, subtype="html", cte=cte)
        part = body.as_bytes()
    head = b"".join(_folded(name, value) for name, value in headers)
    subject_text = str(
        SMTP_POLICY.header_store_parse("Subject", headers[names.index("subject")][1])[1]
    )
    return head + part, subject_text


def _html_content(html: str) -> tuple[str, str | None]:
    """The HTML part as 7bit text when it can be: non-ASCII written as character references
    (``&#8212;``, the same text to every HTML reader) and every line within RFC 5322's 998
    octets (``pbem.mail.outbound.html_part`` breaks its long lines between attributes), so it
    goes unencoded — quoted-printable would cost as much as writing the rest of the mail and
    a few per cent more octets. Else (a line too long) the email package's choice (None)."""
    ascii_html = html.encode("ascii", "xmlcharrefreplace").decode("ascii")
    lines = ascii_html.splitlines()
    if max(map(len, lines), default=0) <= VALUE_MAX:
        return ascii_html, "7bit"
    return html, None


def _alternative_part(text: str, html: str) -> bytes | None:
    """What ``set_content(text)``, ``add_alternative(html, subtype="html", cte="7bit")`` and
    ``as_bytes()`` write under the SMTP policy (CPython 3.11's content manager and generator:
    the text part loses its MIME-Version to the whole, the HTML part keeps one, a boundary
    made as ``Generator._make_boundary`` makes it), without building a message: the email
    package's generator costs more than composing the rest of a mail. Checked against the
    email package by tests/mail/test_headers.py. None (the email package writes it) when
    the text or the HTML is not of the shapes written here."""
    text_part = _text_part(text)
    content, cte = _html_content(html)
    if text_part is None or cte != "7bit":
        return None
    text_part = text_part.replace(_MIME_VERSION, b"", 1)
    html_body = b"\r\n".join(content.encode("ascii").splitlines()) + b"\r\n"
    html_part = _HTML_HEAD + html_body
    boundary = _boundary(text_part + b"\r\n" + html_part)
    return b"".join(
        (
            b'MIME-Version: 1.0\r\nContent-Type: multipart/alternative;\r\n boundary="',
            boundary,
            b'"\r\n\r\n--',
            boundary,
            b"\r\n",
            text_part,
            b"\r\n--",
            boundary,
            b"\r\n",
            html_part,
            b"\r\n--",
            boundary,
            b"--\r\n",
        )
    )


def _boundary(parts: bytes) -> bytes:
    """``email.generator.Generator._make_boundary``: a random token, lengthened until no line
    of the parts is the boundary (or its close)."""
    token = random.randrange(sys.maxsize)
    boundary = b"=" * 15 + b"%019d" % token + b"=="
    if b"--" + boundary not in parts:  # no line can be it: spare compiling a pattern
        return boundary
    counter = 0
    candidate = boundary
    while re.search(rb"^--" + re.escape(candidate) + rb"(--)?$", parts, re.MULTILINE):
        candidate = boundary + b"." + str(counter).encode("ascii")
        counter += 1
    return candidate


_MIME_VERSION = b"MIME-Version: 1.0\r\n"
_HTML_HEAD = (
    b'Content-Type: text/html; charset="utf-8"\r\n'
    b"Content-Transfer-Encoding: 7bit\r\nMIME-Version: 1.0\r\n\r\n"
)
_PART_HEAD = (
    'Content-Type: text/plain; charset="utf-8"\r\n'
    "Content-Transfer-Encoding: {}\r\nMIME-Version: 1.0\r\n\r\n"
)
_NEWLINE = re.compile(r"\r\n|\r|\n")


def _text_part(text: str) -> bytes | None:
    """What ``EmailMessage.set_content(text)`` then ``as_bytes()`` write under the SMTP
    policy (CPython 3.11 ``email.contentmanager._encode_text`` and the generator), without
    building a message: building one costs more than the rest of writing a mail. The same
    choice of transfer encoding, the same MIME headers, the same body bytes; checked against
    the email package by tests/mail/test_headers.py. None (the email package decides, and
    raises) for text that UTF-8 cannot encode (a lone surrogate), and under another policy."""
    if SMTP_POLICY.cte_type != "8bit" or SMTP_POLICY.linesep != "\r\n":
        return None
    try:
        lines = text.encode("utf-8").splitlines()
    except UnicodeEncodeError:
        return None
    if max(map(len, lines), default=0) <= _LINE:
        # Short lines are written as they are, with CRLF line ends.
        body = b"\r\n".join(lines) + b"\r\n"
        return _PART_HEAD.format("7bit" if body.isascii() else "8bit").encode() + body
    # Long lines: quoted-printable unless base64 is shorter for the first 10 lines.
    sniff = b"\r\n".join(lines[:10]) + b"\r\n"
    payload = quoprimime.body_encode(sniff.decode("latin-1"), _LINE)
    if len(payload) > len(binascii.b2a_base64(sniff)):
        cte, data = "base64", b"\r\n".join(lines) + b"\r\n"
        step = _LINE // 4 * 3
        payload = "".join(
            binascii.b2a_base64(data[i : i + step]).decode("ascii")
            for i in range(0, len(data), step)
        )
    else:
        cte = "quoted-printable"
        if len(lines) > 10:
            # body_encode encodes each line on its own: the rest follows the first 10 lines.
            rest = b"\n".join(lines[10:]) + b"\n"
            payload += quoprimime.body_encode(rest.decode("latin-1"), _LINE)
    return (_PART_HEAD.format(cte) + _NEWLINE.sub("\r\n", payload)).encode("ascii")


_LINE = SMTP_POLICY.max_line_length or 78
#: Folded headers of values that are not of a simple shape, by (name, value): at most 4096.
_FOLDED_TEXT: dict[tuple[str, str], bytes] = {}
#: Names whose values the email package parses as addresses, as message ids, or otherwise
#: than unstructured text (dates, MIME headers).
_ADDRESS_HEADERS = frozenset(
    {"from", "to", "cc", "bcc", "reply-to", "sender", "resent-from", "resent-to",
     "resent-cc", "resent-bcc", "resent-sender"}
)  # fmt: skip
_STRUCTURED = frozenset(HeaderRegistry().registry) - {"subject"}
_DOT_ATOM = r"[A-Za-z0-9+_-]+(?:\.[A-Za-z0-9+_-]+)*"
_DOMAIN = r"[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
_SIMPLE_ADDRESS = re.compile(
    rf"(?:[A-Za-z0-9]+(?: [A-Za-z0-9]+)* <{_DOT_ATOM}@{_DOMAIN}>|{_DOT_ATOM}@{_DOMAIN})"
)
_SIMPLE_MSGID = re.compile(rf"<{_DOT_ATOM}@{_DOMAIN}>")
_SIMPLE_TEXT = re.compile(r"[\x21-\x7e]+(?: [\x21-\x7e]+)*")


def _simple_fold(name: str, value: str) -> bytes | None:
    """The folded header when the value is of a shape the email package writes as it is:
    plain ASCII address, message id or text on one line (an address may move to the next
    line whole); None for anything else."""
    key = name.lower()
    fits = len(name) + 2 + len(value) <= _LINE
    if key in _ADDRESS_HEADERS:
        if not _SIMPLE_ADDRESS.fullmatch(value):
            return None
        if fits:
            return f"{name}: {value}\r\n".encode("ascii")
        if 1 + len(value) <= _LINE:
            return f"{name}:\r\n {value}\r\n".encode("ascii")
        return None
    if not fits:
        return None
    if key == "message-id":
        simple = _SIMPLE_MSGID.fullmatch(value) is not None
    else:
        simple = (
            key not in _STRUCTURED and "=?" not in value and bool(_SIMPLE_TEXT.fullmatch(value))
        )
    return f"{name}: {value}\r\n".encode("ascii") if simple else None


def _folded(name: str, value: str) -> bytes:
    simple = _simple_fold(name, value)
    if simple is not None:
        return simple
    folded = _FOLDED_TEXT.get((name, value))
    if folded is None:
        folded = SMTP_POLICY.fold_binary(name, SMTP_POLICY.header_store_parse(name, value)[1])
        if len(_FOLDED_TEXT) >= 4096:
            _FOLDED_TEXT.clear()  # bounded; the common headers come back at once
        _FOLDED_TEXT[(name, value)] = folded
    return folded
