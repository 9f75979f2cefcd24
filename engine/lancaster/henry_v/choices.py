"""How Henry V's actions read on the pages and in mails (``choices.py``'s extension points):
the lord sent to an office or into the treasury, a knight placed with a privilege, the tower,
and Laws of the King's seals."""

from __future__ import annotations

from engine.core.protocol import Action
from engine.lancaster import actions
from engine.lancaster.choices import PlaceWords, Worded, Words
from engine.lancaster.pieces import plural

#: the privileges as a placement names them
PRIVILEGE_WORDS = {"shield": "the shield", "tudor": "the Tudor knight", "archer": "the archer"}


def lord(words: Words, action: Action) -> Worded:
    """At the King's Court: ``("lord", ally, office or "treasury", knights or goods,
    bishops, tudor)``."""
    ally = bool(action[1])
    top = "Place your ally's lord" if ally else "Place your lord"
    who = "your ally's lord" if ally else "your lord"
    if action[2] == "treasury":
        goods = str(action[3]).replace("_", " ")
        label = f"Send {who} into the treasury, claiming its {goods}"
        return [(top, None), ("The treasury", "treasury")], label, "treasury"
    office = next((o for o in words.state.data.offices if o.key == action[2]), None)
    title = office.title if office is not None else str(action[2])
    support = [f"knight {k}" for k in action[3]]
    if action[4]:
        support.append(plural(int(action[4]), "bishop"))
    if len(action) > 5 and action[5]:
        support.append("the Tudor knight")
    backed = f", supported by {' and '.join(support)}" if support else ""
    step = title
    if office is not None and not ally:
        step = f"{title} (tribute: 1 {office.tribute.replace('_', ' ').rstrip('s')})"
    label = f"Send {who} to apply for {title}{backed}"
    place = f"office {action[2]}"
    return [(top, None), (step, place)], label, place


def privilege(words: Words, action: Action) -> Worded:
    """At the King's Court: ``("privilege", privilege, ally, strength, target, squires)``, a
    placement with the privilege besides its squires."""
    _, name, ally, strength, target, squires = action
    place = actions.Place("place", ally, strength, target, squires)
    return words.placement(place, PRIVILEGE_WORDS.get(str(name), f"the {name}"))


def tower(words: Words, ally: bool) -> PlaceWords:
    """The King's Resentment: an ally's knight returns no dishonor (notation docs)."""
    gives = "no dishonor returned" if ally else "return 1 dishonor marker per strength point"
    return gives, "in the tower", "The tower", "tower"


def seals(words: Words, action: Action) -> tuple[str, str | None]:
    """Laws of the King: ``("seals", n)``, the seals disposed of."""
    n = int(action[1])
    return (f"Dispose of {plural(n, 'seal')}" if n else "Keep your seals"), None
