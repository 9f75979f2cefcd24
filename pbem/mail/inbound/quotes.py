"""The part of a reply its author wrote. Quotes, attributions and signatures are removed in
four steps, each for the cases the previous one misses (measured on ``tests/mail/corpus``):

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
   closing ("Cheers, Ann", "x Ann") ends the reply (``courtesy.py``), as one on a command's
   own line does ("D5. Thanks, Cat"); the greeting the first line opens with ("Hi all -
   C5") and friendly marks ending a line ("E5 👍") are cut from it.
"""

from __future__ import annotations

import re
from typing import Any

from mailparser_reply import EmailReplyParser
from mailparser_reply.parser import EmailMessage as _LibraryMessage

from pbem.mail.inbound.courtesy import (
    drop_opening,
    is_closing,
    is_own_name,
    name_words,
    trim_lines,
)

#: The line our mails start with; a reply is cut where its quoted copy begins.
REPLY_MARKER = "## Type your reply above this line ##"

#: mail-parser-reply languages tried on every reply (players write in any of them).
# Danish, Swedish and Polish are left out on purpose: their patterns treat lines starting with
# "Kh", "Tak", "/word" or a single "Do:" as signatures or headers, which could eat a command.
LANGUAGES = ("en", "de", "fr", "es", "it", "nl")

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
    # Courtesy on a command's own line: "Hi all - C5", "D5. Thanks, Cat", "E5 👍".
    lines = trim_lines(lines, sender_words)
    written = [line for line in lines if line.strip()]
    if len(written) > 1 and is_own_name(written[-1], sender_words):
        # The sender's name alone under the commands: a signature without a closing.
        lines = lines[: len(lines) - lines[::-1].index(written[-1]) - 1]
    return "\n".join(lines).strip()
