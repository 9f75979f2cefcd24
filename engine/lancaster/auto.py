"""``auto_action``: what the game does for a seat whose deadline passed.

Deterministic, always legal, and cautious — it never spends gold or squires:

- setup: the extension tile goes on castle space 1;
- placement: the weakest knight at court (your own before your ally's) goes to the lowest
  free space of its castle (a lord, once no knight is left to place, enters the treasury and
  claims its gold); if the castle is full, to the first empty county it may enter,
  without squires; otherwise to the first conflict it may join; otherwise the first legal
  placement (in the order of ``legal_actions``);
- king's favor: the lowest-numbered face-up tile, with its first choice (a knight's upgrade
  before a bishop);
- vote: no, with no voting markers;
- laws: buy nothing, dispose of no seal; take a free upgrade (the first knight listed; a
  bishop only when no knight can be upgraded), a free extension (the lowest space) and the
  strength-4 swap; The New Laws: ``new_laws/auto.py`` (never spend either);
- county: the nobleman if you can take it, otherwise the reward (its first choice); never
  pay for both; at Surrey, the current start player is named again (nothing changes);
- castle: use no paid space ("done"); the ally's castle (rules 2.0.0, 2 players) upgrades
  the first of its knights listed;
- an extension tile (rules 2.0.0) goes on a free space with no knight before one with a
  knight, which it would send back to court;
- ransom: ransom no knight.

The defaults of the expansions' own actions are theirs, through the extension points below.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.core.protocol import Action
from engine.lancaster.frames import sorted_options
from engine.lancaster.pieces import upgrade_extra
from engine.lancaster.state import State

#: Extension point: the default of a placement turn with no knight left to place, among its
#: other actions (``placement.PLACEMENTS``), ``(options) -> action or None`` (At the King's
#: Court: the lord enters the treasury and claims its gold); filled by ``wiring.py``
ONLY_OTHERS: list[Callable[[list[Action]], Action | None]] = []
#: Extension point: the default of an expansion's law choice, by verb, ``(state, options in
#: order) -> action`` (Laws of the King: ``seals``; The New Laws: theirs)
LAW_CHOICE_DEFAULTS: dict[str, Callable[[State, list[Action]], Action]] = {}


def place(state: State, legal: list[Action]) -> Action:
    """The default placement among ``legal``, the seat's placement options."""
    everything = sorted_options(legal)
    options = [a for a in everything if a[0] == "place"]
    if not options:
        chosen = (default(everything) for default in ONLY_OTHERS)
        return next((a for a in chosen if a is not None), everything[0])

    def pick(kind: str) -> Action | None:
        candidates = [a for a in options if a[3][0] == kind and a[4] == 0]
        if kind == "county":
            candidates = [a for a in candidates if state.counties[_index(a[3][1])] is None]
        if not candidates:
            return None
        # Own knights before the ally's, the weakest first, then the lowest target.
        return min(candidates, key=lambda a: (a[1], a[2], str(a[3][1]).rjust(2)))

    for kind in ("castle", "county", "conflict"):
        choice = pick(kind)
        if choice is not None:
            return choice
    return options[0]


def _index(letter: str) -> int:
    return "ABCDEFGHI".index(letter)


def knights_first(options: list[Action]) -> list[Action]:
    """The options in ``legal_actions`` order, except that a piece taken instead of an upgrade
    (At the King's Court: a bishop) comes after every knight's upgrade."""
    ordered = sorted_options(options)
    instead = [any(upgrade_extra(x) for x in a) for a in ordered]
    return [a for a, i in zip(ordered, instead, strict=True) if not i] + [
        a for a, i in zip(ordered, instead, strict=True) if i
    ]


def _knights_stay(state: State, colour: int, spaces: list[Action], at: int) -> list[Action]:
    """``spaces`` (actions naming a castle space at index ``at``) with the spaces where a
    knight of ``colour`` stands last: as printed, an extension there sends the knight back
    unscored (decision 17), which a default should not do while another space is free."""
    castle = state.colours[colour].castle
    return sorted(spaces, key=lambda a: castle[int(a[at]) - 1] is not None)


def law_choice(state: State, key: str, options: list[Action]) -> Action:
    ordered = knights_first(options)
    verb = ordered[0][0]
    if verb in LAW_CHOICE_DEFAULTS:
        return LAW_CHOICE_DEFAULTS[verb](state, ordered)
    if verb == "extension":
        free = [a for a in ordered if a[1] is not None]
        seat = int(state.agenda[0][2])  # ("law_choice", key, seat)
        return _knights_stay(state, seat, free, 1)[0] if free else ordered[0]
    if verb in ("markers", "power", "trade"):
        return (verb, 0)
    if verb == "swap":
        return ("swap", True) if ("swap", True) in ordered else ("swap", False)
    free = [a for a in ordered if a[1] is not None]
    return free[0] if free else ordered[0]


def county(state: State, options: list[Action]) -> Action:
    ordered = knights_first(options)
    frame = state.agenda[0]  # ("county", i)
    occupant = state.counties[int(frame[1])]
    if occupant is not None and state.data.counties[int(frame[1])].reward.extension:
        extensions = [a for a in ordered if a[0] in ("reward", "both") and a[1] is not None]
        rest = [a for a in ordered if a not in extensions]
        ordered = rest + _knights_stay(state, occupant.colour, extensions, 1)
    # Surrey (decision 6): the holder names the current start player, so nothing changes.
    if any(_names_start(a) for a in ordered):
        ordered = [a for a in ordered if a[-1] == state.start_player]
    for verb in ("noble", "reward", "nothing"):
        for a in ordered:
            if a[0] == verb:
                return a
    return ordered[0]


def _names_start(action: Action) -> bool:
    # ("noble", s), ("reward", d, s), ("both", d, s), ("nothing", s): a trailing seat
    return len(action) == {"noble": 2, "reward": 3, "both": 3, "nothing": 2}.get(action[0], -1)
