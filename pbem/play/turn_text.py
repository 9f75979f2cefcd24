"""Whether it is a seat's turn, in words, for the help mail (``help``): the seat to act gets
examples of its move; a seat that is not to act is told so, who the game waits for (the
seats to act are public: every page and mail names them), and what it can reply meanwhile,
instead of "<your move> … for example: no move now"."""

from __future__ import annotations

from typing import Any

from pbem.core.repository import Loaded
from pbem.mail.outbound import compose as c

#: The commands a seat can reply while another seat is to act, as the help lists them.
MEANWHILE = "show, undo (your last move), default <move>, away until 2026-12-24"


def help_parts(loaded: Loaded, seat: int) -> dict[str, Any]:
    """The help's ``turn`` paragraph and its ``your_move`` line (``commands.txt``)."""
    move = "  <your move>    "
    if loaded.finished:
        return {
            "turn": "The game is over: no move can be played any more.\n",
            "your_move": move + "none now: the game is over",
        }
    if any(s.seat == seat and s.resigned for s in loaded.seats):
        return {
            "turn": "You resigned from this game: your turns are played for you.\n",
            "your_move": move + "none: you resigned",
        }
    if seat in loaded.to_act:
        examples = c.can_type(loaded.rules, loaded.state, seat)
        return {
            "turn": "It is your turn: reply with your move on the first line.\n",
            "your_move": move + f"as the game writes it, for example: {examples}",
        }
    names = loaded.names
    waiting = names.many(loaded.to_act)
    return {
        "turn": (
            f"It is not your turn now: the game waits for {waiting}. You will get a mail "
            "when it is your turn.\nMeanwhile you can reply with any command below but a "
            f"move, for example: {MEANWHILE}.\n"
        ),
        "your_move": move + "when it is your turn, as the game writes it (the mail of your "
        "turn gives examples)",
    }
