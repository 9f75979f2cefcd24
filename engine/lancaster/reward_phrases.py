"""Phrases of rules 2.0.0 (Lancaster as printed), as people write them: a county's reward
named by what it gives and the start player ("take the gold and squires, Blue starts",
"both, I start"), used by ``parsing._parse_county``; a county by its printed name ("knight 1
to York"), used by ``parsing._parse_place``."""

from __future__ import annotations

from engine.lancaster.data import Reward
from engine.lancaster.reading import PREPOSITIONS, Phrase, Reading, keyphrase, number, word
from engine.lancaster.state import State


def reads_as_printed(state: State) -> bool:
    """Whether these phrases are read: from rules 2.0.0 on. A 1.0.0 game reads replies as it
    always did (its phrasing corpus pins "gold and squire" and "noble, I start" as
    unreadable there)."""
    return state.data.release != "1.0.0"


_RESOURCE_NOUNS = (
    ("gold", word("gold"), word("gold")),
    ("squires", word("squire"), word("squires")),
    ("voting_markers", word("marker", "vote"), word("markers", "votes")),
    ("power", word("point"), word("points")),
)


def reward_named(reward: Reward) -> Phrase:
    """The county's reward named by what it gives ("the gold and squires", "2 gold and 2
    squires"): feature ``named_reward``. A number must be the printed one ("3 gold" is
    paying for both, read by ``_gold_for_both``)."""
    given = {key: int(getattr(reward, key)) for key, _, _ in _RESOURCE_NOUNS}

    def phrase(r: Reading, i: int) -> int:
        w = r.words
        n = number(w[i])
        j = i + 1 if n is not None else i
        lead = 1 if j < len(w) and w[j] in ("voting", "power") else 0
        if j + lead >= len(w):
            return 0
        noun = w[j + lead]
        for key, one, many in _RESOURCE_NOUNS:
            if noun not in one | many or not given[key]:
                continue
            if lead and w[j] != {"voting_markers": "voting", "power": "power"}.get(key):
                return 0
            if n is not None and n != given[key]:
                return 0  # another amount: not this reward
            r.set("named_reward", True)
            return j + lead + 1 - i
        return 0

    return phrase


def i_start(seat: int) -> Phrase:
    """ "I start", "I'll start", "I will start", "me first": the writer starts."""
    me = word("i", "i'll", "me")
    verb = word("start", "starts", "begin", "first")
    long_form = keyphrase("start", seat, me, word("will", "shall"), verb)
    short_form = keyphrase("start", seat, me, verb)

    def phrase(r: Reading, i: int) -> int:
        trial = Reading(r.words, dict(r.features))
        n = long_form(trial, i)
        if n:
            r.features = trial.features
            return n
        return short_form(r, i)

    return phrase


def county_named(state: State) -> Phrase:
    """``[to] [the] [county] [of] <printed name>``: the county's letter as ``target``."""
    letters = {c.name.lower(): c.letter for c in state.data.counties}

    def phrase(r: Reading, i: int) -> int:
        w = r.words
        j = i + 1 if w[i] in PREPOSITIONS else i
        while j < len(w) and w[j] in ("the", "county", "of"):
            j += 1  # "to the county of York"
        if j < len(w) and w[j] in letters:
            r.set("target", ("county", letters[w[j]]))
            return j + 1 - i
        return 0

    return phrase
