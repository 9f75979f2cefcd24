"""A small test language for Lancaster: set up a seeded game, arrange the few things a
scenario needs (start player, cards, laws), then play actions as players type them.

Arranging uses ``dataclasses.replace`` on the state (allowed for reaching a position); the
rules under test are always exercised by playing actions through ``parse_action``/``apply``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from engine.core.protocol import Action, Transition
from engine.lancaster import LANCASTER, LANCASTER_1_0, LancasterRules
from engine.lancaster.flow import advance
from engine.lancaster.frames import Ctx
from engine.lancaster.phases.rounds import round_frames
from engine.lancaster.state import Colour, Conflict, Occupant, Space

#: the rules the scenarios were written for: 1.0.0, which games created with it keep for ever
#: (so these tests pin its behaviour); scenarios of a later release pass ``rules=``
R = LANCASTER_1_0
#: the latest release, what new games get
LATEST = LANCASTER
RED, BLUE, YELLOW, GREEN, PURPLE = range(5)


class Game:
    """A game under test: ``play(seat, text)`` types a command for a seat."""

    def __init__(
        self,
        players: int = 3,
        seed: int = 1,
        *,
        start: int = RED,
        cards: tuple[int, int] | None = None,
        laws: tuple[str, str, str] | None = None,
        new_laws: tuple[str, str, str] | None = None,
        config: dict[str, Any] | None = None,
        rules: LancasterRules = R,
    ) -> None:
        self.rules = rules
        cfg = {"players": players, **(config or {})}
        state = rules.initial_state(cfg, seed)
        state = replace(state, start_player=start)
        if cards is not None:
            pool = [c.card for c in state.upper if c] + list(state.conflict_pile)
            assert set(cards) <= set(pool), f"cards {cards} are not in this game"
            rest = tuple(c for c in pool if c not in cards)
            state = replace(
                state,
                upper=(Conflict(cards[0], ()), Conflict(cards[1], ())),
                conflict_pile=rest,
            )
        if laws is not None:
            state = replace(state, laws=laws)
        if new_laws is not None:
            state = replace(state, new_laws=new_laws)
        self.state = replace(state, agenda=(("setup",), *round_frames(state)))
        self.log: list[str] = []
        self.transitions: list[Transition] = []

    # -- playing --

    def play(self, seat: int, text: str) -> Transition:
        action = self.rules.parse_action(self.state, seat, text)
        return self.apply(seat, action)

    def apply(self, seat: int, action: Action) -> Transition:
        t = self.rules.apply(self.state, seat, action)
        self.state = t.state
        self.log.extend(t.log)
        self.transitions.append(t)
        return t

    def moves(self, *moves: tuple[int, str]) -> None:
        for seat, text in moves:
            self.play(seat, text)

    def setup(self, *spaces: int) -> None:
        """Each seat in turn chooses its first extension space."""
        for seat, space in enumerate(spaces):
            self.play(seat, f"extension {space}")

    def vote_all(self, *texts: str) -> None:
        """Every seat votes; ``texts`` per seat (one text: all the same)."""
        for seat in range(self.state.players):
            text = texts[seat] if len(texts) > 1 else texts[0]
            self.play(seat, text)

    def vote_laws(self, *rounds_of_votes: tuple[str, ...]) -> None:
        for votes in rounds_of_votes:
            self.vote_all(*votes)

    # -- arranging (test-only state edits) --

    def edit(self, **changes: Any) -> None:
        self.state = replace(self.state, **changes)

    def edit_colour(self, colour: int, **changes: Any) -> None:
        self.state = self.state.with_colour(colour, **changes)

    def run_from(self, *frames: tuple[Any, ...]) -> None:
        """Replace the agenda by ``frames`` and run to the next decision."""
        ctx = Ctx()
        self.state = advance(replace(self.state, agenda=frames), ctx)
        self.log.extend(ctx.log)

    def stop_after(self, *frame: Any) -> None:
        """Cut the agenda after ``frame``: the game stops there, so a test can look at the
        state exactly as that step left it."""
        agenda = self.state.agenda
        i = agenda.index(tuple(frame))
        self.state = replace(self.state, agenda=agenda[: i + 1])

    def place_rest_in_castles(self) -> None:
        """Every knight still at court goes to the first free castle space of its colour, in
        turn (own knights before the ally's)."""
        while self.state.agenda and self.head[0] == "place":
            seat = self.head[1]
            colour = next(c for c in self.state.colours_of(seat) if self.c(c).court)
            col = self.c(colour)
            free = next(
                n for n in range(1, 7) if n not in col.extensions and col.castle[n - 1] is None
            )
            who = "ally knight" if self.state.is_ally(colour) else "knight"
            self.play(seat, f"{who} {col.court[0]} to castle {free}")

    def reject_all_new_laws(self) -> None:
        for _ in range(3):
            self.vote_all("vote no")

    def auto_until(self, *kinds: str) -> None:
        """Let every seat take its deadline default until the head frame is of ``kinds``
        (or the game ends)."""
        while self.state.agenda and self.head[0] not in kinds:
            seat = min(self.to_act)
            self.apply(seat, self.rules.auto_action(self.state, seat))

    def next_round(self) -> None:
        """Deadline defaults for everyone until the next round's placement begins."""
        current = self.state.round
        while self.state.agenda and (self.state.round == current or self.head[0] != "place"):
            seat = min(self.to_act)
            self.apply(seat, self.rules.auto_action(self.state, seat))

    def rerun(self) -> None:
        """Run the current agenda again (after an edit changed what is possible)."""
        self.run_from(*self.state.agenda)

    # -- looking --

    def c(self, colour: int) -> Colour:
        return self.state.colours[colour]

    @property
    def to_act(self) -> frozenset[int]:
        return self.rules.to_act(self.state)

    @property
    def head(self) -> tuple[Any, ...]:
        return self.state.agenda[0]

    def legal(self, seat: int) -> list[str]:
        return [
            self.rules.format_action(self.state, a)
            for a in self.rules.legal_actions(self.state, seat)
        ]

    def county(self, letter: str) -> Occupant | None:
        return self.state.counties["ABCDEFGHI".index(letter)]

    def card(self, number: int) -> Conflict:
        found = self.state.find_card(number)
        assert found is not None, f"conflict {number} is not on the board"
        return found[2]

    def spaces(self, number: int) -> list[tuple[int, tuple[int, ...]]]:
        return [(sp.colour, sp.knights) for sp in self.card(number).spaces]

    def view(self, seat: int | None) -> dict[str, Any]:
        return self.rules.view(self.state, seat)

    def said(self, fragment: str) -> bool:
        return any(fragment in line for line in self.log)


def space(colour: int, *knights: int) -> Space:
    return Space(colour, tuple(sorted(knights)))
