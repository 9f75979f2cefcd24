"""The moves one click away: ``mailto:`` links that open a reply already written.

Each link goes to the seat's own signed reply address (the mail's Reply-To), with the
subject a reply has ("Re: " and the game's subject) and the move as the body. A mail program
opens it as a new mail: no In-Reply-To, the body the move alone (perhaps a signature below);
the inbound pipeline reads it as any reply (the token in the address says the game, the seat
and the version it was made against). The moves are chosen in ``pbem.play.quick_moves``.

The block is written into the text part; the HTML part draws its lines as buttons
(``pbem.mail.outbound.html_part``: a line ``- <label>: <link>``).
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import quote

from pbem.play.quick_moves import QuickMove

HEADING = "Moves one click away (each opens a reply with the move written in it; send it as it is):"
ALL_MOVES = "Show all moves"


def mailto(address: str, subject: str, body: str) -> str:
    """``mailto:<address>?subject=…&body=…`` (RFC 6068: each value percent-encoded, a space
    as %20, never "+", which some programs keep as it is)."""
    to, subject, body = quote(address, safe="@+"), quote(subject, safe=""), quote(body, safe="")
    return f"mailto:{to}?subject={subject}&body={body}"


def reply_subject(subject: str) -> str:
    return subject if subject.lower().startswith("re:") else f"Re: {subject}"


def quick_links_text(
    moves: Sequence[QuickMove], reply_to: str, subject: str, page_link: str
) -> str:
    """The block of the text part: one line per move, then the page with every move."""
    if not moves:
        return ""
    re_subject = reply_subject(subject)
    lines = [HEADING]
    lines.extend(f"- {m.label}: {mailto(reply_to, re_subject, m.text)}" for m in moves)
    lines.append(f"- {ALL_MOVES}: {page_link}#play")
    return "\n".join(lines) + "\n"
