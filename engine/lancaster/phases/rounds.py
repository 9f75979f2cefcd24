"""The frame of the game: the setup choice, the phases of a round, and phase 4 (prepare the
next round) — decision: rules/README.md, Lancaster 1.

``round_frames`` is the sequence of play of one round. The expansions insert their frames
through the extension points below (filled by ``wiring.py``): Henry V fills the offices and
clears the tower before the counties, and its privileges last one round.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.core.protocol import Action, IllegalActionError
from engine.core.records import replace
from engine.lancaster.frames import (
    CastleFrame,
    ConflictFrame,
    CountyFrame,
    Ctx,
    Handler,
    LawFrame,
    VoteFrame,
    pop,
    replace_head,
)
from engine.lancaster.pieces import name
from engine.lancaster.state import Conflict, Frame, State

#: Extension point: frames run at the start of phase 3, before the counties, each
#: ``state -> frames`` (At the King's Court: the offices; The King's Resentment: the tower)
BEFORE_COUNTIES: list[Callable[[State], tuple[Frame, ...]]] = []
#: Extension point: frames run after all castles, ``state -> frames`` (The New Laws:
#: turned-over extensions are flipped back)
AFTER_CASTLES: list[Callable[[State], tuple[Frame, ...]]] = []
#: Extension point: whether markers kept for a law go back only after the laws, ``state ->
#: bool`` (Laws of the King, decision 16; The New Laws' "retained" markers, decision 18)
LATE_MARKERS: list[Callable[[State], bool]] = []
#: Extension point: what phase 4 does first, ``(state, ctx) -> state`` (At the King's Court:
#: privileges last one round)
NEXT_ROUND: list[Callable[[State, Ctx], State]] = []


def round_frames(state: State) -> tuple[Frame, ...]:
    before_counties = tuple(f for frames in BEFORE_COUNTIES for f in frames(state))
    late = any(keeps(state) for keeps in LATE_MARKERS)
    return (
        ("place", state.start_player),
        VoteFrame("vote", 0),
        VoteFrame("vote", 1),
        VoteFrame("vote", 2),
        ("return_markers",),
        LawFrame("law", 0),
        LawFrame("law", 1),
        LawFrame("law", 2),
        *((("return_markers_late",),) if late else ()),
        *before_counties,
        *(CountyFrame("county", i) for i in range(9)),
        *(CastleFrame("castle", seat) for seat in state.seat_order()),
        *(f for frames in AFTER_CASTLES for f in frames(state)),
        ConflictFrame("conflict", "lower", 0),
        ConflictFrame("conflict", "lower", 1),
        ConflictFrame("conflict", "upper", 0),
        ConflictFrame("conflict", "upper", 1),
        ("end_round",),
    )


class SetupExtension(Handler):
    """``("setup",)``: every player chooses the extension tile to start with, all at once
    (decision, not in the texts: simultaneous, since no choice affects another player; the
    choices are public as soon as made)."""

    kind = "setup"
    simultaneous = True

    def phase(self, state: State, frame: Frame) -> str:
        return "setup"

    def seats(self, state: State, frame: Frame) -> frozenset[int]:
        return frozenset(s for s in range(state.players) if not state.colours[s].extensions)

    def options(self, state: State, frame: Frame, seat: int) -> list[Action]:
        return [("extension", n) for n in range(1, 7)]

    def ask(self, state: State, frame: Frame, seat: int) -> bool:
        return True

    def check(self, state: State, frame: Frame, seat: int, action: Action) -> None:
        if action not in self.options(state, frame, seat):
            raise IllegalActionError(
                "Choose the castle space (1 to 6) your first extension "
                "tile covers, e.g. 'extension 2'."
            )

    def resolve(self, state: State, frame: Frame, seat: int, action: Action, ctx: Ctx) -> State:
        n = int(action[1])
        space = state.data.space(n)
        state = state.with_colour(seat, extensions=(n,))
        ctx.say(
            f"{name(state, seat)} starts with an extension tile on castle space {n} "
            f"({space.reward.describe()})."
        )
        if self.seats(state, frame):
            return state
        ctx.say(f"Round 1 begins; {state.colour_name(state.start_player)} is the start player.")
        return pop(state)

    def auto(self, state: State, frame: Frame, seat: int) -> Action:
        return ("extension", 1)  # auto.py: the first space

    def prompt(self, state: State, frame: Frame, seat: int) -> str:
        if state.colours[seat].extensions:
            return "You have chosen; waiting for the others."
        spaces = "; ".join(
            f"{s.number}: {'pay ' + str(s.cost_squires) + ' squires: ' if s.cost_squires else ''}"
            f"{s.reward.describe()}"
            for s in state.data.castle
        )
        return f"Choose the castle space your first extension tile covers ({spaces})."

    def waiting(self, state: State, frame: Frame) -> str:
        left = ", ".join(state.colour_name(s) for s in sorted(self.seats(state, frame)))
        return f"Waiting for {left} to choose a first extension tile."


class EndRound(Handler):
    """``("end_round",)``: the game ends after the last round; otherwise phase 4 prepares the
    next one: new conflict cards, favor tiles face up, new laws, the new start player."""

    kind = "end_round"

    def phase(self, state: State, frame: Frame) -> str:
        return "conflicts"

    def step(self, state: State, frame: Frame, ctx: Ctx) -> tuple[State, bool]:
        if state.round >= state.data.rounds:
            ctx.say(f"Round {state.round} is over: the game ends with the final scoring.")
            return pop(state), False
        ctx.irreversible = True  # new cards and laws are revealed
        for hook in NEXT_ROUND:
            state = hook(state, ctx)
        start = state.start_player
        if state.next_start_player is not None:
            start = state.next_start_player  # named by Surrey's holder (decision 6)
        upper = list(state.upper)
        pile = state.conflict_pile
        for slot in range(2):
            assert upper[slot] is None
            if pile:
                upper[slot] = Conflict(pile[0], ())
                pile = pile[1:]
        new_laws, law_pile = state.law_pile[:3], state.law_pile[3:]
        state = replace(
            state,
            round=state.round + 1,
            start_player=start,
            next_start_player=None,
            upper=tuple(upper),
            conflict_pile=pile,
            favors=state.favors_in_game,
            new_laws=new_laws,
            law_pile=law_pile,
            results=(),
        )
        cards = ", ".join(str(c.card) for c in upper if c is not None)
        titles = "; ".join(state.data.law(k).title for k in new_laws)
        ctx.say(
            f"Round {state.round} begins; {state.colour_name(start)} is the start player. "
            f"New conflicts: {cards}. New laws: {titles}. The king's favor tiles are face up."
        )
        return replace_head(state, *round_frames(state)), False
