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

from collections.abc import Callable

from engine.core.protocol import Action
from engine.core.records import replace
from engine.lancaster import actions, auto
from engine.lancaster.data import COUNTY_LETTERS, Reward
from engine.lancaster.frames import (
    AllyCastleFrame,
    CastleEndFrame,
    CastleFrame,
    CastlePaidFrame,
    Ctx,
    Handler,
    pop,
    replace_head,
)
from engine.lancaster.pieces import (
    apply_reward,
    county_label,
    enter_conflict,
    name,
    nobleman_letters,
    plural,
    reward_details,
    take_nobleman,
    to_court,
)
from engine.lancaster.state import Frame, Occupant, State

#: Extension point: a county's knight moves from Dorset to a conflict, ``(state, colour,
#: occupant, card, ctx) -> state`` (At the King's Court: its Tudor knight joins it, 001).
#: Filled by ``wiring.py``, like the one below.
TO_CONFLICT: list[Callable[[State, int, Occupant, int, Ctx], State]] = []
#: Extension point: a county's knight leaves it (to court, or ``moved`` to a conflict),
#: ``(state, occupant, ctx, moved) -> state`` (At the King's Court: the shield and the Tudor
#: knight go back, unless the Tudor knight went with it)
LEAVE_COUNTY: list[Callable[[State, Occupant, Ctx, bool], State]] = []
#: Extension point: whether a colour's castle space yields nothing this round, ``(state,
#: colour, space, ctx) -> bool``, saying why in the log (The New Laws: an extension turned
#: over for want of upkeep)
YIELDS_NOTHING: list[Callable[[State, int, int, Ctx], bool]] = []


def _noble_ok(state: State, i: int, colour: int) -> bool:
    return COUNTY_LETTERS[i] in nobleman_letters(state, colour)


def names_start(state: State, i: int) -> bool:
    """Whether the holder of county ``i`` names the start player (decision 6: Surrey). An
    ally's choice is lost under rules 1.0.0 (engine README decision 7); as printed, an ally
    there lets its player name the start player (decision 12; rulebook: "If an ally is placed
    in Surrey, the allied player determines the start player")."""
    occ = state.counties[i]
    return (
        state.data.counties[i].names_start_player
        and occ is not None
        and (not state.is_ally(occ.colour) or state.data.ally_names_start_player)
    )


def start_player_now(state: State, start: int, who: str, ctx: Ctx) -> State:
    """The start player named in Surrey takes the marker at once: this round's castles are
    scored, and ransoms paid, in the new player order (decision: rules/README.md, Lancaster 6;
    rulebook: "the new (or former) player order is effective immediately")."""
    state = replace(state, start_player=start, next_start_player=None)
    order = iter([CastleFrame("castle", seat) for seat in state.seat_order()])
    # the castle frames still to come (Surrey is the last county: none has begun)
    agenda = tuple(next(order) if f[0] == "castle" else f for f in state.agenda)
    ctx.say(
        f"{who} names {state.colour_name(start)} the start player, with immediate effect: "
        "this round's castles and ransoms go in the new player order."
    )
    return replace(state, agenda=agenda)


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
        place = county_label(state, letter)
        verb = action[0]
        start: int | None = None
        if names_start(state, i):
            start = int(action[-1])
            action = action[:-1]
        if verb == "nothing":
            ctx.say(f"{who} takes nothing at {place}: no nobleman is left for them there.")
        if verb == "both":
            cost = state.data.both_cost
            state = state.with_colour(colour, gold=state.colours[colour].gold - cost)
            ctx.say(f"{who} pays {cost} gold for both the nobleman and the reward of {place}.")
        if verb in ("noble", "both"):
            state = take_nobleman(state, colour, letter, ctx)
        if start is not None and state.data.start_player_at_once:
            state = start_player_now(state, start, who, ctx)
        elif start is not None:
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
                        f"{who}'s knight {occ.strength} moves from {place} to conflict {detail}."
                    )
                    for joins in TO_CONFLICT:
                        state = joins(state, colour, occ, int(detail), ctx)
                    moved = True
        occ = state.counties[i]
        assert occ is not None
        counties = list(state.counties)
        counties[i] = None
        state = replace(state, counties=tuple(counties))
        for leaves in LEAVE_COUNTY:
            state = leaves(state, occ, ctx, moved)
        if not moved:
            # Lancaster: the knight returns to court, squires to the supply (decision 6).
            state = to_court(state, colour, occ.strength)
            ctx.say(f"{who}'s knight {occ.strength} returns to court from {place}.")
        return pop(state)

    def auto(self, state: State, frame: Frame, seat: int) -> Action:
        return auto.county(state, self.options(state, frame, seat))

    def prompt(self, state: State, frame: Frame, seat: int) -> str:
        i = int(frame[1])
        county = state.data.counties[i]
        occ = state.counties[i]
        assert occ is not None
        if state.is_ally(occ.colour):
            usable = "new knights and upgrades"
            if state.data.ally_passage_to_france:
                usable = "new knights, upgrades and the passage to France"
            text = (
                f"Your ally's knight holds {county.name} ({county.letter}): remove its "
                f"nobleman from the game, or take the reward ({county.reward.describe()}; an "
                f"ally can use only {usable})."
            )
        elif county.reward == Reward():
            text = f"Your knight holds {county.name} ({county.letter}): take the nobleman."
        else:
            text = (
                f"Your knight holds {county.name} ({county.letter}): take the nobleman, or the "
                f"reward ({county.reward.describe()}), or pay {state.data.both_cost} gold for "
                "both."
            )
        if names_start(state, i) and state.data.start_player_at_once:
            text += (
                " Name the start player too, with immediate effect (e.g. 'reward, Blue starts')."
            )
        elif names_start(state, i):
            text += " Name the next start player too (e.g. 'noble start player Blue')."
        return text

    def waiting(self, state: State, frame: Frame) -> str:
        seat = next(iter(self.seats(state, frame)))
        letter = COUNTY_LETTERS[int(frame[1])]
        place = county_label(state, letter)
        return f"Waiting for {state.colour_name(seat)} to choose the reward of {place}."


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
        frames: list[Frame] = []
        for colour in state.colours_of(seat):
            col = state.colours[colour]
            if state.is_ally(colour) and state.data.ally_castle:
                state, asked = _ally_castle(state, colour, ctx)
                frames.extend(AllyCastleFrame("ally_castle", seat, n) for n in asked)
                continue
            for n in range(1, 7):
                if n not in col.extensions and col.castle[n - 1] is None:
                    continue
                if any(idle(state, colour, n, ctx) for idle in YIELDS_NOTHING):
                    continue
                space = state.data.space(n)
                if space.cost_squires or space.reward.choice():
                    if not state.is_ally(colour):
                        decide.append(n)
                    continue  # an ally has no squires to pay (decision 12)
                how = "extension" if n in col.extensions else "knight"
                source = f"castle space {n}, {how}"
                state = apply_reward(state, colour, space.reward, None, ctx, source)
        if decide:
            frames.append(CastlePaidFrame("castle_paid", seat, tuple(decide)))
        frames.append(CastleEndFrame("castle_end", seat))
        return replace_head(state, *frames), False


def _ally_castle(state: State, ally: int, ctx: Ctx) -> tuple[State, list[int]]:
    """The ally's small castle (decision: rules/README.md, Lancaster 12, as printed): its
    spaces pay out without squires; an upgrade with a knight to choose is asked (returned)."""
    asked: list[int] = []
    for space in state.data.ally_castle:
        if state.colours[ally].castle[space.number - 1] is None:
            continue
        details = reward_details(state, ally, space.reward)
        if details != [None] and space.reward.choice():
            asked.append(space.number)
            continue
        source = f"the ally's castle space {space.number}"
        state = apply_reward(state, ally, space.reward, details[0], ctx, source)
    return state, asked


class AllyCastle(Handler):
    """``("ally_castle", seat, space)``: the player chooses which of its ally's knights the
    ally's castle space upgrades, free of squires (decision 12, as printed)."""

    kind = "ally_castle"

    def phase(self, state: State, frame: Frame) -> str:
        return "castles"

    def seats(self, state: State, frame: Frame) -> frozenset[int]:
        return frozenset({int(frame[1])})

    def _ally(self, state: State, frame: Frame) -> int:
        ally = state.ally_of(int(frame[1]))
        assert ally is not None
        return ally

    def options(self, state: State, frame: Frame, seat: int) -> list[Action]:
        space = state.data.ally_castle[int(frame[2]) - 1]
        ally = self._ally(state, frame)
        return [("upgrade", d) for d in reward_details(state, ally, space.reward)]

    def resolve(self, state: State, frame: Frame, seat: int, action: Action, ctx: Ctx) -> State:
        n = int(frame[2])
        reward = state.data.ally_castle[n - 1].reward
        source = f"the ally's castle space {n}"
        return pop(apply_reward(state, self._ally(state, frame), reward, action[1], ctx, source))

    def prompt(self, state: State, frame: Frame, seat: int) -> str:
        return (
            f"Your ally's castle space {frame[2]}: choose which of your ally's knights to "
            "upgrade (free: an ally pays no squires)."
        )

    def waiting(self, state: State, frame: Frame) -> str:
        who = state.colour_name(int(frame[1]))
        return f"Waiting for {who} to choose the upgrade of its ally's castle."


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
            out.extend(actions.PayCastle("castle", n, d) for d in details)
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
        pay = actions.PayCastle.of(action)
        n, detail = int(pay.space), pay.detail
        space = state.data.space(n)
        cost = space.cost_squires
        state = state.with_colour(seat, squires=state.colours[seat].squires - cost)
        paid = f", paying {plural(cost, 'squire')}" if cost else ""
        ctx.say(f"{who} uses castle space {n}{paid}.")
        state = apply_reward(state, seat, space.reward, detail, ctx, f"castle space {n}")
        left = tuple(m for m in frame[2] if m != n)
        return (
            replace_head(state, CastlePaidFrame("castle_paid", seat, left)) if left else pop(state)
        )

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
