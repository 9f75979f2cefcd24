"""The seat's decision as the pages and mails show it (``Rules.choices``): every legal action
worded in the board's words, in the steps a player decides one after another.

Each action becomes an option whose label is a whole sentence, read alone ("Place knight 2
in York (C): 1 new knight (strength 1) + 2 voting markers", "No upgrade", "Vote yes, adding 2
voting markers"), and a path of steps (which knight, then where); ``engine.core.choices.tree``
makes the nested groups. The words come from the actions themselves (typed tuples, never
their notation), the game's data and the seat's own view: nothing the seat may not see.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.core.choices import Step, tree
from engine.core.protocol import Action, ChoiceOption, Choices, sentence
from engine.lancaster import actions, flow, notation
from engine.lancaster.data import COUNTY_LETTERS, Reward
from engine.lancaster.pieces import plural, upgrade_extra
from engine.lancaster.state import Frame, State

#: An option's path of steps and its label and place: how every action below is worded.
Worded = tuple[Sequence[Step], str, str | None]
#: A place a knight may go, in words: what it gives, where (after "Place knight 2"), its step
#: and its place on the board
PlaceWords = tuple[str, str, str, str]


def choices(state: State, seat: int) -> Choices:
    legal = flow.legal_actions(state, seat)
    if not legal:
        return Choices()
    frame = state.agenda[0]
    words = Words(state, seat, frame)
    entries: list[tuple[int, Sequence[Step], ChoiceOption]] = []
    labels: dict[str, int] = {}
    worded = [words.action(a) for a in legal]
    for _, label, _ in worded:
        labels[label] = labels.get(label, 0) + 1
    for action, (path, label, place) in zip(legal, worded, strict=True):
        text = notation.format_action(state, action)
        if labels[label] > 1:
            # two actions the words below do not tell apart (a data override can make two
            # favor tiles alike): the canonical text does
            label = f"{label} ({text})"
        entries.append((_rank(action), path, ChoiceOption(label, action, text, place)))
    entries.sort(key=lambda e: e[0])  # stable: otherwise in the order of legal_actions
    return Choices(tree((path, option) for _, path, option in entries))


#: Extension point: the order of kinds of action within a decision (default 1): a county's
#: nobleman, reward, both, nothing as its card reads (At the King's Court: the lord after the
#: knights); filled by ``wiring.py``, like the ones below
ORDER: dict[str, int] = {"noble": 1, "reward": 2, "both": 3, "nothing": 4}
#: Extension point: verbs whose action with the value None declines ("No upgrade")
DECLINED_BY_NONE: set[str] = {"upgrade", "extension"}
#: Extension point: verbs whose action with a value of 0, False or () declines ("No swap")
DECLINED_BY_NOTHING: set[str] = {"swap", "markers", "power", "trade", "ransom"}
#: Extension point: the words of the actions an expansion adds to a placement turn, by verb
#: (At the King's Court: the lord, a knight with a privilege)
PLACEMENT_WORDINGS: dict[str, Callable[[Words, Action], Worded]] = {}
#: Extension point: the words of a place a knight may go that an expansion adds, ``(words,
#: ally) -> PlaceWords`` by target kind (The King's Resentment: the tower)
TARGET_WORDINGS: dict[str, Callable[[Words, bool], PlaceWords]] = {}
#: Extension point: the label and place of an expansion's law choice, by verb (Laws of the
#: King: seals; The New Laws: theirs); a verb without one is its canonical sentence
LAW_CHOICE_WORDINGS: dict[str, Callable[[Words, Action], tuple[str, str | None]]] = {}


def _rank(action: Action) -> int:
    """Where an action's option goes: a decline ("No upgrade") first, beside the choices it
    declines; then by ``ORDER``; otherwise in the order of ``legal_actions``."""
    verb = action[0]
    value = action[1] if len(action) > 1 else None
    if verb in DECLINED_BY_NONE and value is None:
        return 0
    if (verb in DECLINED_BY_NOTHING and not value) or verb == "done":
        return 0
    return ORDER.get(str(verb), 1)


class Words:
    """The words of one position: counties, castle spaces, conflicts, offices, laws."""

    def __init__(self, state: State, seat: int, frame: Frame) -> None:
        from engine.lancaster.view import view

        self.state = state
        self.seat = seat
        self.frame = frame
        self.view: Mapping[str, Any] = view(state, seat)

    # -- places --------------------------------------------------------------------------

    def county(self, letter: str) -> str:
        if not self.state.data.county_names_in_log:
            return f"county {letter}"  # rules 1.0.0: placeholder names add nothing
        return f"{self.state.data.county(letter).name} ({letter})"

    def castle_space(self, number: int, ally: bool = False) -> str:
        """What a castle space gives ("2 gold"; "upgrade a knight, pay 2 squires")."""
        spaces = self.state.data.castle_of(ally)
        if not 1 <= number <= len(spaces):
            return f"castle space {number}"
        space = spaces[number - 1]
        gives = space.reward.describe()
        return f"{gives}, pay {space.cost_squires} squires" if space.cost_squires else gives

    def conflict(self, card: int) -> str:
        for row in ("lower", "upper"):
            for c in self.view["conflicts"][row]:
                if c and c["card"] == card:
                    points = "/".join(str(p) for p in c["points"])
                    return f"conflict {card} (France {c['france']}, power points {points})"
        return f"conflict {card}"

    def where(self, where: str) -> str:
        """A knight's place as the notation names it ("county D", "castle 4") in words."""
        kind, _, key = where.partition(" ")
        if kind == "court":
            return "at court"
        if kind == "county":
            return f"in {self.county(key)}"
        if kind == "castle":
            return f"in castle space {key}"
        return f"at {where}"

    def ref(self, ref: Any) -> tuple[str, str]:
        """A knight named by strength and place: its words and its place on the board."""
        strength, where = int(ref[0]), str(ref[1])
        return f"knight {strength} {self.where(where)}", where

    def colour(self, colour: int) -> str:
        return self.state.colour_name(colour)

    def extension(self, verb: str, n: int) -> tuple[str, str]:
        """ "Take an extension on castle space 2: ..." (``verb`` "Take"), and its place."""
        return f"{verb} an extension on castle space {n}: {self.castle_space(n)}", f"castle {n}"

    def law_title(self, key: str) -> str:
        return self.state.data.law(key).title

    # -- actions ----------------------------------------------------------------------------

    def action(self, action: Action) -> Worded:
        kind = str(self.frame[0])
        verb = action[0]
        if kind == "setup":
            n = int(action[1])
            return (
                [("Your first extension tile: the castle space it covers", None)],
                (f"Space {n}: {self.castle_space(n)}"),
                f"castle {n}",
            )
        if verb == "place":
            return self.placement(actions.Place.of(action))
        if verb in PLACEMENT_WORDINGS:
            return PLACEMENT_WORDINGS[str(verb)](self, action)
        if kind == "favor":
            return self._favor(action)
        if kind == "vote":
            return self._vote(action)
        if kind == "law_choice":
            return self._law(action)
        if kind == "county":
            return self._county(action)
        if kind == "castle_paid":
            return self._castle(action)
        if kind == "ally_castle":
            n = int(self.frame[2])
            top: list[Step] = [(f"Your ally's castle space {n}: upgrade an ally's knight", None)]
            if upgrade_extra(action[1]):  # a piece taken instead of the upgrade
                return top, f"A {action[1]} instead of the upgrade", None
            words, place = self.ref(action[1])
            return top, f"Upgrade your ally's {words}", place
        if kind == "ransom":
            return self._ransom(action)
        text = notation.format_action(self.state, action)
        return [("Your move", None)], sentence(text), None

    def placement(self, action: actions.Place, extra: str | None = None) -> Worded:
        """A knight placed; ``extra``: what goes with it besides squires, in words."""
        _, ally, strength, target, squires = action
        kind, value = target
        if kind == "county":
            where = f"in {self.county(str(value))}"
            gives = self.state.data.county(str(value)).reward.describe()
            minimum = self.state.data.county(str(value)).minimum
            step = f"{self.county(str(value))}: needs strength {minimum}; {gives}"
            place = f"county {value}"
        elif kind == "castle":
            gives = self.castle_space(int(value), bool(ally))
            where = f"on castle space {value}"
            step = f"Castle space {value}: {gives}"
            place = f"castle {value}"
        elif kind == "conflict":
            gives = "a king's favor"
            where = f"at {self.conflict(int(value))}"
            step = sentence(self.conflict(int(value)))
            place = f"conflict {value}"
        elif kind in TARGET_WORDINGS:
            gives, where, step, place = TARGET_WORDINGS[kind](self, bool(ally))
        else:
            gives, where, step, place = "", f"to {value}", sentence(str(kind)), str(kind)
        extras = [plural(int(squires), "squire")] if squires else []
        if extra is not None:
            extras.append(extra)
        with_ = f" with {' and '.join(extras)}" if extras else ""
        who = "your ally's knight" if ally else "knight"
        label = f"Place {who} {strength} {where}{with_}" + (f": {gives}" if gives else "")
        top = "Place your ally's knight" if ally else "Place a knight"
        return [(top, None), (f"Knight {strength}", None), (step, place)], label, place

    def _favor(self, action: Action) -> Worded:
        _, tile, detail = action
        reward = self.state.data.favor(int(tile)).reward
        gives = reward.describe()
        top: list[Step] = [("King's favor", None)]
        if detail is None:
            return top, f"Take the favor: {gives}", None
        if upgrade_extra(detail):
            return (
                [*top, (f"Favor: {gives}", None)],
                f"Favor: a {detail} instead of the upgrade",
                None,
            )
        if reward.choice() == "upgrade":
            words, place = self.ref(detail)
            return [*top, (f"Favor: {gives}", None)], f"Favor: upgrade {words}", place
        if reward.choice() == "nobleman":
            letter = str(detail)
            label = f"Favor: the nobleman of {self.county(letter)}"
            return [*top, (f"Favor: {gives}", None)], label, f"county {letter}"
        return top, f"Take the favor: {gives} ({detail})", None

    def _vote(self, action: Action) -> Worded:
        _, yes, markers = action
        i = int(self.frame[1])
        title = self.law_title(self.state.new_laws[i]) if i < len(self.state.new_laws) else ""
        label = "Vote yes" if yes else "Vote no"
        if markers:
            label += f", adding {plural(int(markers), 'voting marker')}"
        return [(f"Vote on the law: {title}" if title else "Vote on the law", None)], label, None

    def _law(self, action: Action) -> Worded:
        top: list[Step] = [(f"Law: {self.law_title(str(self.frame[1]))}", None)]
        verb, value = action[0], action[1]
        label: str
        place: str | None = None
        if verb == "markers":
            n = int(value)
            label = f"Buy {plural(n, 'voting marker')}" if n else "Buy no voting markers"
        elif verb == "power":
            label = f"Buy {plural(int(value), 'power point')}" if value else "Buy no power points"
        elif verb == "trade":
            n = int(value)
            label = f"Trade {n}: spend {plural(n, 'squire')} and {n} gold" if n else "No trade"
        elif verb in LAW_CHOICE_WORDINGS:
            label, place = LAW_CHOICE_WORDINGS[str(verb)](self, action)
        elif verb == "upgrade":
            if value is None:
                label = "No upgrade"
            elif upgrade_extra(value):
                label = f"Take a {value} instead of an upgrade"
            else:
                words, place = self.ref(value)
                label = f"Upgrade {words}"
        elif verb == "swap":
            label = "Swap your strength-3 knight for the 4" if value else "No swap"
        elif verb == "extension":
            if value is None:
                label = "No extension"
            else:
                label, place = self.extension("Take", int(value))
        else:  # any other verb: its canonical sentence
            label = sentence(notation.format_action(self.state, action))
        return top, label, place

    def _county(self, action: Action) -> Worded:
        from engine.lancaster.phases.rewards import names_start

        i = int(self.frame[1])
        letter = COUNTY_LETTERS[i]
        reward: Reward = self.state.data.counties[i].reward
        top: list[Step] = [(f"{self.county(letter)}: your reward", f"county {letter}")]
        starts = ""
        if names_start(self.state, i):
            starts = f"; {self.colour(int(action[-1]))} starts"
            action = action[:-1]
        verb = action[0]
        gives = reward.describe()
        take = {
            "noble": "Take the nobleman",
            "reward": f"Take the reward: {gives}",
            "both": f"Pay {self.state.data.both_cost} gold for both: the nobleman and the reward",
            "nothing": "Take nothing",
        }[verb]
        detail = action[1] if len(action) > 1 else None
        if detail is None:
            # Surrey: what is taken, then who starts
            return ([*top, (take, None)] if starts else top), f"{take}{starts}", None
        choice = reward.choice()
        what = "Reward" if verb == "reward" else "Both"
        place: str | None = None
        if choice == "upgrade" and upgrade_extra(detail):
            said = f"a {detail} instead of the upgrade"
        elif choice == "upgrade":
            said, place = self.ref(detail)
            said = f"upgrade {said}"
        elif choice == "extension":
            n = int(detail)
            said = f"an extension on castle space {n} ({self.castle_space(n)})"
            place = f"castle {n}"
        elif choice == "conflict_move":
            said = f"the knight moves to {self.conflict(int(detail))}"
            place = f"conflict {detail}"
        elif choice == "nobleman":
            said = f"the nobleman of {self.county(str(detail))}"
        else:
            said = str(detail)
        return [*top, (take, None)], f"{what}: {said}{starts}", place

    def _castle(self, action: Action) -> Worded:
        top: list[Step] = [("Castle rewards you pay for", None)]
        if action[0] == "done":
            return top, "Done: use no more castle spaces", None
        n, detail = int(action[1]), action[2]
        space = self.state.data.space(n)
        gives = space.reward.describe()
        pay = f"pay {space.cost_squires} squires" if space.cost_squires else "free"
        place = f"castle {n}"
        if detail is None:
            return top, f"Castle space {n}: {pay} for {gives}", place
        step: Step = (f"Castle space {n}: {pay} for {gives}", place)
        if upgrade_extra(detail):
            return [*top, step], f"Castle space {n}: a {detail} instead of the upgrade", place
        if space.reward.choice() == "upgrade":
            words, _ = self.ref(detail)
            return [*top, step], f"Castle space {n}: upgrade {words}", place
        return [*top, step], f"Castle space {n}: {detail}", place

    def _ransom(self, action: Action) -> Worded:
        strengths = [int(s) for s in action[1]]
        per = self.state.data.ransom_per_strength
        top: list[Step] = [(f"Ransom (France won twice; {per} gold per strength point)", None)]
        if not strengths:
            return top, "Ransom none: your knights go to your reserve", None
        knights = "knight" if len(strengths) == 1 else "knights"
        named = " and ".join(str(s) for s in strengths)
        return top, f"Ransom {knights} {named}: {per * sum(strengths)} gold", None
