"""Lancaster on the seat page: the seat's legal actions as grouped choices (place knight →
where → squires), and the names people read for players and places.

The page shows every legal action (never a cut-off list): the canonical texts are split into
the steps a player decides one after another, and each step is a group the page folds.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: Where a canonical action text moves on to its next decision.
_STEP = re.compile(r" (?=to |with |upgrade )")

#: Headings of the groups, by the action's first word (Lancaster notation,
#: docs/lancaster-notation.md).
HEADINGS = {
    "knight": "Place a knight",
    "ally": "Place your ally's knight",
    "extension": "Castle extension",
    "castle": "Castle space reward",
    "favor": "King's favor",
    "vote": "Vote on the law",
    "buy": "Buy",
    "ransom": "Ransom",
    "reward": "County reward",
    "both": "Nobleman and reward",
    "noble": "Nobleman",
    "upgrade": "Upgrade a knight",
    "trade": "Trade",
    "swap": "Swap",
    "done": "Finish the castle rewards",
}


#: Buttons of the actions that are a single word (Lancaster notation).
BARE = {
    "noble": "Take the nobleman",
    "reward": "Take the county's reward",
    "both": "Pay for both: the nobleman and the reward",
    "nothing": "Take nothing",
    "done": "Done: use no more castle spaces",
    "pass": "Pass",
}


@dataclass
class Choice:
    label: str  # what the button says
    action: str  # the canonical text it plays


@dataclass
class Group:
    label: str
    choices: list[Choice] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)

    def size(self) -> int:
        return len(self.choices) + sum(g.size() for g in self.groups)


def _label(segment: str) -> str:
    knight = re.fullmatch(r"knight (\d+)", segment)
    if knight:
        return f"Knight of strength {knight.group(1)}"
    return segment[:1].upper() + segment[1:]


def _insert(node: Group, steps: list[str], action: str) -> None:
    if len(steps) == 1:
        node.choices.append(Choice(_label(steps[0]), action))
        return
    label = _label(steps[0])
    child = next((g for g in node.groups if g.label == label), None)
    if child is None:
        child = Group(label)
        node.groups.append(child)
    _insert(child, steps[1:], action)


def _fold(node: Group) -> None:
    """A step with a single choice is not a step: lift it into its parent."""
    for g in node.groups:
        _fold(g)
    kept = []
    for g in node.groups:
        if g.size() == 1 and g.choices:
            only = g.choices[0]
            node.choices.append(
                Choice(f"{g.label} {only.label[:1].lower()}{only.label[1:]}", only.action)
            )
        elif not g.choices and len(g.groups) == 1:
            inner = g.groups[0]
            kept.append(
                Group(
                    f"{g.label} {inner.label[:1].lower()}{inner.label[1:]}",
                    inner.choices,
                    inner.groups,
                )
            )
        else:
            kept.append(g)
    node.groups = kept


def _castle_space(view: Mapping[str, Any] | None, seat: int | None, number: int) -> str | None:
    """What the seat's castle space ``number`` gives, as the board shows it ("2 gold";
    "upgrade a knight, pay 2 squires"), or None when the view does not say."""
    if view is None or seat is None:
        return None
    player = next((p for p in view.get("players") or () if p.get("seat") == seat), None)
    castle = player.get("castle") if isinstance(player, Mapping) else None
    if not isinstance(castle, list) or not 1 <= number <= len(castle):
        return None
    space = castle[number - 1]
    reward = str(space.get("reward") or "")
    cost = space.get("cost_squires")
    return f"{reward}, pay {cost} squires" if cost else reward or None


def _single_label(
    kind: str, rest: str, text: str, view: Mapping[str, Any] | None, seat: int | None
) -> str:
    """The button of a one-step action: what it does, in the words of the board."""
    # Lancaster setup: the extension tile covers a castle space; the button says which
    # space and what it gives, as the prompt lists them.
    extension = re.fullmatch(r"(\d+)", rest) if kind == "extension" else None
    if extension:
        gives = _castle_space(view, seat, int(extension.group(1)))
        return f"Space {rest}: {gives}" if gives else f"Space {rest}"
    # Lancaster parliament: yes or no, adding voting markers ("vote yes 2").
    vote = re.fullmatch(r"(yes|no)(?: (\d+))?", rest) if kind == "vote" else None
    if vote:
        markers = int(vote.group(2) or 0)
        said = vote.group(1).capitalize()
        if markers:
            said += f", adding {markers} voting marker{'s' if markers != 1 else ''}"
        return said
    if not rest:
        return BARE.get(kind, _label(text))
    # Lancaster, Surrey: what the holder takes and whom they name ("reward start player
    # Blue" is "Take the county's reward; Blue starts"), so each button says all it plays.
    start = re.fullmatch(r"start player (\w+)", rest) if kind in BARE else None
    if start:
        return f"{BARE[kind]}; {start.group(1)} starts"
    return _label(rest)


#: A county letter where the canonical texts name a county ("to A", "recall B and D").
_COUNTY_LETTER = re.compile(r"\b((?:[Tt]o|[Rr]ecall|and|in|[Nn]obleman) )([A-I])\b")


def county_names(view: Mapping[str, Any] | None) -> dict[str, str]:
    """Each county's letter and the name the board prints, "York (C)", from the view; rules
    1.0.0's placeholder names ("County C") add nothing to the letter."""
    names: dict[str, str] = {}
    for county in (view or {}).get("counties") or ():
        letter, name = str(county.get("letter", "")), str(county.get("name", ""))
        if letter and name and name != f"County {letter}":
            names[letter] = f"{name} ({letter})"
    return names


def _named(label: str, names: Mapping[str, str]) -> str:
    def name(m: re.Match[str]) -> str:
        letter = m.group(2)
        if letter not in names:
            return m.group(0)
        of = "of " if m.group(1).lower() == "nobleman " else ""
        return f"{m.group(1)}{of}{names[letter]}"

    return _COUNTY_LETTER.sub(name, label)


def _rename(node: Group, names: Mapping[str, str]) -> None:
    node.label = _named(node.label, names)
    for choice in node.choices:
        choice.label = _named(choice.label, names)
    for g in node.groups:
        _rename(g, names)


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def group_actions(
    legal: Sequence[str], view: Mapping[str, Any] | None = None, seat: int | None = None
) -> list[Group]:
    """The legal actions by kind (first word), then by each decision step; ``view`` and
    ``seat`` (the seat's own view) word the buttons with what a choice gives, and name the
    counties as the board prints them.

    A knight "to A" beside "to A with 1 squire" becomes the choice "no squires" inside the
    group "to A", so every action is one button at the end of its path. A law's choice is
    one group whose buttons say the whole choice ("No upgrade", "Exchange 4 gold for 2
    squires", "Recall Bedford (E)"): the law's prompt above them says what it is about.
    """
    names = county_names(view)
    if view is not None and view.get("phase") == "laws":
        group = Group("Your choice", [Choice(_named(_sentence(t), names), t) for t in legal])
        return [group]
    groups = _by_kind(legal, view, seat)
    for g in groups:
        _rename(g, names)
    return groups


def _by_kind(legal: Sequence[str], view: Mapping[str, Any] | None, seat: int | None) -> list[Group]:
    by_kind: dict[str, Group] = {}
    declines = [t for t in legal if t.startswith("no ")]
    for text in legal:
        if text in declines:
            continue
        kind = text.split()[0]
        group = by_kind.setdefault(kind, Group(HEADINGS.get(kind, _label(kind))))
        steps = _STEP.split(text)
        if len(steps) == 1:
            # One word of kind and the rest as the choice ("vote yes 1" → "yes 1").
            rest = text[len(kind) :].strip()
            group.choices.append(Choice(_single_label(kind, rest, text, view, seat), text))
        else:
            _insert(group, steps, text)
    groups = list(by_kind.values())
    for g in groups:
        _mark_bare(g)
        _fold(g)
    # A decline ("no upgrade") is a button saying so, beside the choices it declines (in
    # their group when there is one kind of them), never a group "No" of its own.
    for text in declines:
        home = groups[0] if len(groups) == 1 else Group(_sentence(text))
        home.choices.insert(0, Choice(_sentence(text), text))
        if home not in groups:
            groups.append(home)
    return groups


def _mark_bare(node: Group) -> None:
    """A choice whose label is also a group's label (a knight "to A" without squires) moves
    into that group as "no squires"."""
    for g in node.groups:
        _mark_bare(g)
    for choice in list(node.choices):
        same = next((g for g in node.groups if g.label == choice.label), None)
        if same is not None:
            node.choices.remove(choice)
            same.choices.insert(0, Choice("No squires", choice.action))
