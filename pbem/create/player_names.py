"""Players' names may not read as a link or an address (docs/mail.md, "Names").

A name is chosen by whoever creates the game and is written in the mails the service sends
to the other players, where a mail program turns ``evil.example/prize`` or ``www.x`` into a
link and the text around it passes for the service's own words. So a name is refused when,
once compatibility forms are folded (NFKC: a full-width "．" is a dot) and invisible format
characters and combining marks are dropped, it holds:

- an ``@`` (an e-mail address, or a handle);
- a URL scheme: a word directly followed by ``:`` and more text (``https:``, ``mailto:x``),
  or ``//``;
- a token that begins with ``www.``;
- a domain-like token: words joined by dots whose last word has at least two characters,
  one of them a letter (``evil.example``, ``bit.ly``), or a dotted IPv4 address.

Ordinary names pass: spaces, accents and other scripts, apostrophes, hyphens, digits,
initials with dots (``J. R. R. Tolkien``, ``J.R.R. Tolkien``), ``Dr. Who``. A name that
glues a word to a dot and another word (``St.John``) reads as a domain and is refused: write
``St. John``.
"""

from __future__ import annotations

import re
import unicodedata

#: A run of letters, digits, underscores, hyphens and dots (the ideographic one too): a
#: token that might be a host name.
_TOKEN = re.compile(r"[\w.\u3002-]+")
#: A word followed by ":" and more text: a URL scheme (``mailto:x``, ``https://``).
_SCHEME = re.compile(r"[^\W\d_][\w+.-]*:(?=\S)")
_DOTS = re.compile(r"[.\u3002]")
#: Unicode categories dropped before looking: format characters, and combining marks.
INVISIBLE = frozenset({"Cf", "Mn", "Me"})


def _host_like(token: str) -> bool:
    labels = _DOTS.split(token.strip(".\u3002-_").lower())
    if len(labels) < 2 or not all(labels):
        return False
    if labels[0] == "www":
        return True
    last = labels[-1]
    if len(last) >= 2 and any(c.isalpha() for c in last):
        return True
    return len(labels) == 4 and all(label.isascii() and label.isdigit() for label in labels)


def link_in_name(name: str) -> str | None:
    """The part of ``name`` that reads as a link or an address, or None when there is none."""
    folded = unicodedata.normalize("NFKC", name)
    # Soft hyphens, zero-width spaces (format characters), and combining marks (the
    # grapheme joiner and variation selectors are invisible; an accent on a letter or a dot
    # leaves the domain readable): a name could split "evil.example" with one and still
    # show the domain. NFKC has already joined the marks that make a letter of their own.
    folded = "".join(c for c in folded if unicodedata.category(c) not in INVISIBLE)
    if "@" in folded:
        return "@"
    if "//" in folded:
        return "//"
    if found := _SCHEME.search(folded):
        return found.group()
    for token in _TOKEN.finditer(folded):
        if _host_like(token.group()):
            return token.group()
    return None


def link_refusal(text: str, what: str) -> str | None:
    """Why ``text`` cannot be mailed to the players, when it reads as a link or an address.

    For the other words a game's creator may have mailed: a dispute's text and a resolution's
    reason go to every player, and whoever creates a game holds the admin token and the seats
    without an address, so moving, disputing and upholding in turn would otherwise relay a
    link of theirs to the players it names, one mail each time, past every limit on
    creations."""
    if (found := link_in_name(text)) is None:
        return None
    return (
        f"{what} may not hold a web or e-mail address ({found!r}): it is mailed to every "
        "player. Say what went wrong in words, without '@', '//', 'www.' or a word.word "
        "domain (write 'E5. It', not 'E5.It')."
    )


def check_player_name(name: str) -> None:
    """ValueError, with the reason, when ``name`` reads as a link or an address."""
    if (found := link_in_name(name)) is not None:
        raise ValueError(
            f"reads as a web or e-mail address ({found!r}); names appear in the mails to the "
            "other players, so write it without '@', '//', 'www.', a scheme such as 'https:' "
            "or a word.word domain (write 'St. John', not 'St.John')"
        )


def same_name(a: str, b: str) -> bool:
    """Whether two players' names would read as the same name in the mails: compared after
    NFKC folding, without invisible characters and combining marks, case or spacing."""

    def key(name: str) -> str:
        folded = unicodedata.normalize("NFKC", name)
        folded = "".join(c for c in folded if unicodedata.category(c) not in INVISIBLE)
        return " ".join(folded.casefold().split())

    return key(a) == key(b)
