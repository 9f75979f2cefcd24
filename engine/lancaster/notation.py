"""Email notation: ``format_action`` writes the canonical text of an action and
``parse_action`` reads what a player typed for the decision the seat faces now — forgiving
about case, punctuation, number words and plurals, strict about every other word (see
``reading.py``; never a guess). See ``docs/lancaster-notation.md``.

Canonical forms (each parses back to the same action):

- setup: ``extension 3``
- placement: ``knight 3 to D with 2 squires``, ``knight 1 to castle 2``,
  ``knight 2 to conflict 7``, ``ally knight 2 to E`` (2 players)
- king's favor: ``favor gold``, ``favor upgrade knight 2 at court``, ``favor nobleman B``
- vote: ``vote yes 2`` (2 voting markers added), ``vote no``
- laws: ``buy 3 voting markers``, ``buy 2 power points``, ``trade 2``, ``no upgrade``,
  ``upgrade knight 3 in county D``, ``swap``, ``no swap``, ``extension 4``, ``no extension``
- county: ``noble``, ``reward``, ``both``, with the reward's choice:
  ``reward upgrade knight 2 at court``, ``both extension 3``, ``reward to conflict 7``;
  Surrey adds the next start player: ``noble start player Blue``, ``start player Blue``
- castle: ``castle 6``, ``castle 5 upgrade knight 1 at court``, ``done``
- ransom: ``ransom 1 3``, ``ransom none``
- Henry V: ``henry_v/phrases.py``; The New Laws (rules 2.1.0): ``new_laws/notation.py``
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.core.notation import examples, quote
from engine.core.protocol import Action, ActionSyntaxError, NotYourTurnError
from engine.lancaster import flow
from engine.lancaster.data import Reward
from engine.lancaster.pieces import (
    describe_detail,
    describe_ref,
    favor_names,
    plural,
    upgrade_extra,
)
from engine.lancaster.reading import Unreadable, words
from engine.lancaster.state import Frame, State

# -- formatting -------------------------------------------------------------------------------

#: Extension point: the canonical text of the actions an expansion adds, by verb, ``(state,
#: action) -> text`` (At the King's Court: ``lord``, ``privilege``; Laws of the King:
#: ``seals``; The New Laws: theirs), filled by ``wiring.py``
FORMATTERS: dict[str, Callable[[State, Action], str]] = {}


def format_action(state: State, action: Action) -> str:
    verb = action[0]
    if verb == "place":
        _, ally, strength, target, squires = action
        from engine.lancaster.targets import TARGETS

        who = "ally knight" if ally else "knight"
        sq = f" with {plural(squires, 'squire')}" if squires else ""
        return f"{who} {strength} to {TARGETS[target[0]].words(target[1])}{sq}"
    if verb == "favor":
        _, tile, detail = action
        reward = state.data.favor(tile).reward
        name = favor_names(state)[tile]
        extra = ""
        if upgrade_extra(detail):
            extra = f" {detail}"  # a piece taken instead of the upgrade, by its name
        elif detail is not None:
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
        if upgrade_extra(action[1]):
            return str(action[1])
        return "no upgrade" if action[1] is None else f"upgrade {describe_ref(_ref(action[1]))}"
    if verb == "swap":
        return "swap" if action[1] else "no swap"
    if verb in ("noble", "reward", "both", "nothing"):
        return _format_county(state, action)
    if verb == "castle":
        reward = state.data.space(action[1]).reward
        return f"castle {action[1]} {describe_detail(state, reward, action[2])}".strip()
    if verb == "done":
        return "done"
    if verb == "ransom":
        return "ransom " + (" ".join(map(str, action[1])) if action[1] else "none")
    if verb in FORMATTERS:
        return FORMATTERS[verb](state, action)
    raise ValueError(f"unknown Lancaster action {action!r}")


def _ref(detail: Any) -> tuple[int, str]:
    return int(detail[0]), str(detail[1])


def _format_county(state: State, action: Action) -> str:
    from engine.lancaster.phases.rewards import names_start

    verb = action[0]
    frame = state.agenda[0] if state.agenda else ("county", 0)
    i = int(frame[1]) if frame[0] == "county" else 0
    start = ""
    if frame[0] == "county" and names_start(state, i):
        start = f"start player {state.colour_name(int(action[-1]))}"
        action = action[:-1]
    if verb == "nothing":
        return start or "nothing"
    text = verb
    if verb in ("reward", "both"):
        reward = state.data.counties[i].reward if frame[0] == "county" else Reward()
        text = f"{verb} {describe_detail(state, reward, action[1])}".strip()
    return f"{text} {start}".strip()


# -- reading ----------------------------------------------------------------------------------


def parse_action(state: State, seat: int, text: str) -> Action:
    h = flow.head(state)
    if h is None:
        raise NotYourTurnError("The game is over: there is nothing to play.")
    frame, hd = h
    if seat not in hd.seats(state, frame):
        raise NotYourTurnError(f"It is not your turn: {hd.waiting(state, frame)}")
    from engine.lancaster.parsing import parse_words, placement_kind

    if "?" in text:
        # decision (ours, issue 8): a question is never read as a move, however it is worded
        raise ActionSyntaxError(
            f"{quote(text)!r} is a question, not a move; nothing was played. To move, write "
            "only the move.",
            can_type=can_type(state, seat),
        )
    said = words(text)
    try:
        action = parse_words(state, frame, seat, said)
    except Unreadable as e:
        # The kind of move the player was making: a lord's placement is no knight's.
        what = (placement_kind(said) if frame[0] == "place" else None) or _what(frame)
        raise ActionSyntaxError(
            f"Could not read {quote(text)!r} as {what}: {e}.",
            can_type=can_type(state, seat),
        ) from None
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
        "ally_castle": "the ally's knight to upgrade (e.g. 'upgrade knight 2 at court')",
        "ransom": "a ransom (e.g. 'ransom 2' or 'ransom none')",
    }.get(str(frame[0]), "an action")
