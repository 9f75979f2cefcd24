"""At the King's Court (rules text 001; decision 13): lords, offices, the treasury, regal
seals and bishops.

- Setup: every colour has a lord at court; players start with 2 voting markers; bishops on
  the regal board by player count; 24 seals in the supply.
- Phase 1: placing the lord is one of the player's turns: on an office (paying its tribute
  into the treasury, supported by knights and bishops from court placed with it in the same
  turn; a strictly higher stack expels the applicant, whose lord and supporters go back to
  court, the tribute staying) or into the treasury (claiming all of its voting markers, all
  its squires or all its gold; never expelled).
- Phase 3, first: every office with an applicant goes to it, one without stays with its
  holder; the holder receives the grant (seals; the privilege is described in ``Office``);
  lords and supporters go back to court.
- Bishops: whenever a player may upgrade a knight, they may take a bishop instead (at most 3,
  none when the supply is empty); strength 1, placed only with the lord.
- Final scoring: (1 lord + bishops) x seals.
- 2 players: each player also places the ally's lord (supported by ally knights only, no
  tribute; its treasury claim returns the goods to the supply); own and ally lords cannot
  expel each other; an ally's office gives no seals; an ally's bishop is removed from the game.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import product
from typing import Any

from engine.core.protocol import Action, IllegalActionError
from engine.core.records import replace
from engine.lancaster.data import Data, Office
from engine.lancaster.frames import Ctx, Handler, pop
from engine.lancaster.henry_v import KINGS_COURT, privileges
from engine.lancaster.henry_v.privileges import supply_tudor
from engine.lancaster.pieces import name, plural, remove, to_court
from engine.lancaster.state import Applicant, Colour, Frame, State

TREASURY_KINDS = ("voting_markers", "squires", "gold")
KIND_WORDS = {"voting_markers": "voting markers", "squires": "squires", "gold": "gold"}


def active(state: State) -> bool:
    return KINGS_COURT in state.expansions


def set_up(state: State) -> State:
    """The regal board, and each player's lord and bishops, in a game with this module."""
    if not active(state):
        return state
    return replace(state, **setup_values(state.data, state.players, state.colours))


def lord_to_treasury(options: list[Action]) -> Action | None:
    """The deadline default once only lords are left to place: the lord enters the treasury
    (it costs nothing) and claims its gold (decision 30)."""
    lords = [a for a in options if a[0] == "lord" and a[2] == "treasury"]
    return next((a for a in lords if a[3] == "gold"), None)


def setup_values(data: Data, players: int, colours: tuple[Colour, ...]) -> dict[str, Any]:
    """The State fields of this module at the start of a game."""
    start = tuple(
        replace(
            c,
            lord="court",
            voting_markers=data.court_start_voting_markers if i < players else 0,
        )
        for i, c in enumerate(colours)
    )
    return {
        "colours": start,
        "applicants": (None,) * len(data.offices),
        "office_holders": (None,) * len(data.offices),
        "treasury": (0, 0, 0),
        "bishop_supply": dict(data.bishops_per_players)[players],
        "seal_supply": data.seals,
        "privilege_supply": data.privileges,
    }


def office(state: State, key: str) -> tuple[int, Office]:
    for i, o in enumerate(state.data.offices):
        if o.key == key:
            return i, o
    raise KeyError(key)


# -- the lord's placement -----------------------------------------------------------------------


def _supports(court: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """Every distinct set of knights from ``court`` (knights of equal strength are alike)."""
    counts: dict[int, int] = {}
    for k in court:
        counts[k] = counts.get(k, 0) + 1
    keys = sorted(counts)
    for picks in product(*(range(counts[k] + 1) for k in keys)):
        yield tuple(k for k, n in zip(keys, picks, strict=True) for _ in range(n))


def _can_expel(state: State, colour: int, applicant: Applicant | None, stack: int) -> bool:
    if applicant is None:
        return True
    if state.controller(applicant.colour) == state.controller(colour):
        return False  # your own lord, or (2 players) your ally's: never expelled by you
    return stack > applicant.stack  # decision 13: a strictly higher stack


def _pays(state: State, colour: int, o: Office) -> bool:
    if state.is_ally(colour):
        return True  # 001, 2 players: the ally's lord pays no tribute
    return int(getattr(state.colours[colour], o.tribute)) >= 1


def lord_options(state: State, seat: int) -> list[Action]:
    if not active(state):
        return []
    out: list[Action] = []
    for colour in state.colours_of(seat):
        col = state.colours[colour]
        if col.lord != "court":
            continue
        ally = state.is_ally(colour)
        out.extend(("lord", ally, "treasury", kind) for kind in TREASURY_KINDS)
        for i, o in enumerate(state.data.offices):
            if not _pays(state, colour, o):
                continue
            tudors = (False, True) if "tudor" in col.privileges else (False,)
            for knights in _supports(col.court):
                for bishops in range(col.bishops + 1):
                    for tudor in tudors:
                        if tudor and not knights and state.data.privilege_needs_knight:
                            continue  # decision: rules/README.md, Henry V 19
                        stack = 1 + sum(knights) + bishops + (2 if tudor else 0)
                        if _can_expel(state, colour, state.applicants[i], stack):
                            # a Tudor knight in support (001) is a sixth item, only when used
                            extra = (True,) if tudor else ()
                            out.append(("lord", ally, o.key, knights, bishops, *extra))
    return out


def lord_at_court(state: State, seat: int) -> bool:
    return active(state) and any(state.colours[c].lord == "court" for c in state.colours_of(seat))


def lord_check(state: State, seat: int, action: Action) -> None:
    if not active(state):
        raise IllegalActionError("There are no lords: At the King's Court is not in this game.")
    ally = action[1] if len(action) > 1 else None
    if not isinstance(ally, bool) or (ally and not state.two_player):
        raise IllegalActionError("Allies exist only in the 2-player game.")
    colour = state.ally_of(seat) if ally else seat
    assert colour is not None
    if state.colours[colour].lord != "court":
        raise IllegalActionError("That lord is not at court: it was placed this round already.")
    if action not in lord_options(state, seat):
        tudor_alone = len(action) == 6 and action[5] and not action[3]
        if tudor_alone and state.data.privilege_needs_knight:
            # decision: rules/README.md, Henry V 19 (seed 001: "requires one of that player's
            # own knights to use")
            raise IllegalActionError(
                "A Tudor knight supports a lord only together with one of your own knights "
                "(Henry V: a privilege needs a knight): add a knight from court."
            )
        if len(action) == 5 and isinstance(action[2], str) and action[2] != "treasury":
            _office_reason(state, colour, action)
        raise IllegalActionError(
            "A lord goes to an office (chancellor, constable, chamberlain) with knights and "
            "bishops from court, or into the treasury, e.g. 'lord to treasury gold'."
        )


def _office_reason(state: State, colour: int, action: Action) -> None:
    try:
        i, o = office(state, str(action[2]))
    except KeyError:
        raise IllegalActionError("The offices are chancellor, constable and chamberlain.") from None
    col = state.colours[colour]
    if not _pays(state, colour, o):
        raise IllegalActionError(
            f"The {o.title}'s tribute is 1 {KIND_WORDS[o.tribute].rstrip('s')}; you have none."
        )
    knights, bishops = tuple(action[3]), action[4]
    for k in set(knights):
        if knights.count(k) > col.court.count(k):
            raise IllegalActionError(f"Your court has no (more) knight {k} to support the lord.")
    if not isinstance(bishops, int) or not 0 <= bishops <= col.bishops:
        raise IllegalActionError(f"You have {plural(col.bishops, 'bishop')} at court.")
    applicant = state.applicants[i]
    if applicant is not None and state.controller(applicant.colour) == state.controller(colour):
        raise IllegalActionError(
            f"Your own lord (or your ally's) applies for the {o.title}: it cannot be expelled "
            "by you."
        )
    if applicant is not None:
        raise IllegalActionError(
            f"To expel {name(state, applicant.colour)}'s lord from the {o.title} (stack "
            f"{applicant.stack}) your stack must be higher; it is {1 + sum(knights) + bishops}."
        )


def lord_resolve(state: State, seat: int, action: Action, ctx: Ctx) -> tuple[State, int | None]:
    """Place the lord; returns the new state and the seat whose lord was expelled (if any)."""
    ally = bool(action[1])
    colour = state.ally_of(seat) if ally else seat
    assert colour is not None
    who = name(state, colour)
    if action[2] == "treasury":
        kind = str(action[3])
        k = TREASURY_KINDS.index(kind)
        amount = state.treasury[k]
        treasury = list(state.treasury)
        treasury[k] = 0
        state = replace(state, treasury=_three(treasury)).with_colour(colour, lord="treasury")
        if ally:
            # 001, 2 players: an ally's lord returns what it claims to the general supply
            ctx.say(
                f"{who}'s lord enters the treasury and returns its {KIND_WORDS[kind]} "
                f"({amount}) to the supply."
            )
        else:
            got = getattr(state.colours[colour], kind) + amount
            state = state.with_colour(colour, **{kind: got})
            ctx.say(
                f"{who}'s lord enters the treasury and claims its {KIND_WORDS[kind]} ({amount})."
            )
        return state, None
    i, o = office(state, str(action[2]))
    knights, bishops = tuple(int(k) for k in action[3]), int(action[4])
    tudor = len(action) > 5 and bool(action[5])
    col = state.colours[colour]
    court = col.court
    for k in knights:
        court = remove(court, k)
    state = state.with_colour(colour, court=court, lord="office")
    if tudor:
        privileges = list(col.privileges)
        privileges.remove("tudor")
        state = state.with_colour(colour, privileges=tuple(privileges))
    if not ally:
        treasury = list(state.treasury)
        treasury[TREASURY_KINDS.index(o.tribute)] += 1
        have = int(getattr(state.colours[colour], o.tribute))
        state = state.with_colour(colour, **{o.tribute: have - 1})
        state = replace(state, treasury=_three(treasury))
    support = [f"knight {k}" for k in knights]
    if bishops:
        support.append(plural(bishops, "bishop"))
    if tudor:
        support.append("the Tudor knight")
    backed = f" with {' and '.join(support)}" if support else ""
    paid = "" if ally else f", paying 1 {KIND_WORDS[o.tribute].rstrip('s')} into the treasury"
    ctx.say(f"{who}'s lord applies for the {o.title}{backed}{paid}.")
    returned: int | None = None
    old = state.applicants[i]
    if old is not None:
        # decision 13: the expelled lord and its supporters go back to court; the tribute stays
        state = to_court(state, old.colour, *old.knights).with_colour(old.colour, lord="court")
        ctx.say(f"{name(state, old.colour)}'s lord is expelled back to court with its supporters.")
        returned = state.controller(old.colour)
        if old.tudor:
            # decision (not in the texts): the expelled Tudor knight goes back to the regal
            # board, as it does whenever its knights go back to court
            state = supply_tudor(state, ctx)
    applicants = list(state.applicants)
    applicants[i] = Applicant(colour, tuple(sorted(knights)), bishops, tudor)
    return replace(state, applicants=tuple(applicants)), returned


def _three(values: list[int]) -> tuple[int, int, int]:
    return values[0], values[1], values[2]


def bishops_in_stacks(state: State, colour: int) -> int:
    return sum(a.bishops for a in state.applicants if a is not None and a.colour == colour)


# -- phase 3: the offices are filled first ------------------------------------------------------


class FillOffices(Handler):
    """``("offices",)``: each office goes to its applicant, or stays with its holder; the
    holder receives the grant; lords and supporters go back to court (001, Phase 3)."""

    kind = "offices"

    def phase(self, state: State, frame: Frame) -> str:
        return "offices"

    def step(self, state: State, frame: Frame, ctx: Ctx) -> tuple[State, bool]:
        holders = list(state.office_holders)
        for i, o in enumerate(state.data.offices):
            applicant = state.applicants[i]
            if applicant is not None:
                holders[i] = applicant.colour
            holder = holders[i]
            if holder is None:
                continue
            how = "is appointed" if applicant is not None else "keeps the office, granted again"
            state = _grant(state, holder, o, ctx, f"{name(state, holder)} {how}: {o.title}")
            if state.round < state.data.rounds or o.privilege_in_last_round:
                state = privileges.grant(state, holder, o.privilege, ctx)
        for applicant in state.applicants:
            if applicant is not None:
                state = to_court(state, applicant.colour, *applicant.knights)
                if applicant.tudor:
                    state = supply_tudor(state, ctx)  # 001: supporting Tudor knights go back
        colours = tuple(replace(c, lord="court") if c.lord else c for c in state.colours)
        state = replace(
            state,
            colours=colours,
            office_holders=tuple(holders),
            applicants=(None,) * len(state.data.offices),
        )
        ctx.say("The lords and their supporters go back to court.")
        return pop(state), False


def _grant(state: State, colour: int, o: Office, ctx: Ctx, head: str) -> State:
    """An office's grant: seals for a player (never an ally, 001), while the supply lasts."""
    parts: list[str] = []
    if o.seals and not state.is_ally(colour):
        n = min(o.seals, state.seal_supply)
        if n:
            state = replace(state, seal_supply=state.seal_supply - n)
            state = state.with_colour(colour, seals=state.colours[colour].seals + n)
            parts.append(plural(n, "regal seal"))
    ctx.say(f"{head}" + (f"; receives {' and '.join(parts)}." if parts else "."))
    return state


# -- bishops instead of an upgrade ----------------------------------------------------------------


def can_take_bishop(state: State, colour: int) -> bool:
    if not active(state) or state.bishop_supply <= 0:
        return False
    return state.is_ally(colour) or state.colours[colour].bishops < state.data.bishops_max


def take_bishop(state: State, colour: int, ctx: Ctx) -> State:
    state = replace(state, bishop_supply=state.bishop_supply - 1)
    if state.is_ally(colour):
        # 001, 2 players: an ally takes a bishop from the supply and removes it from the game
        ctx.say(f"{name(state, colour)} removes a bishop from the game instead of an upgrade.")
        return state
    ctx.say(f"{name(state, colour)} takes a bishop instead of an upgrade.")
    return state.with_colour(colour, bishops=state.colours[colour].bishops + 1)


# -- final scoring -------------------------------------------------------------------------------


def seals_scoring(state: State) -> dict[str, list[int]]:
    """001: (1 lord + bishops) x seals."""
    n = state.players
    return {
        "seals": [(1 + state.colours[s].bishops) * state.colours[s].seals for s in range(n)],
        "seals_count": [state.colours[s].seals for s in range(n)],
        "bishops": [state.colours[s].bishops for s in range(n)],
    }
