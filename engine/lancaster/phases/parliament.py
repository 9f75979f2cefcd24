"""Phase 2: parliament — the secret, simultaneous vote on each of the three new laws.

Action: ``("vote", yes, markers)``. Nothing about a vote is shown until every seat has voted;
the reveal is an irreversible transition (decision: rules/README.md, Lancaster 5).
"""

from __future__ import annotations

from engine.core.protocol import Action, IllegalActionError
from engine.core.records import replace
from engine.lancaster import actions
from engine.lancaster.frames import Ctx, Handler, pop
from engine.lancaster.pieces import name, plural
from engine.lancaster.state import Frame, State, Vote, VoteResult


class VoteOnLaw(Handler):
    """``("vote", i)``: the vote on ``new_laws[i]``; every seat that has not voted acts."""

    kind = "vote"
    simultaneous = True

    def phase(self, state: State, frame: Frame) -> str:
        return "parliament"

    def seats(self, state: State, frame: Frame) -> frozenset[int]:
        votes = state.votes
        return frozenset([s for s in range(state.players) if votes[s] is None])

    def options(self, state: State, frame: Frame, seat: int) -> list[Action]:
        markers = state.colours[seat].voting_markers
        return [actions.Vote("vote", yes, m) for yes in (False, True) for m in range(markers + 1)]

    def ask(self, state: State, frame: Frame, seat: int) -> bool:
        return True

    def is_option(self, state: State, frame: Frame, seat: int, action: Action) -> bool:
        """``action in self.options(...)`` without building them (``==``, as ``in``
        compares): ``("vote", yes, m)``, ``yes`` False or True, ``m`` from 0 to the seat's
        voting markers."""
        return (
            isinstance(action, tuple)
            and len(action) == 3
            and action[0] == "vote"
            and action[1] in (False, True)
            and action[2] in range(state.colours[seat].voting_markers + 1)
        )

    def check(self, state: State, frame: Frame, seat: int, action: Action) -> None:
        if len(action) != 3 or action[0] != "vote" or not isinstance(action[1], bool):
            raise IllegalActionError("Now you vote, e.g. 'vote yes 1' or 'vote no'.")
        markers = action[2]
        have = state.colours[seat].voting_markers
        if isinstance(markers, bool) or not isinstance(markers, int) or markers < 0:
            raise IllegalActionError("The number of voting markers must be 0 or more.")
        if markers > have:
            raise IllegalActionError(
                f"You have only {plural(have, 'voting marker')} to add to your vote."
            )

    def resolve(self, state: State, frame: Frame, seat: int, action: Action, ctx: Ctx) -> State:
        votes = list(state.votes)
        vote = actions.Vote.of(action)
        votes[seat] = Vote(bool(vote.yes), int(vote.markers))
        state = replace(state, votes=tuple(votes))
        ctx.say(f"{name(state, seat)} has voted.")  # what was voted stays secret until all have
        if any(v is None for v in votes):
            return state
        return _reveal(state, int(frame[1]), ctx)

    def auto(self, state: State, frame: Frame, seat: int) -> Action:
        return actions.Vote("vote", False, 0)  # auto.py: vote no, with no markers

    def prompt(self, state: State, frame: Frame, seat: int) -> str:
        law = state.data.law(state.new_laws[int(frame[1])])
        have = state.colours[seat].voting_markers
        if state.votes[seat] is not None:
            return "You have voted; waiting for the others."
        markers = (
            f", adding 0 to {have} of your voting markers"
            if have
            else "; you have no voting markers to add"
        )
        return (
            f'Vote on the new law "{law.title}": {law.text} Vote yes or no{markers} '
            "(a tie approves the law)."
        )

    def waiting(self, state: State, frame: Frame) -> str:
        left = ", ".join(state.colour_name(s) for s in sorted(self.seats(state, frame)))
        return f"Waiting for the votes of {left}."


def _reveal(state: State, index: int, ctx: Ctx) -> State:
    """All have voted: reveal, count, and pass or reject the law (decision 5)."""
    ctx.irreversible = True  # votes are revealed: undo can never cross this
    key = state.new_laws[index]
    law = state.data.law(key)
    votes = tuple(v for v in state.votes if v is not None)
    yes = sum(1 + v.markers for v in votes if v.yes)
    no = sum(1 + v.markers for v in votes if not v.yes)
    approved = yes >= no  # Lancaster: a tie approves the law
    shown = ", ".join(
        f"{name(state, s)} {'yes' if v.yes else 'no'}" + (f" +{v.markers}" if v.markers else "")
        for s, v in enumerate(votes)
    )
    colours = list(state.colours)
    for s, v in enumerate(votes):
        # Lancaster: used voting markers go to the supply.
        colours[s] = replace(colours[s], voting_markers=colours[s].voting_markers - v.markers)
    laws = state.laws
    if approved:
        # Lancaster: the approved law enters from the right and pushes out the leftmost.
        pushed = state.data.law(laws[0]).title
        laws = (*laws[1:], key)
        verdict = f'approved; it enters the current laws and "{pushed}" leaves the game'
    else:
        verdict = "rejected; it leaves the game"
    ctx.say(f'Votes on "{law.title}": {shown}. {yes} for, {no} against: {verdict}.')
    result = VoteResult(key, approved, yes, no, votes)
    return pop(
        replace(
            state,
            colours=tuple(colours),
            laws=laws,
            votes=(None,) * state.players,
            results=(*state.results, result),
        )
    )


#: Extension point: every law that keeps voting markers until the laws are applied, filled
#: by ``wiring.py``: Laws of the King's (decision 16), and The New Laws' "retained" voting
#: markers (decision 18, as decision 16)
KEEPING_LAWS: list[str] = []


class ReturnMarkersLate(Handler):
    """``("return_markers_late",)``: Laws of the King, decision 16 — after all current laws,
    the markers held after the third voting go back; those gained from laws are kept."""

    kind = "return_markers_late"

    def phase(self, state: State, frame: Frame) -> str:
        return "laws"

    def step(self, state: State, frame: Frame, ctx: Ctx) -> tuple[State, bool]:
        held = state.markers_after_voting
        if not held:
            return pop(state), False
        for s, n in enumerate(held):
            c = state.colours[s]
            state = state.with_colour(s, voting_markers=c.voting_markers - min(n, c.voting_markers))
        if any(held):
            ctx.say(
                "The voting markers held after the third voting go back to the supply "
                "(those gained from laws are kept)."
            )
        return pop(replace(state, markers_after_voting=())), False


class ReturnMarkers(Handler):
    """``("return_markers",)``: after the third vote, unused voting markers go to the supply
    (decision 5). Henry V's "after the third voting" laws come before this frame."""

    kind = "return_markers"

    def phase(self, state: State, frame: Frame) -> str:
        return "parliament"

    def step(self, state: State, frame: Frame, ctx: Ctx) -> tuple[State, bool]:
        keeping = [k for k in state.laws if k in KEEPING_LAWS]
        if keeping:
            # decision 16: with this law in force, the markers held after the third voting
            # go back only after all current laws applied (frame "return_markers_late")
            held = tuple(state.colours[s].voting_markers for s in range(state.players))
            ctx.say(
                f'Law "{state.data.law(keeping[0]).title}": unused voting markers stay '
                "until the current laws are applied."
            )
            return pop(replace(state, markers_after_voting=held)), False
        colours = tuple(
            replace(c, voting_markers=0) if i < state.players else c
            for i, c in enumerate(state.colours)
        )
        if any(c.voting_markers for c in state.colours):
            ctx.say("Unused voting markers go back to the supply.")
        return pop(replace(state, colours=colours)), False
