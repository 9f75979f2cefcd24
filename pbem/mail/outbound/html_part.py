"""The HTML part every mail of a game carries beside its text (``multipart/alternative``).

Most mail programs show a text part in a proportional font (Gmail on the web and on Android)
or join its lines (Outlook): a board drawn in columns falls out of line. The HTML part draws
the board with tables and inline styles only (``pbem.mail.outbound.boards``: from the seat's
view, never the state) and says everything else *with the text part's own words*: its prose
is the text part, paragraph by paragraph, with its links made links. So whatever a feature's
text says (the news since the seat's last move, the deadline, what to type, the receipt, the
page link), the HTML says the same, and a change of wording reaches both parts at once.

The text part's board (``MailBoard.text``) is found in the text and replaced by the drawn
board; a line ``- <label>: <mailto: or https: link>`` (the moves one click away,
``pbem.mail.outbound.quick_links``) becomes a link labelled with its label.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from markupsafe import Markup, escape

from pbem.mail.outbound.boards.palette import INK, LINK, MUTED, PAPER, render

#: A link the text part holds: a web page, or a ready reply.
_URL = re.compile(r"(?:https?://|mailto:)[^\s<>\"]+")
#: A labelled link on a line of its own: ``- Place a knight on E5: mailto:…``
_LABELLED = re.compile(r"^- (?P<label>.+?): (?P<url>(?:https?://|mailto:)[^\s<>\"]+)$")
_PARAGRAPH = f"margin:0 0 12px 0;font-size:14px;line-height:20px;color:{INK};background-color:{PAPER};overflow-wrap:anywhere;word-break:break-word;"  # noqa: E501
_SMALL = f"margin:0 0 12px 0;font-size:12px;line-height:17px;color:{MUTED};background-color:{PAPER};overflow-wrap:anywhere;word-break:break-word;"  # noqa: E501
_A = f"color:{LINK};background-color:{PAPER};text-decoration:underline;"
_BUTTON = (
    f"display:inline-block;margin:3px 4px 3px 0;padding:6px 10px;border:1px solid {LINK};"
    f"border-radius:4px;color:{LINK};background-color:{PAPER};text-decoration:none;"
    "font-size:14px;line-height:18px;"
)


@dataclass(frozen=True)
class MailBoard:
    """A seat's board as its mail shows it: the text part's board, and the same view drawn
    for the HTML part."""

    text: str
    #: the board drawn in HTML (``pbem.mail.outbound.boards``), called when a mail shows it
    draw: Callable[[], str]


def html_part(text: str, subject: str, board: MailBoard | None = None) -> str:
    """The HTML part of a mail whose text part is ``text``."""
    body: list[str] = []
    board_text = board.text.strip() if board is not None else ""
    if board is not None and board_text and board_text in text:
        before, _, after = text.partition(board_text)
        body.extend(_prose(before))
        body.append(f'<div data-board="1" style="margin:0 0 14px 0;">{board.draw()}</div>')
        body.extend(_prose(after))
    else:
        body.extend(_prose(text))
    return _short_lines(render("mail.html", subject=subject, body=Markup("\n".join(body))))


#: A line this long is broken (RFC 5322 allows 998 octets; the HTML then goes as 7bit).
_LONG = 900


def _short_lines(html: str) -> str:
    """``html`` with each long line broken between an element's name and its ``style``
    (whitespace between attributes: the same document), so that it can be sent unencoded."""
    if all(len(line) <= _LONG for line in html.splitlines()):
        return html
    return "\n".join(
        line.replace(' style="', '\n style="') if len(line) > _LONG else line
        for line in html.splitlines()
    )


def _link(url: str, label: str | None = None, style: str = _A) -> str:
    shown = escape(label if label is not None else url)
    return f'<a href="{escape(url)}" style="{style}">{shown}</a>'


def _line(line: str) -> str:
    """One line of text, escaped, its links made links."""
    out: list[str] = []
    at = 0
    for found in _URL.finditer(line):
        url = found.group(0).rstrip(".,;)")
        out.append(str(escape(line[at : found.start()])))
        out.append(_link(url))
        at = found.start() + len(url)
    out.append(str(escape(line[at:])))
    return "".join(out)


def _prose(text: str) -> list[str]:
    """The text's paragraphs (separated by blank lines) as HTML paragraphs; a paragraph's
    line breaks are kept (a line of the text part is a line of the HTML part)."""
    paragraphs = []
    for chunk in re.split(r"\n\s*\n", text.strip("\n")):
        lines = [line.rstrip() for line in chunk.split("\n") if line.strip()]
        if not lines:
            continue
        labelled = [_LABELLED.match(line) for line in lines]
        if any(labelled):
            # A heading line, then the ready replies and links as buttons, a line each.
            html = []
            for line, match in zip(lines, labelled, strict=True):
                if match:
                    link = _link(match["url"], match["label"], _BUTTON)
                    html.append(f'<span data-quick="1">{link}</span>')
                else:
                    html.append(_line(line))
            paragraphs.append(f'<p style="{_PARAGRAPH}">' + "<br>\n".join(html) + "</p>")
            continue
        style = _SMALL if lines[0].startswith("##") else _PARAGRAPH
        # a line of the text, a line of the HTML: no HTML line is longer than the text's
        paragraphs.append(f'<p style="{style}">' + "<br>\n".join(map(_line, lines)) + "</p>")
    return paragraphs
