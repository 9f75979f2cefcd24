"""How The New Laws' choices read on the pages and in mails
(``choices.LAW_CHOICE_WORDINGS``): a label and, where it names one, a place on the board.
``exchange`` reads as its canonical sentence."""

from __future__ import annotations

from engine.core.protocol import Action
from engine.lancaster.choices import Words
from engine.lancaster.pieces import plural


def send(words: Words, action: Action) -> tuple[str, str | None]:
    cards = [str(c) for c in action[1]]
    if not cards:
        return "Send no squires", None
    if len(cards) == 1:
        return f"Send a squire to conflict {cards[0]}", f"conflict {cards[0]}"
    return f"Send a squire to each of conflicts {' and '.join(cards)}", None


def buy_extension(words: Words, action: Action) -> tuple[str, str | None]:
    if action[1] is None:
        return "No more extensions", None
    return words.extension("Buy", int(action[1]))


def recall(words: Words, action: Action) -> tuple[str, str | None]:
    letters = [str(x) for x in action[1]]
    if not letters:
        return "Pay for all your counties", None
    knights = "knight" if len(letters) == 1 else "knights"
    places = " and ".join(words.county(x) for x in letters)
    place = f"county {letters[0]}" if len(letters) == 1 else None
    return f"Recall your {knights} in {places}", place


def turn_over(words: Words, action: Action) -> tuple[str, str | None]:
    spaces = [str(n) for n in action[1]]
    if not spaces:
        return "Pay for all extensions", None
    s = "s" if len(spaces) > 1 else ""
    place = f"castle {spaces[0]}" if len(spaces) == 1 else None
    return f"Turn over extension{s} {' and '.join(spaces)}", place


def batches(words: Words, action: Action) -> tuple[str, str | None]:
    n = int(action[1])
    return (f"Buy {plural(n, 'batch', 'batches')}" if n else "No batches"), None


#: the wording of each verb that has its own
WORDINGS = {
    "send": send,
    "buy_extension": buy_extension,
    "recall": recall,
    "turn_over": turn_over,
    "batches": batches,
}
#: the verbs whose decline is the value None, and those whose decline is 0 or ()
DECLINED_BY_NONE = ("buy_extension", "exchange")
DECLINED_BY_NOTHING = ("send", "recall", "turn_over", "batches")
