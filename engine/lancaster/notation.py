"""Email notation: ``format_action`` writes the canonical text of an action and
``parse_action`` reads what a player typed — forgiving about case, extra words, commas and
word order — for the decision the seat faces now. See ``docs/lancaster-notation.md``.

Canonical forms (each parses back to the same action):

- setup: ``extension 3``
- placement: ``knight 3 to D with 2 squires``, ``knight 1 to castle 2``,
  ``knight 2 to conflict 7``, ``ally knight 2 to E`` (2 players)
- king's favor: ``favor gold``, ``favor upgrade knight 2 at court``, ``favor nobleman B``
- vote: ``vote yes 2`` (2 voting markers added), ``vote no``
- laws: ``buy 3 voting markers``, ``buy 2 power points``, ``trade 2``, ``no upgrade``,
  ``upgrade knight 3 in county D``, ``swap``, ``no swap``, ``extension 4``, ``no extension``
- county: ``noble``, ``reward``, ``both``, with the reward's choice:
  ``reward upgrade knight 2 at court``, ``both extension 3``, ``reward to conflict 7``,
  ``reward start player Blue``
- castle: ``castle 6``, ``castle 5 upgrade knight 1 at court``, ``done``
- ransom: ``ransom 1 3``, ``ransom none``
"""

from __future__ import annotations

from typing import Any

from engine.core.notation import examples, quote
from engine.core.notation import words as split_words
from engine.core.protocol import Action, ActionSyntaxError, NotYourTurnError
from engine.lancaster import flow
from engine.lancaster.data import COUNTY_LETTERS, Reward
from engine.lancaster.pieces import describe_detail, describe_ref, plural
from engine.lancaster.state import COLOUR_NAMES, Frame, State

NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
        ]
    )
}
COUNTY_NAMES = {"gloucester": "D", "dorset": "H", "surrey": "I"}
NO_WORDS = {"no", "none", "nothing", "skip", "decline", "pass", "done", "stop", "nay", "n"}
YES_WORDS = {"yes", "aye", "y", "for", "approve", "pro"}
AGAINST_WORDS = {"no", "nay", "n", "against", "reject", "contra"}


# -- formatting -------------------------------------------------------------------------------


def favor_names(state: State) -> dict[int, str]:
    """Each favor tile's name in the notation; "tile N" where two tiles would share one."""
    names = {f.number: _reward_name(f.reward) for f in state.data.favors}
    counts: dict[str, int] = {}
    for n in names.values():
        counts[n] = counts.get(n, 0) + 1
    return {t: (n if counts[n] == 1 and n else f"tile {t}") for t, n in names.items()}


def _reward_name(reward: Reward) -> str:
    if reward.new_knight:
        return "new knight"
    if reward.upgrade:
        return "upgrade"
    if reward.nobleman:
        return "nobleman"
    kinds = [
        k
        for k, v in (
            ("gold", reward.gold),
            ("squires", reward.squires),
            ("voting markers", reward.voting_markers),
            ("power points", reward.power),
        )
        if v
    ]
    return kinds[0] if len(kinds) == 1 else ""


def format_action(state: State, action: Action) -> str:
    verb = action[0]
    if verb == "place":
        _, ally, strength, target, squires = action
        who = "ally knight" if ally else "knight"
        if target[0] == "county":
            sq = f" with {plural(squires, 'squire')}" if squires else ""
            return f"{who} {strength} to {target[1]}{sq}"
        return f"{who} {strength} to {target[0]} {target[1]}"
    if verb == "favor":
        _, tile, detail = action
        reward = state.data.favor(tile).reward
        name = favor_names(state)[tile]
        extra = ""
        if detail is not None:
            extra = " " + (
                describe_ref(_ref(detail)) if reward.choice() == "upgrade" else str(detail)
            )
        return f"favor {name}{extra}"
    if verb == "vote":
        return f"vote {'yes' if action[1] else 'no'}" + (f" {action[2]}" if action[2] else "")
    if verb == "extension":
        return "no extension" if action[1] is None else f"extension {action[1]}"
    if verb == "markers":
        return f"buy {plural(action[1], 'voting marker')}"
    if verb == "power":
        return f"buy {plural(action[1], 'power point')}"
    if verb == "trade":
        return f"trade {action[1]}"
    if verb == "upgrade":
        return "no upgrade" if action[1] is None else f"upgrade {describe_ref(_ref(action[1]))}"
    if verb == "swap":
        return "swap" if action[1] else "no swap"
    if verb == "noble":
        return "noble"
    if verb in ("reward", "both"):
        frame = state.agenda[0] if state.agenda else ("county", 0)
        reward = state.data.counties[int(frame[1])].reward if frame[0] == "county" else Reward()
        return f"{verb} {describe_detail(state, reward, action[1])}".strip()
    if verb == "castle":
        reward = state.data.space(action[1]).reward
        return f"castle {action[1]} {describe_detail(state, reward, action[2])}".strip()
    if verb == "done":
        return "done"
    if verb == "ransom":
        return "ransom " + (" ".join(map(str, action[1])) if action[1] else "none")
    raise ValueError(f"unknown Lancaster action {action!r}")


def _ref(detail: Any) -> tuple[int, str]:
    return int(detail[0]), str(detail[1])


# -- reading ----------------------------------------------------------------------------------


def tokens(text: str) -> list[str]:
    """Words of ``text``: lower case, punctuation dropped, ``+2`` read as ``plus 2``,
    number words as digits."""
    raw = split_words(text.replace("+", " plus ").replace("(", " ").replace(")", " "))
    return [str(NUMBER_WORDS[w]) if w in NUMBER_WORDS else w for w in raw]


def _num(tok: str) -> int | None:
    return int(tok) if tok.isdigit() and len(tok) <= 3 else None


def _number_after(toks: list[str], keys: set[str], used: set[int]) -> int | None:
    for i, t in enumerate(toks[:-1]):
        if t in keys:
            n = _num(toks[i + 1])
            if n is not None:
                used.add(i + 1)
                return n
    return None


def _first_number(toks: list[str], used: set[int]) -> int | None:
    for i, t in enumerate(toks):
        n = _num(t)
        if n is not None and i not in used:
            used.add(i)
            return n
    return None


def _county(toks: list[str], any_letter: bool = False) -> str | None:
    for i, t in enumerate(toks):
        if t in COUNTY_NAMES:
            return COUNTY_NAMES[t]
        if len(t) == 1 and t.upper() in COUNTY_LETTERS:
            prev = toks[i - 1] if i else ""
            # "a" and "i" are words too: they name a county only in context ("to A",
            # "3 a", "county i"), unless nothing but a letter can be meant here.
            if (
                any_letter
                or t not in {"a", "i"}
                or prev in {"county", "to", "in", "into", "on", "at"}
                or _num(prev) is not None
            ):
                return t.upper()
    return None


def _colour(state: State, toks: list[str], seat: int) -> int | None:
    lower = [c.lower() for c in COLOUR_NAMES[: state.players]]
    for t in toks:
        if t in lower:
            return lower.index(t)
        if t in {"me", "myself", "i", "mine"}:
            return seat
    n = _number_after(toks, {"player", "seat"}, set())
    if n is not None and 1 <= n <= state.players:
        return n - 1
    return None


def _knight_ref(toks: list[str], legal: list[Any]) -> Any:
    """A knight reference from words like "knight 2 at court", "3 in D", "1 castle 4";
    the place may be left out when only one legal knight has that strength."""
    used: set[int] = set()
    where: str | None = None
    castle = _number_after(toks, {"castle", "space"}, used)
    conflict = _number_after(toks, {"conflict", "card", "france", "battle"}, used)
    if castle is not None:
        where = f"castle {castle}"
    elif conflict is not None:
        where = f"conflict {conflict}"
    elif "court" in toks:
        where = "court"
    else:
        letter = _county(toks)
        if letter:
            where = f"county {letter}"
    strength = _number_after(toks, {"knight", "strength", "k"}, used)
    if strength is None:
        strength = _first_number(toks, used)
    refs = [r for r in legal if r is not None]
    if strength is None and where is None:
        return None
    matches = [
        r
        for r in refs
        if (strength is None or r[0] == strength) and (where is None or r[1] == where)
    ]
    if len(matches) == 1:
        return matches[0]
    if strength is not None and where is not None:
        return (strength, where)
    return None


def parse_action(state: State, seat: int, text: str) -> Action:
    h = flow.head(state)
    if h is None:
        raise NotYourTurnError("The game is over: there is nothing to play.")
    frame, hd = h
    if seat not in hd.seats(state, frame):
        raise NotYourTurnError(f"It is not your turn: {hd.waiting(state, frame)}")
    toks = tokens(text)
    action = _parse(state, frame, seat, toks)
    if action is None:
        raise ActionSyntaxError(
            f"Could not read {quote(text)!r} as {_what(frame)}.",
            can_type=can_type(state, seat),
        )
    flow.check(state, seat, action)
    return action


def can_type(state: State, seat: int) -> tuple[str, ...]:
    """Examples of what ``seat`` can type now: every legal action when there are few, else a
    spread (one per knight and kind of target, or per kind of choice)."""
    legal = flow.legal_actions(state, seat)
    if len(legal) <= 12:
        return tuple(format_action(state, a) for a in legal)
    seen: set[tuple[Any, ...]] = set()
    spread: list[Action] = []
    for a in legal:
        if a[0] == "place":
            key: tuple[Any, ...] = (a[0], a[1], a[2], a[3][0])
        else:
            key = (a[0], a[1] if len(a) > 1 and not isinstance(a[1], tuple) else None)
        if key not in seen:
            seen.add(key)
            spread.append(a)
    return examples((format_action(state, a) for a in spread), limit=12)


def _what(frame: Frame) -> str:
    return {
        "setup": "the choice of your first extension tile (e.g. 'extension 2')",
        "place": "a knight's placement (e.g. 'knight 2 to D with 1 squire')",
        "favor": "a king's favor tile (e.g. 'favor gold')",
        "vote": "a vote (e.g. 'vote yes 2' or 'vote no')",
        "law_choice": "your choice for this law",
        "county": "a county reward choice ('noble', 'reward' or 'both')",
        "castle_paid": "a castle space to pay for (e.g. 'castle 6') or 'done'",
        "ransom": "a ransom (e.g. 'ransom 2' or 'ransom none')",
    }.get(str(frame[0]), "an action")


def _parse(state: State, frame: Frame, seat: int, toks: list[str]) -> Action | None:
    kind = str(frame[0])
    if not toks:
        return None
    hd = flow.handler(frame)
    if kind == "setup":
        n = _first_number(toks, set())
        return ("extension", n) if n is not None else None
    if kind == "place":
        return _parse_place(state, seat, toks)
    if kind == "vote":
        return _parse_vote(toks)
    if kind == "favor":
        return _parse_favor(state, hd.options(state, frame, seat), toks)
    if kind == "county":
        return _parse_county(state, frame, seat, hd.options(state, frame, seat), toks)
    if kind == "castle_paid":
        return _parse_castle(state, hd.options(state, frame, seat), toks)
    if kind == "ransom":
        if set(toks) & NO_WORDS:
            return ("ransom", ())
        nums = [n for n in (_num(t) for t in toks) if n is not None]
        return ("ransom", tuple(sorted(nums))) if nums else None
    if kind == "law_choice":
        return _parse_law(state, hd.options(state, frame, seat), toks)
    return None


def _parse_place(state: State, seat: int, toks: list[str]) -> Action | None:
    ally = "ally" in toks or "allied" in toks
    used: set[int] = set()
    target: tuple[Any, ...] | None = None
    castle = _number_after(toks, {"castle"}, used)
    conflict = _number_after(toks, {"conflict", "card", "france", "battle"}, used)
    if castle is not None:
        target = ("castle", castle)
    elif conflict is not None:
        target = ("conflict", conflict)
    squires = _number_after(toks, {"plus", "with"}, used)
    if squires is None:
        for i, t in enumerate(toks):
            if t in {"squire", "squires"}:
                if i and _num(toks[i - 1]) is not None and i - 1 not in used:
                    squires = _num(toks[i - 1])
                    used.add(i - 1)
                elif i + 1 < len(toks) and _num(toks[i + 1]) is not None:
                    squires = _num(toks[i + 1])
                    used.add(i + 1)
    strength = _number_after(toks, {"knight", "strength", "k"}, used)
    if strength is None:
        strength = _first_number(toks, used)
    if target is None:
        letter = _county(toks)
        if letter is None:
            return None
        target = ("county", letter)
    if strength is None:
        colour = state.ally_of(seat) if ally else seat
        court = set(state.colours[colour].court) if colour is not None else set()
        if len(court) != 1:
            return None
        strength = next(iter(court))
    return ("place", ally, strength, target, squires or 0)


def _parse_vote(toks: list[str]) -> Action | None:
    words = set(toks)
    yes = bool(words & YES_WORDS)
    no = bool(words & AGAINST_WORDS)
    if yes == no:
        return None
    markers = _first_number(toks, set())
    return ("vote", yes, markers or 0)


def _parse_favor(state: State, options: list[Action], toks: list[str]) -> Action | None:
    names = favor_names(state)
    used: set[int] = set()
    tile = _number_after(toks, {"favor", "favour", "tile"}, used)
    rest = [t for i, t in enumerate(toks) if i not in used]
    if tile is None:
        keys = {
            "new knight": {"new", "recruit"},
            "upgrade": {"upgrade"},
            "nobleman": {"noble", "nobleman", "nobles", "noblemen"},
            "gold": {"gold"},
            "squires": {"squire", "squires"},
            "voting markers": {"marker", "markers", "voting", "votes"},
            "power points": {"power", "points"},
        }
        for t, n in sorted(names.items()):
            if n in keys and set(rest) & keys[n]:
                tile = t
                break
    if tile is None:
        return None
    details = [o[2] for o in options if o[1] == tile]
    if details in ([], [None]):
        return ("favor", tile, None)
    reward = state.data.favor(tile).reward
    if reward.choice() == "upgrade":
        ref = _knight_ref([t for t in rest if t != "upgrade"], details)
        return ("favor", tile, ref) if ref is not None else None
    letter = _county([t for t in rest if t not in {"favor", "favour", "tile"}], any_letter=True)
    if letter is None and len(details) == 1:
        letter = details[0]
    return ("favor", tile, letter) if letter is not None else None


def _detail(state: State, reward: Reward, details: list[Any], toks: list[str], seat: int) -> Any:
    choice = reward.choice()
    if details == [None]:
        return None
    found: Any = None
    if choice == "upgrade":
        found = _knight_ref([t for t in toks if t != "upgrade"], details)
    elif choice in ("extension", "conflict_move"):
        found = _first_number(toks, set())
    elif choice == "start_player":
        found = _colour(state, toks, seat)
    elif choice == "nobleman":
        found = _county(toks, any_letter=True)
    if found is None and len(details) == 1:
        found = details[0]  # nothing said, and only one possible choice
    return found


def _parse_county(
    state: State, frame: Frame, seat: int, options: list[Action], toks: list[str]
) -> Action | None:
    words = set(toks)
    if words & {"both", "pay"}:
        verb = "both"
    elif words & {"noble", "nobleman"} and "reward" not in words:
        verb = "noble"
    else:
        verb = "reward"
    if verb == "noble":
        return ("noble",)
    reward = state.data.counties[int(frame[1])].reward
    details = [o[1] for o in options if o[0] == verb] or [o[1] for o in options if o[0] == "reward"]
    rest = [t for t in toks if t not in {"reward", "both", "pay", "noble", "nobleman"}]
    if verb == "reward" and "reward" not in words and not rest:
        return None
    detail = _detail(state, reward, details, rest, seat)
    if detail is None and details != [None]:
        return None
    return (verb, detail)


def _parse_castle(state: State, options: list[Action], toks: list[str]) -> Action | None:
    used: set[int] = set()
    n = _number_after(toks, {"castle", "space"}, used)
    if n is None:
        if set(toks) & NO_WORDS:
            return ("done",)
        n = _first_number(toks, used)
    if n is None or n not in range(1, 7):
        return None
    # Drop the space's own words; "castle" may appear again in the knight's place.
    drop = set(used) | {i - 1 for i in used if i and toks[i - 1] in {"castle", "space"}}
    rest = [t for i, t in enumerate(toks) if i not in drop]
    details = [o[2] for o in options if o[0] == "castle" and o[1] == n] or [None]
    detail = _detail(state, state.data.space(n).reward, details, rest, -1)
    if detail is None and details != [None]:
        return None
    return ("castle", n, detail)


def _parse_law(state: State, options: list[Action], toks: list[str]) -> Action | None:
    verb = options[0][0]
    words = set(toks)
    negative = bool(words & NO_WORDS)
    if verb in ("markers", "power", "trade"):
        n = _first_number(toks, set())
        if n is None and negative:
            n = 0
        return (verb, n) if n is not None else None
    if verb == "swap":
        if negative:
            return ("swap", False)
        return ("swap", True) if words & ({"swap", "yes", "y"}) else None
    if verb == "extension":
        if negative:
            return ("extension", None)
        n = _first_number(toks, set())
        return ("extension", n) if n is not None else None
    if verb == "upgrade":
        if negative:
            return ("upgrade", None)
        ref = _knight_ref([t for t in toks if t != "upgrade"], [o[1] for o in options])
        return ("upgrade", ref) if ref is not None else None
    return None
