"""The words of substitutes' mails (docs/mail.md, "Substitutes"): the invitation to the
newcomer, the last mail to the player replaced, the lines asking the other seats to decide,
and the newcomer's welcome."""

from __future__ import annotations

from string import Template

from pbem.handover.rules import PROPOSAL_FORM

#: the reply words (``pbem.handover.replies``)
AGREE, REFUSE = "agree substitute", "refuse substitute"

# No "type your reply above this line" marker: replies to these two mails are not read.
INVITATION = Template(
    """$title: you are asked to take over a seat, $name.

A game of $game at $service is under way, and its players (or its administrator) would like
you to take over the seat $seat, played until now by $old. The other players: $players.

Nothing more is sent to this address about this game unless you accept. To accept, open this
link and press the button on the page:

    $accept_link

Replies to this mail are not read: the link alone accepts. Once you accept, you play the seat
from then on; your first mail tells you everything the seat has seen since the game began,
and the seat's time for its current decision starts again for you.

If you did not expect this mail, ignore it: no other mail about this game will come.

The rules of $game: $rules_link
$receipt
"""
)

REPLACED = Template(
    """$title: you no longer play $seat, $name.

$new took over the seat $seat at version $version ($by). Your links, your seat token and
the reply addresses of the game's mails no longer open or play the seat; nothing more of
this game is sent to you.

Thank you for playing. The game's public page: $public
"""
)


def asked_lines(seat_label: str, name: str, proposal: int) -> str:
    """What a deciding seat is asked, in a mail."""
    return (
        f"{name} is proposed to take over {seat_label} (proposal at version {proposal}). "
        f"Reply '{AGREE}' to agree or '{REFUSE}' to refuse, on a line of its own, or use "
        "the buttons on the game page. Every other player still playing must agree; one "
        "refusal ends the proposal."
    )


def welcome_headline(seat_label: str, old: str) -> str:
    return f"you now play {seat_label} in this game, in place of {old}. Welcome!"


HOW_TO_PROPOSE = (
    f"A seat that missed its deadlines can be handed to a substitute: '{PROPOSAL_FORM}'."
)
