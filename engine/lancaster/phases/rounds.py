"""The frame of the game: the setup choice, the phases of a round, and phase 4 (prepare the
next round) — decision: rules/README.md, Lancaster 1.

``round_frames`` is the sequence of play of one round. Henry V inserts its frames here (the
offices are filled before the counties; the tower is cleared before them too).
"""

from __future__ import annotations

from dataclasses import replace

from engine.core.protocol import Action, IllegalActionError
from engine.lancaster.frames import Ctx, Handler, pop, replace_head
from engine.lancaster.henry_v import LAWS_OF_THE_KING, court, privileges, resentment
from engine.lancaster.pieces import name
from engine.lancaster.state import Conflict, Frame, State


def round_frames(state: State) -> tuple[Frame, ...]:
    # The King's Resentment: the tower is cleared before the counties are scored (001).
    # At the King's Court: the offices are filled first of all in phase 3 (001).
    before_counties: tuple[Frame, ...] = (
        *((("offices",),) if court.active(state) else ()),
        *((("tower_clear",),) if resentment.active(state) else ()),
    )
    new = bool(state.law_sets)  # The New Laws in this game (config "new_laws")
    return (
        ("place", state.start_player),
        ("vote", 0),
        ("vote", 1),
        ("vote", 2),
        ("return_markers",),
        ("law", 0),
        ("law", 1),
        ("law", 2),
        # Laws of the King: markers kept for a law go back after the laws (decision 16); so
        # do The New Laws' "retained" markers (decision 18)
        *((("return_markers_late",),) if LAWS_OF_THE_KING in state.expansions or new else ()),
        *before_counties,
        *(("county", i) for i in range(9)),
        *(("castle", seat) for seat in state.seat_order()),
        # The New Laws: turned-over extensions are flipped back after all castles
        *((("extensions_back",),) if new else ()),
        ("conflict", "lower", 0),
        ("conflict", "lower", 1),
        ("conflict", "upper", 0),
        ("conflict", "upper", 1),
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
        if court.active(state):
            state = privileges.next_round(state, ctx)  # 001: privileges last one round
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
