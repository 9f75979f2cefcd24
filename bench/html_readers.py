"""HTML-only replies: the hand-written HTML reader (``pbem.mail.inbound.body.html_to_text``)
against html2text and inscriptis, measured over the whole reply corpus rendered as
HTML-only mails as Gmail, Outlook, Apple Mail and a webmail write them (``<div>`` lines,
``<br>``, a ``<blockquote>`` or an Outlook header block over the quoted mail, a signature
``<div>``).

The corpus: every reply of ``tests/mail/corpus/*.eml`` (its plain body, re-rendered) and
every case of ``tests/mail/corpus/phrasings.txt``, each quoted under an attribution as a
reply to a turn mail. A rendering is read correctly when the commands read from it are
those read from the same reply in plain text (which the corpus tests check).

Run: ``.venv/bin/python -m bench.html_readers`` (html2text and inscriptis are pinned in the
dev dependencies).
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path

import html2text
from inscriptis import get_text
from inscriptis.css_profiles import CSS_PROFILES
from inscriptis.model.config import ParserConfig

from pbem.mail.inbound import body
from pbem.mail.inbound.quotes import REPLY_MARKER
from pbem.mail.inbound.reading import read_message

CORPUS = Path(__file__).parents[1] / "tests" / "mail" / "corpus"
TURN_MAIL = [
    REPLY_MARKER,
    "",
    "Lancelot, game 7: your turn, Blue (seat 1).",
    "",
    "     D E F G H",
    "  5  . R . . .",
    "",
    "You can type, for example: D4, F7, G7",
    "Game page: http://127.0.0.1:5000/games/7",
]


def _lines(text: str) -> list[str]:
    return text.split("\n")


def gmail(reply: str) -> str:
    divs = "".join(
        f'<div dir="ltr">{html.escape(line)}</div>' if line else "<div><br></div>"
        for line in _lines(reply)
    )
    quoted = "<br>".join(html.escape(line) for line in TURN_MAIL)
    return (
        f'<div dir="ltr">{divs}</div><br><div class="gmail_quote"><div dir="ltr" '
        'class="gmail_attr">On Mon, 3 Jun 2024 at 10:02, Lancelot by mail &lt;play@reply.'
        'example.org&gt; wrote:<br></div><blockquote class="gmail_quote" style="margin:0px '
        f'0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex">{quoted}'
        "</blockquote></div>"
    )


def outlook(reply: str) -> str:
    paragraphs = "".join(
        f'<p class="MsoNormal">{html.escape(line) or "&nbsp;"}<o:p></o:p></p>'
        for line in _lines(reply)
    )
    quoted = "".join(
        f'<p class="MsoNormal">{html.escape(line)}<o:p></o:p></p>' for line in TURN_MAIL
    )
    return (
        '<html><head><style>p.MsoNormal{margin:0cm;}</style></head><body lang="EN-GB">'
        f'<div class="WordSection1">{paragraphs}<p class="MsoNormal"><o:p>&nbsp;</o:p></p>'
        '<div style="border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm">'
        '<p class="MsoNormal"><b>From:</b> Lancelot by mail &lt;play@reply.example.org&gt;'
        "<br><b>Sent:</b> Monday, June 3, 2024 10:02<br><b>To:</b> Alice<br><b>Subject:</b>"
        f" Lancelot, game 7: your turn</p></div>{quoted}</div></body></html>"
    )


def apple(reply: str) -> str:
    first, *rest = _lines(reply)
    divs = "".join(f"<div>{html.escape(line) or '<br>'}</div>" for line in rest)
    quoted = "".join(f"<div>{html.escape(line) or '<br>'}</div>" for line in TURN_MAIL)
    return (
        '<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8">'
        '</head><body style="overflow-wrap: break-word;" dir="auto">'
        f'{html.escape(first)}{divs}<div><br><blockquote type="cite"><div>On 3 Jun 2024, at '
        "10:02, Lancelot by mail &lt;play@reply.example.org&gt; wrote:</div><br>"
        f"{quoted}</blockquote></div></body></html>"
    )


def webmail(reply: str) -> str:
    """A webmail that quotes in a ``<blockquote>`` with no attribution line (Yahoo's
    "original message" folded, some corporate webmails)."""
    divs = "".join(f"<div>{html.escape(line) or '<br>'}</div>" for line in _lines(reply))
    quoted = "".join(f"<div>{html.escape(line) or '<br>'}</div>" for line in TURN_MAIL[1:])
    return f"<html><body>{divs}<blockquote>{quoted}</blockquote></body></html>"


CLIENTS: dict[str, Callable[[str], str]] = {
    "gmail": gmail,
    "outlook": outlook,
    "apple": apple,
    "webmail": webmail,
}


def _html2text(markup: str) -> str:
    converter = html2text.HTML2Text()
    converter.body_width = 0  # no wrapping: a long command stays on its line
    converter.ignore_images = True
    converter.ignore_emphasis = True
    converter.ignore_links = True
    converter.single_line_break = True
    return converter.handle(markup)


_STRICT = ParserConfig(css=CSS_PROFILES["strict"])


def _inscriptis(markup: str) -> str:
    return get_text(markup, _STRICT)


READERS: dict[str, Callable[[str], str]] = {
    "hand-written": body.html_to_text,
    "html2text": _html2text,
    "inscriptis": _inscriptis,
}


def _mail(markup: str) -> bytes:
    message = EmailMessage()
    message["From"] = "Ann Smith <ann.smith@example.com>"
    message["To"] = "play+token@reply.example.org"
    message["Subject"] = "Re: Lancelot, game 7: your turn"
    message["Message-ID"] = "<bench@client.example>"
    message.set_content(markup, subtype="html")
    return message.as_bytes()


def replies() -> list[str]:
    """Every reply text of the corpus, as its author wrote it (no quote)."""
    texts = []
    manifest = json.loads((CORPUS / "expected.json").read_text(encoding="utf-8"))
    for _name, case in sorted(manifest["messages"].items()):
        if case["kind"] == "reply" and case["commands"]:
            texts.append("\n".join(case["commands"]))
    for line in (CORPUS / "phrasings.txt").read_text(encoding="utf-8").splitlines():
        if " | " in line and not line.startswith("#"):
            texts.append(line.split(" | ")[1].replace("\\n", "\n"))
    return texts


def _plain(text: str) -> tuple[str, ...]:
    message = EmailMessage()
    message["From"] = "Ann Smith <ann.smith@example.com>"
    message["Message-ID"] = "<bench@client.example>"
    message.set_content(
        text
        + "\n\nOn Mon, 3 Jun 2024, pbem wrote:\n"
        + "\n".join("> " + line for line in TURN_MAIL)
    )
    return read_message(message.as_bytes()).commands


def measure() -> dict[str, dict[str, int]]:
    texts = replies()
    expected = [_plain(text) for text in texts]
    original = body.html_to_text
    scores: dict[str, dict[str, int]] = {}
    try:
        for reader_name, reader in READERS.items():
            body.html_to_text = reader  # type: ignore[assignment]
            for client, render in CLIENTS.items():
                right = sum(
                    read_message(_mail(render(text))).commands == want
                    for text, want in zip(texts, expected, strict=True)
                )
                scores.setdefault(reader_name, {})[client] = right
    finally:
        body.html_to_text = original  # type: ignore[assignment]
    scores["cases"] = {"per client": len(texts)}
    return scores


def measure_files() -> dict[str, int]:
    """The corpus's own HTML-only mails (as real clients wrote them), read as the manifest
    says, by each reader."""
    manifest = json.loads((CORPUS / "expected.json").read_text(encoding="utf-8"))
    cases = {
        name: case
        for name, case in manifest["messages"].items()
        if b"text/html" in (CORPUS / name).read_bytes()
        and b"text/plain" not in (CORPUS / name).read_bytes()
    }
    original = body.html_to_text
    scores = {"files": len(cases)}
    try:
        for reader_name, reader in READERS.items():
            body.html_to_text = reader  # type: ignore[assignment]
            scores[reader_name] = sum(
                list(read_message((CORPUS / n).read_bytes(), manifest["own_domains"]).commands)
                == case["commands"]
                for n, case in cases.items()
            )
    finally:
        body.html_to_text = original  # type: ignore[assignment]
    return scores


def misses(reader_name: str, client: str) -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
    """The replies ``reader_name`` reads wrongly from ``client``'s HTML."""
    original = body.html_to_text
    out = []
    try:
        body.html_to_text = READERS[reader_name]  # type: ignore[assignment]
        for text in replies():
            got = read_message(_mail(CLIENTS[client](text))).commands
            want = _plain(text)
            if got != want:
                out.append((text, want, got))
    finally:
        body.html_to_text = original  # type: ignore[assignment]
    return out


if __name__ == "__main__":
    print(json.dumps({"rendered": measure(), "corpus files": measure_files()}, indent=2))
