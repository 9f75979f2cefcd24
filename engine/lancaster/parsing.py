"""The phrases of each Lancaster decision, and how their features make one action.

``parse_words`` reads a line for the decision at the head of the agenda (see ``reading.py``
for the rule that every word is accounted for). What is left out is filled in only when it
can mean one thing (one strength at your court, one knight that can be upgraded); otherwise
the line is unreadable and the player is told what to add.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine.core.notation import GREETING_WORDS
from engine.core.protocol import Action
from engine.lancaster import actions, flow
from engine.lancaster.pieces import favor_names
from engine.lancaster.reading import (
    NO_WORDS,
    PREPOSITIONS,
    Phrase,
    Reading,
    Unreadable,
    at,
    bare_number,
    counted,
    county,
    keyphrase,
    keyword,
    knight_ref,
    match_ref,
    number,
    numbered,
    read,
    word,
)
from engine.lancaster.reward_phrases import county_named, i_start, reads_as_printed, reward_named
from engine.lancaster.state import COLOUR_NAMES, Frame, State

#: Extension point: a word that alone names where a knight goes (The King's Resentment:
#: "tower"), filled by ``wiring.py`` like the two below
TARGET_WORDS: dict[str, tuple[str, Any]] = {}
#: Extension point: a placement turn's other actions, read whole by their reader when the
#: reply holds its word, ``(state, seat, words) -> action`` (At the King's Court: "lord")
PLACEMENT_READERS: dict[str, Callable[[State, int, list[str]], Action]] = {}
#: Extension point: what a reply may place with a knight, by the verb of the action it makes,
#: ``(verb, what the phrase read, ally, strength, target, squires)`` (At the King's Court:
#: a privilege, "with the shield")
WITH_KNIGHT: dict[str, Phrase] = {}
#: Extension point: the law choices that count something, by verb, and the phrase that reads
#: the count (Laws of the King: seals)
COUNTED_CHOICES: dict[str, Phrase] = {
    "markers": counted("n", word("marker"), word("markers")),
    "power": counted("n", word("point"), word("points"), prefix="power"),
    "trade": counted("n", word("time", "trade"), word("times", "trades")),
}
#: Extension point: the choices of an expansion's laws, by verb, ``(state, frame, seat, verb,
#: words) -> action`` (The New Laws)
LAW_CHOICE_READERS: dict[str, Callable[[State, Frame, int, str, list[str]], Action]] = {}

SQUIRES = counted("squires", word("squire"), word("squires"))
#: The verbs of placing a piece as people write them ("I'm placing knight 2 on C", "my lord
#: goes to the treasury"), for every kind of placement (a knight's, At the King's Court's
#: lord's); docs/lancaster-notation.md lists them.
PLACING_VERBS = (
    *("place", "places", "placing", "put", "puts", "putting", "send", "sends", "sending"),
    *("move", "moves", "moving", "goes", "going", "drop", "drops", "dropping"),
)
IGNORED_IN_PLACEMENT = keyword("_", None, "knight", *PLACING_VERBS, *PREPOSITIONS)
#: Extension point: what a placement read by one of ``PLACEMENT_READERS`` is called in an
#: error ("your lord's placement (e.g. 'lord to chancellor')"), by the same word
PLACEMENT_KINDS: dict[str, str] = {}
#: "I'll go with extension 1", "I'm going with the reward": the courtesy of choosing, whose
#: "with" names no piece. decision (ours): only right after "go"/"going", so that "knight 2
#: with 1 squire" keeps its "with".
_GO_WITH = frozenset({"go", "going"})


def without_go_with(w: list[str]) -> list[str]:
    """The words without the "with" of "go with" (see ``_GO_WITH``)."""
    return [x for i, x in enumerate(w) if not (x == "with" and i and w[i - 1] in _GO_WITH)]


def placement_kind(w: list[str]) -> str | None:
    """What the placement ``w`` is making is called, when an expansion's reader reads it."""
    return next((kind for key, kind in PLACEMENT_KINDS.items() if key in w), None)


def _target(r: Reading, i: int) -> int:
    """``to castle 2``, ``castle space 2``, ``space 2``, ``conflict 7``, ``card 7``."""
    w = r.words
    j = i + 1 if w[i] in PREPOSITIONS else i
    if j > i and j < len(w) and w[j] == "the":
        j += 1
    if j >= len(w):
        return 0
    if w[j] in TARGET_WORDS:
        r.set("target", TARGET_WORDS[w[j]])
        return j + 1 - i
    kinds = {"castle": "castle", "space": "castle", "conflict": "conflict", "card": "conflict"}
    kinds["battle"] = "conflict"
    if w[j] not in kinds:
        return 0
    k = j + 1
    if w[j] == "castle" and k < len(w) and w[k] == "space":
        k += 1
    if k < len(w) and number(w[k]) is not None:
        r.set("target", (kinds[w[j]], number(w[k])))
        return k + 1 - i
    return 0


def _county_target(r: Reading, i: int) -> int:
    trial = Reading(r.words, {})
    n = county("c")(trial, i)
    if n:
        r.set("target", ("county", trial.features["c"]))
    return n


def _article_knight(r: Reading, i: int) -> int:
    return 2 if at(r, i, word("a", "an"), "knight") else 0


def _parse_place(state: State, frame: Frame, seat: int, w: list[str]) -> Action:
    for key_word, reader in PLACEMENT_READERS.items():
        if key_word in w:
            return reader(state, seat, w)
    r = read(
        w,
        [
            keyword("ally", True, "ally", "allied"),
            numbered("strength", "knight", "strength"),
            _article_knight,
            _target,
            _county_target,
            SQUIRES,
            bare_number("strength"),
            IGNORED_IN_PLACEMENT,
            *WITH_KNIGHT.values(),
            keyword("_", None, "and"),
            # from 2.0.0: the counties by their printed names ("knight 1 to York")
            *([county_named(state)] if reads_as_printed(state) else []),
        ],
    )
    ally = bool(r.get("ally", False))
    if not r.has("target"):
        raise Unreadable("say where the knight goes (a county letter, 'castle 2', 'conflict 7')")
    strength = r.get("strength")
    if strength is None:
        colour = state.ally_of(seat) if ally else seat
        court = set(state.colours[colour].court) if colour is not None else set()
        if len(court) != 1:
            raise Unreadable("say which knight: its strength, e.g. 'knight 2'")
        strength = next(iter(court))
    for verb in WITH_KNIGHT:
        if r.has(verb):
            return (verb, r.get(verb), ally, strength, r.get("target"), r.get("squires", 0))
    return actions.Place("place", ally, strength, r.get("target"), r.get("squires", 0))


def _all_markers(r: Reading, i: int) -> int:
    w = r.words
    j = i + 1 if w[i] in {"with", "plus", "add", "adding"} else i
    if j >= len(w) or w[j] != "all":
        return 0
    k = j + 1
    if k < len(w) and w[k] == "my":
        k += 1
    if k < len(w) and w[k] == "voting":
        k += 1
    if k < len(w) and w[k] == "markers":
        r.set("markers", "all")
        return k + 1 - i
    return 0


def _parse_vote(state: State, frame: Frame, seat: int, w: list[str]) -> Action:
    r = read(
        w,
        [
            keyword("yes", True, "yes", "aye", "yea", "y", "for", "approve", "agree", "pro"),
            keyword("yes", False, "no", "nay", "n", "against", "reject", "disagree", "contra"),
            counted("markers", word("marker"), word("markers")),
            _all_markers,
            bare_number("markers", once=True),
            keyword("_", None, "vote", "votes", "voting", "add"),
        ],
    )
    if not r.has("yes"):
        raise Unreadable("say yes or no")
    markers = r.get("markers", 0)
    if markers == "all":
        markers = state.colours[seat].voting_markers
    return actions.Vote("vote", r.get("yes"), markers)


_FAVOR_WORDS: dict[str, tuple[tuple[str, ...], ...]] = {
    "new knight": (("new", "knight"), ("new",), ("recruit",)),
    "upgrade": (("upgrade",),),
    "gold": (("gold",),),
    "squires": (("squire",), ("squires",)),
    "voting markers": (
        ("voting", "markers"),
        ("voting", "marker"),
        ("markers",),
        ("marker",),
        ("votes",),
    ),
    "power points": (("power", "points"), ("power", "point"), ("power",), ("points",)),
}
_NOBLE = word("noble", "nobleman", "noblemen", "nobles")


def _parse_favor(state: State, frame: Frame, seat: int, w: list[str]) -> Action:
    names = favor_names(state)
    by_name = {n: t for t, n in names.items() if n}
    phrases: list[Phrase] = [
        numbered("tile", "favor", "favour", "tile"),
        keyword("_", None, "favor", "favour", "tile", "king"),
    ]
    for fav, forms in _FAVOR_WORDS.items():
        if fav in by_name:
            phrases.extend(keyphrase("tile", by_name[fav], *form) for form in forms)
    if "nobleman" in by_name:
        tile = by_name["nobleman"]

        def noble(r: Reading, i: int) -> int:
            if r.words[i] not in _NOBLE:
                return 0
            r.set("tile", tile)
            trial = Reading(r.words, {})
            n = county("c", any_letter=True)(trial, i + 1) if i + 1 < len(r.words) else 0
            if n:
                r.set("letter", trial.features["c"])
            return 1 + n

        phrases.append(noble)
    phrases += knight_ref()
    r = read(w, phrases)
    tile = r.get("tile")
    if tile is None:
        raise Unreadable("say which favor tile, e.g. 'favor gold' or 'favor 3'")
    if tile not in names:
        raise Unreadable(f"there is no king's favor tile {tile}")
    options = flow.legal_actions(state, seat)
    details = [o[2] for o in options if o[1] == tile]
    if not details:
        return actions.Favor("favor", tile, None)  # not face up: the rules say so
    reward = state.data.favor(tile).reward
    if reward.choice() == "upgrade":
        ref = match_ref(r, details)
        if ref is None:
            if len(details) != 1:
                raise Unreadable("say which knight to upgrade, e.g. 'knight 2 at court'")
            ref = details[0]
        return actions.Favor("favor", tile, ref)
    where = str(r.get("where", ""))
    if where.startswith("county ") and not r.has("strength"):
        r.set("letter", where[len("county ") :])  # "noble Gloucester", "nobleman, to B"
        r.features.pop("where")
    if r.has("strength") or r.has("where"):
        raise Unreadable("this favor tile upgrades no knight")
    if reward.choice() == "nobleman":
        found = r.get("letter")
        if found is None:
            if len(details) != 1:
                raise Unreadable("say which nobleman, e.g. 'favor nobleman B'")
            found = details[0]
        return actions.Favor("favor", tile, found)
    if r.has("letter"):
        raise Unreadable("this favor tile names no county")
    return actions.Favor("favor", tile, details[0] if len(details) == 1 else None)


def _colour_phrases(key: str, state: State, seat: int) -> list[Phrase]:
    names = [c.lower() for c in COLOUR_NAMES[: state.players]]
    out: list[Phrase] = [_colour(key, s, name) for s, name in enumerate(names)]
    out.append(keyword(key, seat, "me", "myself"))
    return out


def _colour(key: str, colour: int, name: str) -> Phrase:
    """A colour naming a player ("Hi Blue, noble" does not make Blue the start player)."""
    return _not_greeted(keyword(key, colour, name), name)


def _not_greeted(plain: Phrase, *ws: str) -> Phrase:
    """``plain``, except that one of ``ws`` right after "hi" or "hello" greets someone ("Hi
    Blue", "Hi both") rather than naming a choice: such a line is not read."""
    greeted = frozenset(ws)

    def phrase(r: Reading, i: int) -> int:
        w = r.words
        if w[i] in greeted and i > 0 and w[i - 1] in GREETING_WORDS:
            raise Unreadable(f"'{w[i - 1]} {w[i]}' greets someone: name your choice apart")
        return plain(r, i)

    return phrase


def _detail_phrases(choice: str | None, state: State, seat: int) -> list[Phrase]:
    """The phrases of a reward's choice (county, castle space), feature ``detail`` or the
    knight's ``strength``/``where``."""
    if choice == "upgrade":
        return [keyword("_", None, "upgrade"), *knight_ref()]
    if choice == "extension":
        return [
            numbered("detail", "extension", "space", "castle", optional_lead=word("space")),
            keyword("_", None, "extension", "tile"),
            bare_number("detail"),
        ]
    if choice == "conflict_move":

        def conflict(r: Reading, i: int) -> int:
            j = i + 1 if r.words[i] in PREPOSITIONS else i
            n = numbered("detail", "conflict", "card", "battle")(r, j) if j < len(r.words) else 0
            return n + (j - i) if n else 0

        return [conflict, bare_number("detail")]
    if choice == "start_player":
        return [*_colour_phrases("detail", state, seat), *_START_WORDS]
    return []


_START_WORDS = [
    keyword("_", None, "start", "starts", "player", "first", "next", "is", "be", "as", "name")
]


def _pick(details: Sequence[Any], found: Any, what: str) -> Any:
    if found is not None:
        return found
    if len(details) == 1:
        return details[0]  # only one possible choice: nothing to guess
    raise Unreadable(f"say {what}")


def _detail_of(r: Reading, choice: str | None, details: Sequence[Any]) -> Any:
    if details == [None] or not details:
        if r.has("detail") or r.has("strength") or r.has("where"):
            raise Unreadable("there is nothing to choose in this reward")
        return None
    if choice == "upgrade":
        return _pick(details, match_ref(r, details), "which knight to upgrade")
    what = {
        "extension": "which castle space the extension covers",
        "conflict_move": "which conflict the knight moves to",
        "start_player": "who is the next start player",
    }.get(str(choice), "your choice")
    return _pick(details, r.get("detail"), what)


def _gold_for_both(state: State) -> Phrase:
    def phrase(r: Reading, i: int) -> int:
        n = number(r.words[i])
        if n is None or not at(r, i + 1, "gold"):
            return 0
        if n != state.data.both_cost:
            raise Unreadable(f"both costs {state.data.both_cost} gold, not {n}")
        r.set("verb", "both")
        return 2

    return phrase


def _parse_county(state: State, frame: Frame, seat: int, w: list[str]) -> Action:
    from engine.lancaster.phases.rewards import names_start

    i = int(frame[1])
    county = state.data.counties[i]
    reward = county.reward
    choice = reward.choice()
    phrases: list[Phrase] = [
        keyword("verb", "noble", *_NOBLE),
        keyword("verb", "reward", "reward"),
        _not_greeted(keyword("verb", "both", "both", "pay"), "both"),
        keyword("verb", "nothing", "nothing"),
        _gold_for_both(state),
        *_detail_phrases(choice, state, seat),
    ]
    printed = reads_as_printed(state)
    if printed:
        # the reward named by what it gives; the county named as a heading ("Surrey:
        # nobleman, ..."), which changes nothing
        phrases += [reward_named(reward), keyword("_", None, *county.name.lower().split())]
    start = names_start(state, i)
    if start:
        phrases += [*_colour_phrases("start", state, seat), *_START_WORDS]
        phrases += [i_start(seat)] if printed else []
    r = read(w, phrases)
    options = list(flow.legal_actions(state, seat))
    verb = r.get("verb")
    if r.has("named_reward"):
        if verb in ("noble", "nothing"):
            raise Unreadable(f"it names both '{verb}' and the reward: say which")
        verb = verb or "reward"
    if verb is None:
        verbs = sorted({o[0] for o in options})
        if verbs != ["nothing"]:
            raise Unreadable(f"say {' or '.join(v for v in verbs if v != 'nothing')}")
        verb = "nothing"
    tail: tuple[Any, ...] = ()
    if start:
        if not r.has("start") and state.data.start_player_at_once:
            raise Unreadable("name the start player too, e.g. 'Blue starts' or 'I start'")
        if not r.has("start"):
            raise Unreadable("name the next start player too, e.g. 'start player Blue'")
        tail = (r.get("start"),)
        options = [o[:-1] for o in options if o[-1] == r.get("start")]
    if verb in ("noble", "nothing"):
        if r.has("detail") or r.has("strength") or r.has("where"):
            raise Unreadable(f"'{verb}' takes no reward choice")
        return (verb, *tail)
    details = [o[1] for o in options if o[0] == verb] or [o[1] for o in options if o[0] == "reward"]
    return (verb, _detail_of(r, choice, details), *tail)


def _parse_castle(state: State, frame: Frame, seat: int, w: list[str]) -> Action:
    options = flow.legal_actions(state, seat)
    choices = {c for n in frame[2] if (c := state.data.space(n).reward.choice()) is not None}
    phrases: list[Phrase] = [
        numbered("space", "castle", "space", optional_lead=word("space")),
        bare_number("space"),
        keyword("done", True, *NO_WORDS),
        keyword("_", None, "pay", "paying"),
    ]
    for choice in sorted(choices):
        phrases += _detail_phrases(choice, state, seat)
    r = read(w, phrases)
    if r.get("done"):
        if r.has("space"):
            raise Unreadable("say either a castle space or done, not both")
        return ("done",)
    n = r.get("space")
    if n is None:
        raise Unreadable("say which castle space, e.g. 'castle 6', or done")
    details = [o[2] for o in options if o[0] == "castle" and o[1] == n]
    if not details:
        return actions.PayCastle("castle", n, None)  # not a choice now: the rules say why
    return actions.PayCastle(
        "castle", n, _detail_of(r, state.data.space(n).reward.choice(), details)
    )


def _knights(r: Reading, i: int) -> int:
    n = number(r.words[i])
    if n is None:
        return 0
    r.features["knights"] = (*r.features.get("knights", ()), n)
    return 1


def _parse_ransom(state: State, frame: Frame, seat: int, w: list[str]) -> Action:
    r = read(
        w,
        [
            _knights,
            keyword("none", True, *NO_WORDS),
            keyword("_", None, "ransom", "knight", "knights", "buy", "back"),
        ],
    )
    knights = r.get("knights", ())
    if r.get("none"):
        if knights:
            raise Unreadable("say either the knights to ransom or none, not both")
        return actions.Ransom("ransom", ())
    if not knights:
        raise Unreadable("say the strengths of the knights to ransom, or none")
    return actions.Ransom("ransom", tuple(sorted(knights)))


def _parse_law(state: State, frame: Frame, seat: int, w: list[str]) -> Action:
    options = flow.legal_actions(state, seat)
    verb = options[0][0]
    if verb in LAW_CHOICE_READERS:
        return LAW_CHOICE_READERS[verb](state, frame, seat, verb, w)
    none = keyword("none", True, *NO_WORDS)
    if verb in COUNTED_CHOICES:
        nouns = COUNTED_CHOICES
        ignored = keyword("_", None, "buy", "trade", "dispose", "disposes", "return", "sell")
        r = read(w, [nouns[verb], bare_number("n", once=True), none, ignored])
        if r.get("none"):
            if r.get("n"):
                raise Unreadable("say either a number or none, not both")
            return (verb, 0)
        if not r.has("n"):
            raise Unreadable("say how many, e.g. '2', or none")
        return (verb, r.get("n"))
    if verb == "swap":
        r = read(
            w,
            [
                keyphrase("swap", False, word(*NO_WORDS), "swap"),
                keyword("swap", True, "swap", "yes", "y"),
                keyword("swap", False, *NO_WORDS),
            ],
        )
        if not r.has("swap"):
            raise Unreadable("say swap or no swap")
        return ("swap", r.get("swap"))
    if verb == "extension":
        r = read(
            w,
            [
                keyphrase("none", True, word(*NO_WORDS), "extension"),
                none,
                *_detail_phrases("extension", state, seat),
            ],
        )
        if r.get("none"):
            if r.has("detail"):
                raise Unreadable("say either a castle space or no extension, not both")
            return ("extension", None)
        if not r.has("detail"):
            raise Unreadable("say which castle space, e.g. 'extension 4', or no extension")
        return ("extension", r.get("detail"))
    if verb == "upgrade":
        r = read(
            w,
            [
                keyphrase("none", True, word(*NO_WORDS), "upgrade"),
                none,
                *_detail_phrases("upgrade", state, seat),
            ],
        )
        refs = [o[1] for o in options if o[1] is not None]
        if r.get("none"):
            if r.has("strength") or r.has("where"):
                raise Unreadable("say either a knight or no upgrade, not both")
            return ("upgrade", None)
        ref = match_ref(r, refs)
        if ref is None:
            raise Unreadable("say which knight to upgrade, e.g. 'upgrade knight 2 at court'")
        return ("upgrade", ref)
    raise Unreadable("this choice has no notation")


def _parse_setup(state: State, frame: Frame, seat: int, w: list[str]) -> Action:
    r = read(
        w,
        [
            numbered("n", "extension", "tile", "space", "castle", optional_lead=word("space")),
            bare_number("n"),
            keyword("_", None, "extension", "tile", "first", *PREPOSITIONS),
        ],
    )
    if not r.has("n"):
        raise Unreadable("say which castle space, e.g. 'extension 2'")
    return ("extension", r.get("n"))


PARSERS: dict[str, Callable[[State, Frame, int, list[str]], Action]] = {
    "setup": _parse_setup,
    "place": _parse_place,
    "vote": _parse_vote,
    "favor": _parse_favor,
    "county": _parse_county,
    "castle_paid": _parse_castle,
    "ransom": _parse_ransom,
    "law_choice": _parse_law,
    "ally_castle": _parse_law,  # an upgrade, read as a law's ("upgrade knight 1 at court")
}


def parse_words(state: State, frame: Frame, seat: int, w: list[str]) -> Action:
    if not w:
        raise Unreadable("the line is empty")
    parser = PARSERS.get(str(frame[0]))
    if parser is None:
        raise Unreadable("nothing can be typed for this step")
    return parser(state, frame, seat, without_go_with(w))
