"""The text a person wrote in a mail's body, whatever its charset or transfer encoding: the
text part is preferred; an HTML-only mail is turned into text with quoted blocks kept as ``>``
lines; a ``format=flowed`` text has its flowed lines joined (RFC 3676)."""

from __future__ import annotations

import contextlib
from email.message import EmailMessage, Message
from html.parser import HTMLParser
from typing import Any


def decode_part(part: Message) -> str:
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
    """HTML to plain text: blocks become lines, blockquotes become ``>`` lines.

    decision (measured, ``python -m bench.html_readers``): kept rather than a maintained
    converter, which must read the whole reply corpus at least as well and does not. Over
    the corpus's 242 replies rendered HTML-only as Gmail, Outlook, Apple Mail and a webmail
    quoting without attribution write them, this reads all 4 x 242 as in plain text;
    html2text 2025.4.15 237 per client (it escapes Markdown: the signature line "-- " is
    read as a command, a backslash before it, as is "- Ann") and 2 of the corpus's 3 HTML-only mails
    (an Outlook ``<hr>`` becomes a "* * *" command); inscriptis 2.7.6 all of Gmail's,
    Outlook's and Apple's but 86 of the webmail's (it indents a blockquote instead of
    marking it quoted, so the quoted turn mail is read as commands)."""

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
    """An HTML body as plain text: blocks become lines, blockquotes ``>`` lines."""
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
    text = decode_part(part).replace("\r\n", "\n").replace("\r", "\n")
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
