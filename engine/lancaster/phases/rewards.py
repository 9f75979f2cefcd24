"""Phase 3: rewards — counties A→I, then castles in player order, then conflicts
(decision: rules/README.md, Lancaster 1).

Actions:
- county (frame ``("county", i)``): ``("noble",)``, ``("reward", detail)``,
  ``("both", detail)`` — detail is the reward's choice (a knight to upgrade, an extension
  space, Dorset's conflict, Surrey's next start player) or None (decision 6);
- castle paid spaces (frame ``("castle_paid", seat, spaces)``): ``("castle", space, detail)``
  to pay for one, ``("done",)`` to decline the rest (decision 7).

Conflicts and ransoms are in ``conflicts.py``.
"""

from __future__ import annotations

from dataclasses import replace

from engine.core.protocol import Action
from engine.lancaster.data import COUNTY_LETTERS, Reward
from engine.lancaster.frames import Ctx, Handler, pop, replace_head
from engine.lancaster.henry_v import privileges
from engine.lancaster.pieces import (
    apply_reward,
    enter_conflict,
    name,
    nobleman_letters,
    plural,
    reward_details,
    take_nobleman,
    to_court,
)
from engine.lancaster.state import Frame, State


def _noble_ok(state: State, i: int, colour: int) -> bool:
    return COUNTY_LETTERS[i] in nobleman_letters(state, colour)


def names_start(state: State, i: int) -> bool:
    """Whether the holder of county ``i`` names the next start player (decision 6: Surrey;
    an ally's choice is lost, engine README decision 7)."""
    occ = state.counties[i]
    return (
        state.data.counties[i].names_start_player
        and occ is not None
        and not state.is_ally(occ.colour)
    )


class CountyReward(Handler):
    """``("county", i)``: the occupant of county ``i`` takes its reward (decision 6)."""

    kind = "county"

    def phase(self, state: State, frame: Frame) -> str:
        return "counties"

    def step(self, state: State, frame: Frame, ctx: Ctx) -> tuple[State, bool]:
        if state.counties[int(frame[1])] is None:
            return pop(state), False
        return state, True

    def seats(self, state: State, frame: Frame) -> frozenset[int]:
        occ = state.counties[int(frame[1])]
        assert occ is not None
        return frozenset({state.controller(occ.colour)})

    def options(self, state: State, frame: Frame, seat: int) -> list[Action]:
        i = int(frame[1])
        occ = state.counties[i]
        assert occ is not None
        county = state.data.counties[i]
        out: list[Action] = []
        details = reward_details(state, occ.colour, county.reward)
        has_reward = county.reward != Reward()
        if has_reward:
            out.extend(("reward", d) for d in details)
        if _noble_ok(state, i, occ.colour):
            out.append(("noble",))
            # Paying for both needs gold, which allies never have (decision 12); "both" is
            # offered only when there is a nobleman to take, so whether you are asked never
            # depends on your hidden gold.
            gold = state.colours[occ.colour].gold
            if has_reward and not state.is_ally(occ.colour) and gold >= state.data.both_cost:
                out.extend(("both", d) for d in details)
        if not out:
            out.append(("nothing",))  # decision 6: Surrey without a nobleman to take
        if names_start(state, i):
            # decision 6: Surrey's holder also names the next start player, whatever they take
            return [(*a, s) for a in out for s in range(state.players)]
        return out

    def illegal_reason(self, state: State, frame: Frame, seat: int, action: Action) -> str:
        occ = state.counties[int(frame[1])]
        assert occ is not None
        letter = COUNTY_LETTERS[int(frame[1])]
        if action[0] in ("noble", "both") and not _noble_ok(state, int(frame[1]), occ.colour):
            return (
                f"You cannot take the nobleman {letter}: you hold one already, or none is left "
                "(Lancaster: each nobleman once). Take the reward."
            )
        county = state.data.counties[int(frame[1])]
        if action[0] in ("reward", "both") and county.reward == Reward():
            # decision 6: Surrey's printed reward is unknown, so it has none here
            return (
                f"{county.name} ({letter}) has no reward of its own in this game: take its "
                f"nobleman. {super().illegal_reason(state, frame, seat, action)}"
            )
        gold, cost = state.colours[occ.colour].gold, state.data.both_cost
        if action[0] == "both" and gold < cost:
            return f"Taking both costs {cost} gold; you have {gold}."
        return super().illegal_reason(state, frame, seat, action)

    def resolve(self, state: State, frame: Frame, seat: int, action: Action, ctx: Ctx) -> State:
        i = int(frame[1])
        letter = COUNTY_LETTERS[i]
        occ = state.counties[i]
        assert occ is not None
        colour = occ.colour
        county = state.data.counties[i]
        who = name(state, colour)
        verb = action[0]
        start: int | None = None
        if names_start(state, i):
            start = int(action[-1])
            action = action[:-1]
        if verb == "nothing":
            ctx.say(f"{who} takes nothing at {letter}: no nobleman is left for them there.")
        if verb == "both":
            cost = state.data.both_cost
            state = state.with_colour(colour, gold=state.colours[colour].gold - cost)
            ctx.say(f"{who} pays {cost} gold for both the nobleman and the reward of {letter}.")
        if verb in ("noble", "both"):
            state = take_nobleman(state, colour, letter, ctx)
        if start is not None:
            state = replace(state, next_start_player=start)
            ctx.say(f"{who} names {state.colour_name(start)} the next start player.")
        moved = False
        if verb in ("reward", "both"):
            detail = action[1]
            state = apply_reward(state, colour, county.reward, detail, ctx, county.name)
            if county.reward.conflict_move:
                if detail is None:
                    ctx.say(f"{who} cannot move the knight to a conflict; the reward is lost.")
                else:
                    # Dorset: the knight moves to a conflict, without a king's favor
                    # (decision 6); its squires go to the supply.
                    occ = state.counties[i]
                    assert occ is not None
                    state = enter_conflict(state, colour, occ.strength, int(detail))
                    ctx.say(
                        f"{who}'s knight {occ.strength} moves from {letter} to conflict {detail}."
                    )
                    if occ.tudor:  # 001: from Dorset, the Tudor knight joins its knight
                        state = privileges.join_conflict(state, colour, int(detail), ctx)
                    moved = True
        occ = state.counties[i]
        assert occ is not None
        counties = list(state.counties)
        counties[i] = None
        state = replace(state, counties=tuple(counties))
        state = privileges.leave_county(state, occ, ctx, moved)
        if not moved:
            # Lancaster: the knight returns to court, squires to the supply (decision 6).
            state = to_court(state, colour, occ.strength)
            ctx.say(f"{who}'s knight {occ.strength} returns to court from {letter}.")
        return pop(state)

    def auto(self, state: State, frame: Frame, seat: int) -> Action:
        from engine.lancaster.auto import county

        return county(state, self.options(state, frame, seat))

    def prompt(self, state: State, frame: Frame, seat: int) -> str:
        i = int(frame[1])
        county = state.data.counties[i]
        occ = state.counties[i]
        assert occ is not None
        if state.is_ally(occ.colour):
            return (
                f"Your ally's knight holds {county.name} ({county.letter}): remove its "
                f"nobleman from the game, or take the reward ({county.reward.describe()}; an "
                "ally can use only new knights and upgrades)."
            )
        if county.reward == Reward():
            text = f"Your knight holds {county.name} ({county.letter}): take the nobleman."
        else:
            text = (
                f"Your knight holds {county.name} ({county.letter}): take the nobleman, or the "
                f"reward ({county.reward.describe()}), or pay {state.data.both_cost} gold for "
                "both."
            )
        if names_start(state, i):
            text += " Name the next start player too (e.g. 'noble start player Blue')."
        return text

    def waiting(self, state: State, frame: Frame) -> str:
        seat = next(iter(self.seats(state, frame)))
        letter = COUNTY_LETTERS[int(frame[1])]
        return f"Waiting for {state.colour_name(seat)} to choose the reward of {letter}."


class CastleReward(Handler):
    """``("castle", seat)``: free spaces (knights and extensions) pay out first; a free
    reward never makes a later choice worse, so this order is as good as any the player could
    choose (decision 7). Paid spaces then wait for the player."""

    kind = "castle"

    def phase(self, state: State, frame: Frame) -> str:
        return "castles"

    def step(self, state: State, frame: Frame, ctx: Ctx) -> tuple[State, bool]:
        seat = int(frame[1])
        decide: list[int] = []
        for colour in state.colours_of(seat):
            col = state.colours[colour]
            for n in range(1, 7):
                if n not in col.extensions and col.castle[n - 1] is None:
                    continue
                space = state.data.space(n)
                if space.cost_squires or space.reward.choice():
                    if not state.is_ally(colour):
                        decide.append(n)
                    continue  # an ally has no squires to pay (decision 12)
                how = "extension" if n in col.extensions else "knight"
                source = f"castle space {n}, {how}"
                state = apply_reward(state, colour, space.reward, None, ctx, source)
        frames: list[Frame] = []
        if decide:
            frames.append(("castle_paid", seat, tuple(decide)))
        frames.append(("castle_end", seat))
        return replace_head(state, *frames), False


class CastlePaid(Handler):
    """``("castle_paid", seat, spaces)``: the paid spaces still to decide, in any order."""

    kind = "castle_paid"

    def phase(self, state: State, frame: Frame) -> str:
        return "castles"

    def options(self, state: State, frame: Frame, seat: int) -> list[Action]:
        out: list[Action] = [("done",)]
        have = state.colours[seat].squires
        for n in frame[2]:
            space = state.data.space(n)
            if have < space.cost_squires:
                continue
            details = reward_details(state, seat, space.reward)
            if details == [None] and not _usable_without_choice(state, seat, space.reward):
                continue  # paying for a reward that would be lost is never offered
            out.extend(("castle", n, d) for d in details)
        return out

    def ask(self, state: State, frame: Frame, seat: int) -> bool:
        if state.two_player:
            return super().ask(state, frame, seat)
        # Squires are hidden: ask whenever a space could be worth paying for, even if you
        # cannot pay; only when none could (publicly known) is "done" taken for you.
        return any(
            reward_details(state, seat, state.data.space(n).reward) != [None]
            or _usable_without_choice(state, seat, state.data.space(n).reward)
            for n in frame[2]
        )

    def resolve(self, state: State, frame: Frame, seat: int, action: Action, ctx: Ctx) -> State:
        who = name(state, seat)
        if action[0] == "done":
            unused = ", ".join(map(str, frame[2]))
            ctx.say(f"{who} does not use castle space{'s' if len(frame[2]) > 1 else ''} {unused}.")
            return pop(state)
        n, detail = int(action[1]), action[2]
        space = state.data.space(n)
        cost = space.cost_squires
        state = state.with_colour(seat, squires=state.colours[seat].squires - cost)
        paid = f", paying {plural(cost, 'squire')}" if cost else ""
        ctx.say(f"{who} uses castle space {n}{paid}.")
        state = apply_reward(state, seat, space.reward, detail, ctx, f"castle space {n}")
        left = tuple(m for m in frame[2] if m != n)
        return replace_head(state, ("castle_paid", seat, left)) if left else pop(state)

    def auto(self, state: State, frame: Frame, seat: int) -> Action:
        return ("done",)  # auto.py: never spend

    def prompt(self, state: State, frame: Frame, seat: int) -> str:
        parts = [
            f"space {n}: pay {plural(state.data.space(n).cost_squires, 'squire')} for "
            f"{state.data.space(n).reward.describe()}"
            for n in frame[2]
        ]
        return f"Castle rewards: {'; '.join(parts)}. Use them in any order, or say done."

    def waiting(self, state: State, frame: Frame) -> str:
        return f"Waiting for {state.colour_name(int(frame[1]))} to use the castle rewards."


def _usable_without_choice(state: State, colour: int, reward: Reward) -> bool:
    # Called when the choosing part (if any) has no option: is anything else left to gain?
    if reward.gold or reward.squires or reward.voting_markers or reward.power:
        return True
    return bool(reward.new_knight) and 1 in state.colours[colour].reserve


class CastleEnd(Handler):
    """``("castle_end", seat)``: company at table, then the castle knights go to court."""

    kind = "castle_end"

    def phase(self, state: State, frame: Frame) -> str:
        return "castles"

    def step(self, state: State, frame: Frame, ctx: Ctx) -> tuple[State, bool]:
        seat = int(frame[1])
        data = state.data
        if state.round < data.rounds:
            # Lancaster: company at table, 1 voting marker plus 1 per nobleman (not in the
            # last round; decision 7).
            col = state.colours[seat]
            n = data.company_base + data.company_per_nobleman * len(col.nobles)
            if n:
                state = state.with_colour(seat, voting_markers=col.voting_markers + n)
                ctx.say(
                    f"{name(state, seat)} takes {plural(n, 'voting marker')} for company at table."
                )
        for colour in state.colours_of(seat):
            knights = [s for s in state.colours[colour].castle if s is not None]
            if knights:
                state = state.with_colour(colour, castle=(None,) * 6)
                state = to_court(state, colour, *knights)
                ctx.say(
                    f"{name(state, colour)}'s castle knights return to court "
                    f"({', '.join(map(str, sorted(knights)))})."
                )
        return pop(state), False
