"""The HTML part of every mail: beside the text part (``multipart/alternative``), with the
text part's own words, the board drawn with tables and inline styles only (no image, no SVG,
no ``<style>`` block, no script), every coloured cell with both its colours, and the moves
one click away as ``mailto:`` replies to the seat's own reply address."""

from __future__ import annotations

import re
from email import message_from_bytes, policy
from email.message import EmailMessage
from html import unescape
from html.parser import HTMLParser
from urllib.parse import parse_qs, unquote, urlsplit

from pbem.mail.outbound.quick_links import ALL_MOVES
from pbem.mail.outbound.quick_links import HEADING as QUICK_HEADING
from pbem.play.quick_moves import MAX_QUICK
from tests.mail.helpers import MailWorld
from tests.mail.mail_kinds import KINDS, each_kind, lancaster_turn


class _Reader(HTMLParser):
    """What a reader of the HTML part sees (its text), and its links and styles."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.links: list[tuple[str, str]] = []
        self.styles: list[str] = []
        self.tags: set[str] = set()
        self._href: str | None = None
        self._label: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        found = dict(attrs)
        if found.get("style"):
            self.styles.append(str(found["style"]))
        if tag == "a":
            self._href, self._label = str(found.get("href")), []
        if tag in {"br", "p", "tr", "li", "div", "h3", "table"}:
            self.text.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._href is not None:
            self.links.append((self._href, "".join(self._label)))
            self._href = None
        if tag in {"td", "th"}:
            self.text.append(" ")

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._href is not None:
            self._label.append(data)


def _parts(raw: bytes) -> tuple[str, str, EmailMessage]:
    message = message_from_bytes(raw, policy=policy.default)
    assert isinstance(message, EmailMessage)
    assert message.get_content_type() == "multipart/alternative"
    kinds = [part.get_content_type() for part in message.iter_parts()]
    assert kinds == ["text/plain", "text/html"], kinds  # the richest last (RFC 2046 5.1.4)
    text, html = (part.get_content().replace("\r\n", "\n") for part in message.iter_parts())
    return text, html, message


def _read(html: str) -> _Reader:
    reader = _Reader()
    reader.feed(html)
    return reader


def _words(text: str) -> str:
    return " ".join(text.split())


def _board_block(text: str) -> tuple[int, int]:
    """Where the text part's board is: from its heading line to the line before "You can
    type" (or to the end)."""
    start = min(
        (i for i in (text.find("Lancelot, "), text.find("LANCASTER - ")) if i >= 0), default=-1
    )
    if start < 0:
        return (0, 0)
    end = text.find("You can type", start)
    return (start, end if end >= 0 else len(text))


def test_every_kind_of_mail_says_the_same_words_in_both_parts(world: MailWorld) -> None:
    mails = each_kind(world)
    assert set(mails) == set(KINDS)
    for kind, mail in mails.items():
        text, html, _ = _parts(mail.message)
        reader = _read(html)
        shown = _words("".join(reader.text))
        start, end = _board_block(text)
        prose = text[:start] + "\n" + text[end:] if end else text
        hrefs = {href for href, _ in reader.links}
        for line in prose.splitlines():
            labelled = re.fullmatch(r"- (.+?): ((?:mailto:|https://)\S+)", line)
            if labelled:  # a ready reply or a page: a link labelled with its words
                assert labelled[1] in shown and labelled[2] in hrefs, (kind, line)
            elif line.strip():
                assert _words(line) in shown, (kind, line)
        # What the issue names, in both parts with the same words.
        for needle in ("Version ", "keep this mail: it is your receipt"):
            if needle in text:
                assert needle in shown, (kind, needle)
        for needle in ("Since your last move:", "Deadline:", "You can type", "Game page:"):
            assert (needle in text) == (needle in shown), (kind, needle)


def test_the_html_is_tables_and_inline_styles_only(world: MailWorld) -> None:
    for kind, mail in each_kind(world).items():
        _, html, _ = _parts(mail.message)
        reader = _read(html)
        # Nothing a mail program strips or blocks, nothing fetched.
        assert not reader.tags & {"style", "script", "svg", "img", "link", "iframe"}, kind
        assert "data:" not in html and "<style" not in html.lower(), kind
        assert '<meta name="color-scheme" content="light dark">' in html, kind
        assert 'charset="utf-8"' in html.replace("charset=utf-8", 'charset="utf-8"'), kind
        # Dark mode: every coloured element names both its colours, so that a client that
        # inverts one of them cannot leave dark text on a dark ground.
        for style in reader.styles:
            background = "background-color:" in style
            foreground = re.search(r"(^|;)color:", style) is not None
            assert background == foreground, (kind, style)
        for href, _label in reader.links:
            assert href.startswith(("https://pbem.test", "mailto:")), (kind, href)


def test_the_boards_facts_are_in_the_html(world: MailWorld) -> None:
    _, turn = lancaster_turn(world, players=3)
    text, html, _ = _parts(turn.message)
    shown = _words(unescape("".join(_read(html).text)))
    seat = turn.seat
    assert seat is not None
    # Another seat's gold and squires are hidden; the seat's own are shown as numbers.
    for colour, name in (("Red", "Ann"), ("Blue", "Bob"), ("Yellow", "Cy")):
        assert f"{name} ({colour})" in shown
    assert shown.count("Gold hidden") == 2 and shown.count("Squires hidden") == 2, shown
    for section in ("Counties", "Conflicts", "In force", "New laws", "The King's Court"):
        assert section in shown, section
    assert "The tower Strength" in shown
    for county in ("Northumberland", "Stafford", "York", "Surrey"):
        assert county in shown and county in text
    assert "hidden" not in text  # the text part says "?" for what the seat may not see


def test_the_turn_mail_offers_its_best_moves_as_ready_replies(world: MailWorld) -> None:
    game = world.new_game()
    turn = next(m for m in world.outbox(game.id) if m.kind == "turn")
    text, html, message = _parts(turn.message)
    reply_to = message["Reply-To"].addresses[0].addr_spec
    in_text = re.findall(r"^- (.+?): (mailto:\S+)$", text, re.M)
    assert QUICK_HEADING in text and 1 <= len(in_text) <= MAX_QUICK
    links = _read(html).links
    ready = [(label, href) for href, label in links if href.startswith("mailto:")]
    # The same moves, in the same order, with the same words, in both parts.
    assert ready == in_text
    for label, href in ready:
        parts = urlsplit(href)
        assert unquote(parts.path) == reply_to  # the seat's own signed reply address
        query = parse_qs(parts.query)
        assert query["subject"] == [f"Re: {message['Subject']}"]
        (body,) = query["body"]
        assert body in label.replace("Place a knight on ", "")  # "D4": the move, written
        assert "+" not in parts.query  # a space is %20: no program reads "+" as a space
    page = [href for href, label in links if label == ALL_MOVES]
    assert page and page[0].endswith("#play") and page[0].split("#")[0] in text
