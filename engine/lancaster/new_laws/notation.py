"""The notation of The New Laws' choices (rules 2.1.0): ``format_action`` writes the canonical
text, ``parse`` reads what a player typed (``reading.py``: every word accounted for, nothing
guessed; what is left out is filled in only where it can mean one thing).

Canonical forms (each parses back to its action):

- ``send a squire to conflict 7``, ``send squires to conflicts 3 and 7``, ``send no squires``
- ``buy extension 4``, ``no more extensions``
- ``pay for all``, ``recall B``, ``recall B and D``
- ``pay for all extensions``, ``turn over extension 3``, ``turn over extensions 3 and 5``
- ``exchange 4 gold for 2 squires``, ``exchange 2 squires for 1 gold``, ``no exchange``
- ``buy 2 batches``, ``buy 1 batch``, ``no batches``
"""

from __future__ import annotations

from typing import Any

from engine.core.protocol import Action
from engine.lancaster.pieces import plural
from engine.lancaster.reading import (
    NO_WORDS,
    Phrase,
    Reading,
    Unreadable,
    bare_number,
    counted,
    county,
    keyphrase,
    keyword,
    number,
    numbered,
    read,
    word,
)
from engine.lancaster.state import Frame, State

VERBS = ("send", "buy_extension", "recall", "turn_over", "exchange", "batches")


def _and(items: list[str]) -> str:
    # never a comma: the mails list several moves on one line separated by commas
    return " and ".join(items)


def _amount(what: str, n: int) -> str:
    return f"{n} gold" if what == "gold" else plural(n, "squire")


def format_action(state: State, action: Action) -> str:
    verb, value = action[0], action[1]
    if verb == "send":
        cards = [str(n) for n in value]
        if not cards:
            return "send no squires"
        if len(cards) == 1:
            return f"send a squire to conflict {cards[0]}"
        return f"send squires to conflicts {_and(cards)}"
    if verb == "buy_extension":
        return "no more extensions" if value is None else f"buy extension {value}"
    if verb == "recall":
        return f"recall {_and(list(value))}" if value else "pay for all"
    if verb == "turn_over":
        spaces = [str(n) for n in value]
        if not spaces:
            return "pay for all extensions"
        return f"turn over extension{'s' if len(spaces) > 1 else ''} {_and(spaces)}"
    if verb == "exchange":
        if value is None:
            return "no exchange"
        get, n = str(value[0]), int(value[1])
        give = "gold" if get == "squires" else "squires"
        return f"exchange {_amount(give, _rate(state) * n)} for {_amount(get, n)}"
    if verb == "batches":
        return f"buy {plural(int(value), 'batch', 'batches')}" if value else "no batches"
    raise ValueError(f"unknown New Laws action {action!r}")


def _rate(state: State) -> int:
    frame = state.agenda[0] if state.agenda else ()
    if len(frame) > 1 and frame[0] == "law_choice":
        law = state.data.law(str(frame[1]))
        if any(k == "rate" for k, _ in law.params):
            return law.param("rate")
    return state.data.law("exchange_gold_squires").param("rate")


# -- reading ----------------------------------------------------------------------------------


def _collect(key: str) -> Phrase:
    """A number added to the list ``key`` (conflict cards, castle spaces)."""

    def phrase(r: Reading, i: int) -> int:
        n = number(r.words[i])
        if n is None:
            return 0
        r.features[key] = (*r.features.get(key, ()), n)
        return 1

    return phrase


#: Words after which "a" and "i" are county letters ("recall A", "recall B and I"), as the
#: canonical form writes them; "recall a knight in B" keeps its article
_LETTER_AFTER = frozenset({"recall", "withdraw", "return", "bring", "and", "&"})


def _letters(r: Reading, i: int) -> int:
    """County letters, as many as named (``B and D``, ``the knight in B``, ``recall A``)."""
    trial = Reading(r.words, {})
    after = r.words[i + 1] if i + 1 < len(r.words) else ""
    loose = i > 0 and r.words[i - 1] in _LETTER_AFTER and after not in {"knight", "knights"}
    n = county("c", any_letter=loose)(trial, i)
    if n:
        r.features["letters"] = (*r.features.get("letters", ()), trial.features["c"])
    return n


def _names(state: State) -> Phrase:
    """Counties by their printed names, as many as named (``York``, ``Stafford and York``):
    the board, the log and the choices name them so, and placement reads them (2.0.0)."""
    letters = {c.name.lower(): c.letter for c in state.data.counties}

    def phrase(r: Reading, i: int) -> int:
        letter = letters.get(r.words[i])
        if letter is None:
            return 0
        r.features["letters"] = (*r.features.get("letters", ()), letter)
        return 1

    return phrase


NONE = keyword("none", True, *NO_WORDS)


def _ignore(*ws: str) -> Phrase:
    return keyword("_", None, *ws)


def _own_cards(state: State, seat: int) -> list[int]:
    from engine.lancaster.new_laws.rules import own_conflict_cards

    return own_conflict_cards(state, seat)


def _parse_send(state: State, seat: int, w: list[str]) -> Action:
    r = read(
        w,
        [
            counted("count", word("squire"), word("squires")),
            _collect("cards"),
            NONE,
            _ignore("send", "sending", "squire", "squires", "to", "conflict", "conflicts"),
            _ignore("card", "cards", "battle", "battles", "each", "at", "on", "in", "into"),
        ],
    )
    cards = tuple(sorted(r.get("cards", ())))
    count = r.get("count")
    if r.get("none") or count == 0:
        if cards:
            raise Unreadable("say either the conflicts or no squires, not both")
        return ("send", ())
    if not cards:
        mine = _own_cards(state, seat)
        if count is not None and count == len(mine):
            return ("send", tuple(mine))  # the only conflicts it can mean
        raise Unreadable("say to which conflicts, e.g. 'send a squire to conflict 7'")
    if count is not None and count != len(cards):
        raise Unreadable(f"it says {plural(count, 'squire')} for {len(cards)} conflicts")
    return ("send", cards)


def _price(state: State, frame: Frame) -> Phrase:
    """``for 4 gold``: the price said again, checked."""
    price = state.data.law(str(frame[1])).param("gold")

    def phrase(r: Reading, i: int) -> int:
        n = number(r.words[i])
        if n is None or i + 1 >= len(r.words) or r.words[i + 1] != "gold":
            return 0
        if n != price:
            raise Unreadable(f"an extension tile costs {price} gold, not {n}")
        return 2

    return phrase


def _parse_buy_extension(state: State, frame: Frame, seat: int, w: list[str]) -> Action:
    r = read(
        w,
        [
            numbered("space", "extension", "space", "castle", optional_lead=word("space", "on")),
            # "two extensions" is how many, not castle space 2 (asked one at a time)
            counted("count", word("extension"), word("extensions")),
            _price(state, frame),
            bare_number("space"),
            keyphrase("none", True, word(*NO_WORDS), "more"),
            NONE,
            _ignore("buy", "extension", "extensions", "tile", "tiles", "more", "an", "another"),
            _ignore("on", "to", "at", "castle", "space"),
        ],
    )
    count = r.get("count")
    if r.get("none") or count == 0:
        if r.has("space"):
            raise Unreadable("say either a castle space or no more extensions, not both")
        return ("buy_extension", None)
    if count is not None and count != 1:
        raise Unreadable(
            "extension tiles are bought one at a time: say the castle space of the first, "
            "e.g. 'buy extension 4' (you are asked again after it)"
        )
    if not r.has("space"):
        raise Unreadable("say which castle space, e.g. 'buy extension 4', or no more extensions")
    return ("buy_extension", r.get("space"))


_PAY = [
    keyword("pay", True, "pay", "paying", "keep", "upkeep"),
    keyword("all", True, "all", "everything", "every", "both"),
]


def _parse_recall(state: State, seat: int, w: list[str]) -> Action:
    from engine.lancaster.new_laws.rules import own_counties

    r = read(
        w,
        [
            *_PAY,
            keyword("recall", True, "recall", "withdraw", "return", "bring"),
            numbered("strength", "knight"),
            _letters,
            _names(state),
            NONE,
            _ignore("knight", "knights", "them", "back", "home", "court", "gold", "county"),
            _ignore("counties", "in", "from", "to", "at"),
            _ignore(
                "a", "an"
            ),  # "recall a knight in B" (a county letter only as _letters reads it)
        ],
    )
    mine = own_counties(state, seat)
    letters = tuple(sorted(set(r.get("letters", ()))))
    if r.get("none"):
        # "no", "none", "pass" alone could refuse to pay as well as to recall, and "pay
        # nothing" means recall all: only "recall none" says it (never guessed)
        if r.get("pay") or letters or not r.get("recall"):
            raise Unreadable(
                "say 'pay for all' or which knights to recall, e.g. 'recall B' ('no' alone "
                "could mean either)"
            )
        return ("recall", ())
    if r.get("pay"):
        if letters or r.get("recall"):
            raise Unreadable("say only the knights to recall, e.g. 'recall B', or 'pay for all'")
        return ("recall", ())
    if not r.get("recall") and not letters:
        raise Unreadable("say 'pay for all' or which knights to recall, e.g. 'recall B'")
    if r.get("all"):
        if letters:
            raise Unreadable("say either all or the counties, not both")
        return ("recall", tuple(mine))
    if not letters:
        if len(mine) != 1:
            raise Unreadable("say which knights to recall, by county, e.g. 'recall B and D'")
        letters = tuple(mine)
    strength = r.get("strength")
    if strength is not None:
        held = {
            s.strength
            for i, s in enumerate(state.counties)
            if s is not None and s.colour == seat
            if "ABCDEFGHI"[i] in letters
        }
        if held != {strength}:
            raise Unreadable(f"there is no knight {strength} of yours in {_and(list(letters))}")
    return ("recall", letters)


def _parse_turn_over(state: State, seat: int, w: list[str]) -> Action:
    r = read(
        w,
        [
            *_PAY,
            keyphrase("turn", True, "turn", "over"),
            keyword("turn", True, "flip", "turn"),
            counted("squires", word("squire"), word("squires")),
            _collect("spaces"),
            NONE,
            _ignore("over", "extension", "extensions", "space", "spaces", "castle", "tile"),
            _ignore("tiles", "them", "on", "at", "in"),
        ],
    )
    c = state.colours[seat]
    live = [n for n in c.extensions if n not in c.turned]
    spaces = tuple(sorted(set(r.get("spaces", ()))))
    if r.get("none"):
        # as for the knights in counties: "no" alone, or "pay nothing", is not guessed
        if r.get("pay") or spaces or not r.get("turn") or r.has("squires"):
            raise Unreadable(
                "say 'pay for all extensions' or which to turn over, e.g. 'turn over "
                "extension 3' ('no' alone could mean either)"
            )
        return ("turn_over", ())
    if r.get("pay"):
        if spaces or r.get("turn"):
            raise Unreadable(
                "say only the extensions to turn over, e.g. 'turn over extension 3', or "
                "'pay for all extensions'"
            )
        said = r.get("squires")
        if said is not None and said != len(live):
            raise Unreadable(f"paying for all costs {plural(len(live), 'squire')}, not {said}")
        return ("turn_over", ())
    if r.has("squires"):
        raise Unreadable("say 'pay for all extensions' or which extensions to turn over")
    if not r.get("turn"):
        raise Unreadable("say 'pay for all extensions' or 'turn over extension 3'")
    if r.get("all"):
        if spaces:
            raise Unreadable("say either all or the castle spaces, not both")
        return ("turn_over", tuple(live))
    if not spaces:
        if len(live) != 1:
            raise Unreadable("say which extensions to turn over, e.g. 'turn over extension 3'")
        spaces = tuple(live)
    return ("turn_over", spaces)


def _exchange_amount(r: Reading, i: int) -> int:
    """``4 gold``, ``2 squires``, ``a squire``, ``a gold``: recorded on the side being read
    (what is given, or after ``for`` / ``get``: what is got)."""
    w = r.words
    n = number(w[i])
    if n is None and w[i] in ("a", "an"):
        n = 1
    if n is None or i + 1 >= len(w):
        return 0
    what = {"gold": "gold", "squire": "squires", "squires": "squires"}.get(w[i + 1])
    if what is None:
        return 0
    side = r.features.get("_side", "give")
    r.set(side, (what, n))
    return 2


def _side(value: str, *ws: str) -> Phrase:
    accepted = frozenset(ws)

    def phrase(r: Reading, i: int) -> int:
        if r.words[i] not in accepted:
            return 0
        r.features["_side"] = value
        r.features["_verb"] = True
        return 1

    return phrase


def _for(r: Reading, i: int) -> int:
    if r.words[i] not in ("for", "into", "against"):
        return 0
    r.features["_side"] = "give" if r.features.get("_side") == "get" else "get"
    return 1


def _parse_exchange(state: State, seat: int, w: list[str]) -> Action:
    rate = _rate(state)
    r = read(
        w,
        [
            _exchange_amount,
            _for,
            _side("give", "exchange", "trade", "swap", "give", "sell", "change", "convert"),
            _side("get", "get", "buy", "receive"),
            keyphrase("none", True, word(*NO_WORDS), "exchange"),
            NONE,
        ],
    )
    give: Any = r.get("give")
    get: Any = r.get("get")
    if r.get("none"):
        if give or get:
            raise Unreadable("say either an exchange or no exchange, not both")
        return ("exchange", None)
    if give is None and get is None:
        raise Unreadable("say what you exchange, e.g. 'exchange 4 gold for 2 squires'")
    if give is not None and get is not None and give[0] == get[0]:
        raise Unreadable("an exchange gives gold for squires or squires for gold")
    if get is None:
        what = "squires" if give[0] == "gold" else "gold"
        if give[1] % rate:
            raise Unreadable(f"the exchange is {rate} for 1: give a multiple of {rate}")
        get = (what, give[1] // rate)
    if give is not None and give[1] != rate * get[1]:
        raise Unreadable(
            f"the exchange is {rate} for 1: {_amount(get[0], get[1])} cost "
            f"{_amount('gold' if get[0] == 'squires' else 'squires', rate * get[1])}"
        )
    if get[1] == 0:
        return ("exchange", None)
    return ("exchange", (get[0], get[1]))


def _parse_batches(state: State, seat: int, w: list[str]) -> Action:
    r = read(
        w,
        [
            counted("n", word("batch"), word("batches")),
            bare_number("n", once=True),
            NONE,
            _ignore("buy", "spend", "batch", "batches"),
        ],
    )
    if r.get("none"):
        if r.get("n"):
            raise Unreadable("say either a number or none, not both")
        return ("batches", 0)
    if not r.has("n"):
        raise Unreadable("say how many batches, e.g. 'buy 2 batches', or none")
    return ("batches", r.get("n"))


def parse(state: State, frame: Frame, seat: int, verb: str, w: list[str]) -> Action:
    """The action ``w`` names for a New Laws choice whose verb is ``verb``."""
    if verb == "send":
        return _parse_send(state, seat, w)
    if verb == "buy_extension":
        return _parse_buy_extension(state, frame, seat, w)
    if verb == "recall":
        return _parse_recall(state, seat, w)
    if verb == "turn_over":
        return _parse_turn_over(state, seat, w)
    if verb == "exchange":
        return _parse_exchange(state, seat, w)
    return _parse_batches(state, seat, w)
