"""The game state: frozen dataclasses, and their lossless JSON dump/load.

Pieces are modelled by colour. A *colour* is a player's set of pieces; in the 2-player game
there are two more colours, the allies (decision: rules/README.md, Lancaster 12): colour
``2`` is the ally of seat 0 and colour ``3`` the ally of seat 1. Seat ``s`` plays colour ``s``.

Knights of equal strength are interchangeable, so a knight is just its strength and a place:
the court and the reserve are sorted tuples of strengths, the board holds them in counties,
castle spaces and on conflict cards.

The flow of the game is an *agenda*: a tuple of frames (plain tuples, JSON-able), the head of
which is what happens next. Decision frames wait for their seats' actions; the others run by
themselves (see ``flow.py``). Henry V adds its own frames and fields without changing these.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.core.records import replace
from engine.lancaster.data import Data
from engine.lancaster.overrides import apply_overrides

Frame = tuple[Any, ...]

COLOUR_NAMES = ("Red", "Blue", "Yellow", "Green", "Purple")
_NO_EXPANSIONS: frozenset[str] = frozenset()
_NO_CHOICE: dict[str, Any] = {}  # never written: ``State.expansions``' default


#: not slotted: ``records.replace`` copies its ``__dict__``
@dataclass(frozen=True)
class Colour:
    """One colour's pieces and (for a player's colour) resources."""

    court: tuple[int, ...]
    reserve: tuple[int, ...]
    castle: tuple[int | None, ...]  # the knight's strength on castle spaces 1..6
    extensions: tuple[int, ...]  # castle spaces covered by extension tiles, sorted
    nobles: tuple[str, ...]  # county letters, sorted
    power: int = 0
    gold: int = 0
    squires: int = 0
    voting_markers: int = 0
    dishonor: int = 0  # The King's Resentment: markers behind the screen
    # -- At the King's Court --
    lord: str = ""  # "court", "office" or "treasury" ("" without the module)
    bishops: int = 0  # bishops owned (at court unless supporting the lord)
    seals: int = 0  # regal seals behind the screen
    privileges: tuple[str, ...] = ()  # usable this round: "shield", "archer", "tudor"
    granted: tuple[str, ...] = ()  # granted this round, usable the next
    #: The New Laws: extensions turned over for want of upkeep, yielding nothing until the
    #: castles have been scored this round
    turned: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Occupant:
    """A knight in a county, with the squires placed with it."""

    colour: int
    strength: int
    squires: int
    shield: bool = False  # At the King's Court: this knight cannot be expelled
    tudor: bool = False  # At the King's Court: a Tudor knight (strength 2) accompanies it

    @property
    def might(self) -> int:
        """The strength that must meet the county's minimum (the Tudor knight counts)."""
        return self.strength + (2 if self.tudor else 0)

    @property
    def total(self) -> int:
        return self.might + self.squires


@dataclass(frozen=True, slots=True)
class Space:
    """One knight space of a conflict card: one colour, one or more stacked knights."""

    colour: int
    knights: tuple[int, ...]  # strengths, sorted
    tudor: int = 0  # At the King's Court: Tudor knights (strength 2) with these knights
    archer: bool = False  # At the King's Court: an archer's own space (strength 2, no knights)
    #: The New Laws: squires sent here by a law, +1 strength each, until this card is scored
    squires: int = 0

    @property
    def strength(self) -> int:
        return sum(self.knights) + 2 * self.tudor + (2 if self.archer else 0) + self.squires

    def holds_knights_of(self, colour: int) -> bool:
        """Whether this is ``colour``'s knight space, where its knights stack and from which
        they are ransomed (an archer's own space holds no knight: 001)."""
        return self.colour == colour and not self.archer


@dataclass(frozen=True, slots=True)
class Conflict:
    card: int
    spaces: tuple[Space, ...]  # top (entered first) to bottom


@dataclass(frozen=True, slots=True)
class Applicant:
    """A lord applying for an office, with the knights and bishops supporting it."""

    colour: int
    knights: tuple[int, ...]  # strengths, sorted
    bishops: int
    tudor: bool = False

    @property
    def stack(self) -> int:
        # the lord and bishops: strength 1 each; a Tudor knight 2
        return 1 + sum(self.knights) + self.bishops + (2 if self.tudor else 0)


@dataclass(frozen=True, slots=True)
class Vote:
    yes: bool
    markers: int


@dataclass(frozen=True, slots=True)
class VoteResult:
    law: str
    approved: bool
    yes: int
    no: int
    votes: tuple[Vote, ...]  # per seat, revealed


#: not slotted, unlike the records it holds: ``records.replace`` copies its ``__dict__`` (the
#: cheapest way to build a 36-field record) and ``memo`` keeps derived values there
@dataclass(frozen=True)
class State:
    config: Mapping[str, Any]
    data: Data
    players: int
    round: int
    start_player: int
    next_start_player: int | None  # named by Surrey's holder for the next round
    colours: tuple[Colour, ...]
    counties: tuple[Occupant | None, ...]  # A..I
    nobles: tuple[int, ...]  # tiles left in each county's stack, A..I
    upper: tuple[Conflict | None, ...]  # two slots, left to right
    lower: tuple[Conflict | None, ...]
    conflict_pile: tuple[int, ...]  # hidden order, top first
    favors: tuple[int, ...]  # face-up king's favor tiles, sorted
    favors_in_game: tuple[int, ...]
    laws: tuple[str, ...]  # the current laws, left to right
    new_laws: tuple[str, ...]  # this round's laws to vote on, left to right
    law_pile: tuple[str, ...]  # hidden order, top first
    votes: tuple[Vote | None, ...]  # per seat, the vote in progress (hidden until revealed)
    results: tuple[VoteResult, ...]  # this round's revealed votes
    agenda: tuple[Frame, ...]
    rng: int
    # -- The King's Resentment (empty without it) --
    tower: tuple[tuple[int, int], ...] = ()  # (colour, strength) from the bottom; -1: neutral
    dishonor_track: tuple[int, ...] = ()  # markers left on each track space, left to right
    dishonor_box: int = 0  # markers in the supply box
    # -- At the King's Court (empty without it) --
    applicants: tuple[Applicant | None, ...] = ()  # per office, this round's applicant
    office_holders: tuple[int | None, ...] = ()  # per office, the colour holding its card
    treasury: tuple[int, int, int] = (0, 0, 0)  # voting markers, squires, gold
    bishop_supply: int = 0
    seal_supply: int = 0
    privilege_supply: tuple[int, int, int] = (0, 0, 0)  # shields, archers, Tudor knights
    # -- Laws of the King: voting markers held after the third voting, while a law keeps them
    markers_after_voting: tuple[int, ...] = ()
    #: the conflict cards removed at setup, shown to everyone (rules 2.0.0 removes them by
    #: France's strength, one of two drawn with 5 players); () under rules 1.0.0, whose
    #: removals are the data's card numbers
    removed_cards: tuple[int, ...] = ()
    #: The New Laws (config ``new_laws``): what each law group 0..4 plays, "base", "new" or
    #: "king" (Laws of the King), and which were drawn at setup; () without the config key
    law_sets: tuple[str, ...] = ()
    law_sets_drawn: tuple[bool, ...] = ()

    @property
    def expansions(self) -> frozenset[str]:
        """The Henry V modules in play (config ``expansions``)."""
        chosen = self.config.get("expansions", _NO_CHOICE)
        if type(chosen) is dict and not chosen:
            return _NO_EXPANSIONS  # (the base game: asked at every step, built once)
        return frozenset(k for k, v in dict(chosen).items() if v)

    # -- colours and seats --

    @property
    def two_player(self) -> bool:
        return self.players == 2

    def controller(self, colour: int) -> int:
        """The seat that decides for ``colour`` (allies are controlled by their player)."""
        return colour if colour < self.players else colour - self.players

    def ally_of(self, seat: int) -> int | None:
        return seat + self.players if self.two_player else None

    def colours_of(self, seat: int) -> tuple[int, ...]:
        ally = self.ally_of(seat)
        return (seat,) if ally is None else (seat, ally)

    def is_ally(self, colour: int) -> bool:
        return colour >= self.players

    def seat_order(self) -> tuple[int, ...]:
        """Seats in player order, from the start player, clockwise."""
        n = self.players
        return tuple((self.start_player + i) % n for i in range(n))

    def colour_name(self, colour: int) -> str:
        return COLOUR_NAMES[colour]

    def conflicts(self) -> tuple[tuple[str, int, Conflict], ...]:
        """Every conflict card on the board as (row, slot, card), lower row first."""
        out: list[tuple[str, int, Conflict]] = []
        for row, cards in (("lower", self.lower), ("upper", self.upper)):
            for slot, card in enumerate(cards):
                if card is not None:
                    out.append((row, slot, card))
        return tuple(out)

    def find_card(self, number: int) -> tuple[str, int, Conflict] | None:
        for row, slot, card in self.conflicts():
            if card.card == number:
                return row, slot, card
        return None

    def with_colour(self, colour: int, **changes: Any) -> State:
        colours = list(self.colours)
        colours[colour] = replace(colours[colour], **changes)
        return replace(self, colours=tuple(colours))

    def with_card(self, row: str, slot: int, card: Conflict | None) -> State:
        cards = list(self.upper if row == "upper" else self.lower)
        cards[slot] = card
        if row == "upper":
            return replace(self, upper=tuple(cards))
        return replace(self, lower=tuple(cards))

    @property
    def finished(self) -> bool:
        return not self.agenda

    def memo(self) -> dict[Any, Any]:
        """Values derived from this state, each computed once (who acts, a decision's
        options): a state never changes, and the next state built from it by
        ``records.replace`` starts without them. Not a field: equality, dumps and views
        never see it."""
        record = self.__dict__
        found: dict[Any, Any] | None = record.get("_memo")
        if found is None:
            found = record["_memo"] = {}
        return found


# -- dump / load ------------------------------------------------------------------------------


def _tuples(item: Any) -> Any:
    if isinstance(item, list):
        return tuple(_tuples(x) for x in item)
    return item


def _lists(item: Any) -> Any:
    if isinstance(item, tuple):
        return [_lists(x) for x in item]
    return item


def _dump_conflict(card: Conflict | None) -> Any:
    if card is None:
        return None
    return {
        "card": card.card,
        "spaces": [
            [
                s.colour,
                list(s.knights),
                *([s.tudor, s.archer] if s.tudor or s.archer or s.squires else []),
                *([s.squires] if s.squires else []),  # The New Laws only
            ]
            for s in card.spaces
        ],
    }


def _load_conflict(d: Any) -> Conflict | None:
    if d is None:
        return None
    return Conflict(int(d["card"]), tuple(_load_space(sp) for sp in d["spaces"]))


def _load_space(sp: Any) -> Space:
    extra = (int(sp[2]), bool(sp[3])) if len(sp) > 2 else (0, False)
    squires = int(sp[4]) if len(sp) > 4 else 0
    return Space(int(sp[0]), tuple(int(k) for k in sp[1]), *extra, squires)


def _dump_vote(v: Vote | None) -> Any:
    return None if v is None else [v.yes, v.markers]


def _load_vote(d: Any) -> Vote | None:
    return None if d is None else Vote(bool(d[0]), int(d[1]))


def _load_revealed(d: Any) -> Vote:
    return Vote(bool(d[0]), int(d[1]))


def dump(state: State) -> dict[str, Any]:
    """A JSON-ready dict holding everything (including the hidden pile orders and the RNG)."""
    return {
        "config": _lists_deep(state.config),
        "players": state.players,
        "round": state.round,
        "start_player": state.start_player,
        "next_start_player": state.next_start_player,
        "colours": [
            {
                "court": list(c.court),
                "reserve": list(c.reserve),
                "castle": list(c.castle),
                "extensions": list(c.extensions),
                "nobles": list(c.nobles),
                "power": c.power,
                "gold": c.gold,
                "squires": c.squires,
                "voting_markers": c.voting_markers,
                "dishonor": c.dishonor,
                "lord": c.lord,
                "bishops": c.bishops,
                "seals": c.seals,
                "privileges": list(c.privileges),
                "granted": list(c.granted),
                # The New Laws only: a state without turned extensions dumps as it always did
                **({"turned": list(c.turned)} if c.turned else {}),
            }
            for c in state.colours
        ],
        "counties": [
            None
            if o is None
            else [
                o.colour,
                o.strength,
                o.squires,
                *([o.shield, o.tudor] if o.shield or o.tudor else []),
            ]
            for o in state.counties
        ],
        "nobles": list(state.nobles),
        "upper": [_dump_conflict(c) for c in state.upper],
        "lower": [_dump_conflict(c) for c in state.lower],
        "conflict_pile": list(state.conflict_pile),
        "favors": list(state.favors),
        "favors_in_game": list(state.favors_in_game),
        "laws": list(state.laws),
        "new_laws": list(state.new_laws),
        "law_pile": list(state.law_pile),
        "votes": [_dump_vote(v) for v in state.votes],
        "results": [
            {
                "law": r.law,
                "approved": r.approved,
                "yes": r.yes,
                "no": r.no,
                "votes": [_dump_vote(v) for v in r.votes],
            }
            for r in state.results
        ],
        "agenda": [_lists(f) for f in state.agenda],
        "rng": state.rng,
        "tower": [list(k) for k in state.tower],
        "dishonor_track": list(state.dishonor_track),
        "dishonor_box": state.dishonor_box,
        "applicants": [
            None if a is None else [a.colour, list(a.knights), a.bishops, a.tudor]
            for a in state.applicants
        ],
        "office_holders": list(state.office_holders),
        "treasury": list(state.treasury),
        "bishop_supply": state.bishop_supply,
        "seal_supply": state.seal_supply,
        "privilege_supply": list(state.privilege_supply),
        "markers_after_voting": list(state.markers_after_voting),
        # only where there are any (rules 2.0.0): a 1.0.0 state dumps as it always did, so its
        # stored snapshots stay valid
        **({"removed_cards": list(state.removed_cards)} if state.removed_cards else {}),
        # The New Laws (rules 2.1.0 with the config key) only: older states dump as before
        **(
            {
                "law_sets": list(state.law_sets),
                "law_sets_drawn": list(state.law_sets_drawn),
            }
            if state.law_sets
            else {}
        ),
    }


def _lists_deep(item: Any) -> Any:
    if isinstance(item, Mapping):
        return {str(k): _lists_deep(v) for k, v in item.items()}
    if isinstance(item, list | tuple):
        return [_lists_deep(x) for x in item]
    return item


def load(d: Mapping[str, Any], base: Data) -> State:
    """The state ``dump`` gave, under the rules whose dataset is ``base`` (a dump holds the
    config's overrides, not the dataset they apply to)."""
    config = _lists_deep(d["config"])
    data, _ = apply_overrides(config.get("data", {}), base)
    colours = tuple(
        Colour(
            court=tuple(c["court"]),
            reserve=tuple(c["reserve"]),
            castle=tuple(c["castle"]),
            extensions=tuple(c["extensions"]),
            nobles=tuple(c["nobles"]),
            power=c["power"],
            gold=c["gold"],
            squires=c["squires"],
            voting_markers=c["voting_markers"],
            dishonor=c.get("dishonor", 0),
            lord=c.get("lord", ""),
            bishops=c.get("bishops", 0),
            seals=c.get("seals", 0),
            privileges=tuple(c.get("privileges", ())),
            granted=tuple(c.get("granted", ())),
            turned=tuple(int(n) for n in c.get("turned", ())),
        )
        for c in d["colours"]
    )
    return State(
        config=config,
        data=data,
        players=int(d["players"]),
        round=int(d["round"]),
        start_player=int(d["start_player"]),
        next_start_player=d["next_start_player"],
        colours=colours,
        counties=tuple(
            None if o is None else Occupant(o[0], o[1], o[2], *[bool(x) for x in o[3:5]])
            for o in d["counties"]
        ),
        nobles=tuple(d["nobles"]),
        upper=tuple(_load_conflict(c) for c in d["upper"]),
        lower=tuple(_load_conflict(c) for c in d["lower"]),
        conflict_pile=tuple(d["conflict_pile"]),
        favors=tuple(d["favors"]),
        favors_in_game=tuple(d["favors_in_game"]),
        laws=tuple(d["laws"]),
        new_laws=tuple(d["new_laws"]),
        law_pile=tuple(d["law_pile"]),
        votes=tuple(_load_vote(v) for v in d["votes"]),
        results=tuple(
            VoteResult(
                r["law"],
                r["approved"],
                r["yes"],
                r["no"],
                tuple(_load_revealed(v) for v in r["votes"]),
            )
            for r in d["results"]
        ),
        agenda=tuple(_tuples(f) for f in d["agenda"]),
        rng=int(d["rng"]),
        tower=tuple((int(c), int(k)) for c, k in d.get("tower", ())),
        dishonor_track=tuple(int(n) for n in d.get("dishonor_track", ())),
        dishonor_box=int(d.get("dishonor_box", 0)),
        applicants=tuple(
            None if a is None else Applicant(int(a[0]), tuple(a[1]), int(a[2]), bool(a[3]))
            for a in d.get("applicants", ())
        ),
        office_holders=tuple(d.get("office_holders", ())),
        treasury=_three(d.get("treasury", (0, 0, 0))),
        bishop_supply=int(d.get("bishop_supply", 0)),
        seal_supply=int(d.get("seal_supply", 0)),
        privilege_supply=_three(d.get("privilege_supply", (0, 0, 0))),
        markers_after_voting=tuple(int(n) for n in d.get("markers_after_voting", ())),
        removed_cards=tuple(int(n) for n in d.get("removed_cards", ())),
        law_sets=tuple(str(x) for x in d.get("law_sets", ())),
        law_sets_drawn=tuple(bool(x) for x in d.get("law_sets_drawn", ())),
    )


def _three(t: Any) -> tuple[int, int, int]:
    return int(t[0]), int(t[1]), int(t[2])
