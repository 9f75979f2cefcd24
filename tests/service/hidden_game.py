"""Hoard: a small hidden-information game for the service's tests and benchmark.

Lancaster-like where it matters to the service: secret values per seat (gems behind a
screen), random draws (irreversible), and simultaneous secret votes revealed together by an
irreversible transition. It implements the whole Rules protocol and passes the contract.

Each round: in seat order each seat either ``draw``s a gem (random, hidden from others) or
``keep``s; then every seat at once secretly ``stake``s one of its gems (or ``pass``es). When
the last stake is in, the stakes are revealed, the highest gem wins the round (1 point) and
staked gems are discarded. After ``rounds`` rounds the most points wins.

Gems are ``gem-`` and 12 hex digits: long random tokens, so a test can search any response
for another seat's gems and find them only if they leaked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from engine.core import rng
from engine.core.protocol import (
    Action,
    ActionSyntaxError,
    ConfigError,
    IllegalActionError,
    NotYourTurnError,
    Outcome,
    Seat,
    Transition,
)


@dataclass(frozen=True)
class HoardState:
    players: int
    rounds: int
    round: int
    phase: str  # draw | vote | over
    turn: int
    purses: tuple[tuple[str, ...], ...]
    stakes: tuple[str | None, ...]  # "" = passed, None = not yet
    last_stakes: tuple[str, ...] | None
    scores: tuple[int, ...]
    rng: int


class Hoard:
    name = "hoard"
    version = "1"
    player_counts = (2, 3, 4)

    def validate_config(self, config: Mapping[str, Any]) -> dict[str, Any]:
        unknown = set(config) - {"players", "rounds"}
        if unknown:
            raise ConfigError(f"unknown config keys: {', '.join(sorted(unknown))}")
        players = config.get("players", 2)
        if players not in self.player_counts:
            raise ConfigError("players must be 2, 3 or 4")
        rounds = config.get("rounds", 3)
        if not isinstance(rounds, int) or not 1 <= rounds <= 100_000:
            raise ConfigError("rounds must be a whole number from 1 to 100000")
        return {"players": players, "rounds": rounds}

    def initial_state(self, config: Mapping[str, Any], seed: int) -> HoardState:
        c = self.validate_config(config)
        n = c["players"]
        return HoardState(
            players=n,
            rounds=c["rounds"],
            round=1,
            phase="draw",
            turn=0,
            purses=((),) * n,
            stakes=(None,) * n,
            last_stakes=None,
            scores=(0,) * n,
            rng=rng.seed_state(seed),
        )

    def to_act(self, state: HoardState) -> frozenset[Seat]:
        if state.phase == "draw":
            return frozenset({state.turn})
        if state.phase == "vote":
            return frozenset(s for s in range(state.players) if state.stakes[s] is None)
        return frozenset()

    def legal_actions(self, state: HoardState, seat: Seat) -> tuple[Action, ...]:
        if seat not in self.to_act(state):
            return ()
        if state.phase == "draw":
            return (("draw",), ("keep",))
        return (("pass",), *(("stake", g) for g in sorted(state.purses[seat])))

    def apply(self, state: HoardState, seat: Seat, action: Action) -> Transition:
        if seat not in self.to_act(state):
            raise NotYourTurnError(f"seat {seat} is not to act")
        if action not in self.legal_actions(state, seat):
            raise IllegalActionError(f"{action!r} is not allowed now (phase {state.phase})")
        if state.phase == "draw":
            return self._draw_phase(state, seat, action)
        return self._vote_phase(state, seat, action)

    def _draw_phase(self, state: HoardState, seat: Seat, action: Action) -> Transition:
        purses, r, irreversible = state.purses, state.rng, False
        if action == ("draw",):
            value, r = rng.next_u64(r)
            gem = f"gem-{value >> 16:012x}"
            purses = tuple((*p, gem) if s == seat else p for s, p in enumerate(purses))
            log = (f"Seat {seat} drew a gem.",)
            irreversible = True
        else:
            log = (f"Seat {seat} kept.",)
        if seat + 1 < state.players:
            new = replace(state, purses=purses, rng=r, turn=seat + 1)
        else:
            new = replace(state, purses=purses, rng=r, phase="vote", turn=0)
        return Transition(new, log, irreversible)

    def _vote_phase(self, state: HoardState, seat: Seat, action: Action) -> Transition:
        stake = action[1] if action[0] == "stake" else ""
        stakes = tuple(stake if s == seat else v for s, v in enumerate(state.stakes))
        log: tuple[str, ...] = (f"Seat {seat} committed.",)
        if any(v is None for v in stakes):
            return Transition(replace(state, stakes=stakes), log, False)
        # The reveal: every stake is shown at once (irreversible), the highest gem wins.
        shown = tuple(v or "" for v in stakes)
        best = max(shown)
        scores = tuple(
            sc + (1 if best and shown[s] == best else 0) for s, sc in enumerate(state.scores)
        )
        purses = tuple(tuple(g for g in p if g != shown[s]) for s, p in enumerate(state.purses))
        over = state.round >= state.rounds
        new = replace(
            state,
            stakes=(None,) * state.players,
            last_stakes=shown,
            scores=scores,
            purses=purses,
            round=state.round if over else state.round + 1,
            phase="over" if over else "draw",
            turn=0,
        )
        reveal = ", ".join(f"seat {s}: {v or 'pass'}" for s, v in enumerate(shown))
        return Transition(new, (*log, f"Stakes revealed: {reveal}."), True)

    def view(self, state: HoardState, seat: Seat | None) -> dict[str, Any]:
        view: dict[str, Any] = {
            "players": state.players,
            "round": state.round,
            "rounds": state.rounds,
            "phase": state.phase,
            "turn": state.turn,
            "to_act": sorted(self.to_act(state)),
            "purse_sizes": [len(p) for p in state.purses],
            "committed": [v is not None for v in state.stakes],
            "last_stakes": list(state.last_stakes) if state.last_stakes is not None else None,
            "scores": list(state.scores),
        }
        if seat is not None:
            view["my_purse"] = list(state.purses[seat])
            view["my_stake"] = state.stakes[seat]
        return view

    def auto_action(self, state: HoardState, seat: Seat) -> Action:
        return ("keep",) if state.phase == "draw" else ("pass",)

    def outcome(self, state: HoardState) -> Outcome | None:
        if state.phase != "over":
            return None
        top = max(state.scores)
        winners = tuple(s for s, v in enumerate(state.scores) if v == top)
        return Outcome(state.scores, winners, tuple({"points": v} for v in state.scores))

    def parse_action(self, state: HoardState, seat: Seat, text: str) -> Action:
        words = text.strip().lower().split()
        can_type = tuple(self.format_action(state, a) for a in self.legal_actions(state, seat))
        if words in (["draw"], ["keep"], ["pass"]):
            action: Action = (words[0],)
        elif len(words) == 2 and words[0] == "stake":
            action = ("stake", words[1])
        else:
            raise ActionSyntaxError(f"I could not read {text.strip()[:40]!r}", can_type)
        if seat not in self.to_act(state):
            raise NotYourTurnError(f"seat {seat} is not to act")
        if action not in self.legal_actions(state, seat):
            raise IllegalActionError(f"{' '.join(map(str, action))} is not allowed now")
        return action

    def format_action(self, state: HoardState, action: Action) -> str:
        return " ".join(str(x) for x in action)

    def dump_state(self, state: HoardState) -> dict[str, Any]:
        return {
            "players": state.players,
            "rounds": state.rounds,
            "round": state.round,
            "phase": state.phase,
            "turn": state.turn,
            "purses": [list(p) for p in state.purses],
            "stakes": list(state.stakes),
            "last_stakes": list(state.last_stakes) if state.last_stakes is not None else None,
            "scores": list(state.scores),
            "rng": state.rng,
        }

    def load_state(self, data: Mapping[str, Any]) -> HoardState:
        last = data["last_stakes"]
        return HoardState(
            players=data["players"],
            rounds=data["rounds"],
            round=data["round"],
            phase=data["phase"],
            turn=data["turn"],
            purses=tuple(tuple(p) for p in data["purses"]),
            stakes=tuple(data["stakes"]),
            last_stakes=tuple(last) if last is not None else None,
            scores=tuple(data["scores"]),
            rng=data["rng"],
        )

    def contract_configs(self) -> tuple[dict[str, Any], ...]:
        return ({"players": 2}, {"players": 3, "rounds": 2}, {"players": 4, "rounds": 1})

    def is_secret(self, state: HoardState, seat: Seat, action: Action) -> bool:
        return state.phase == "vote"

    def render_text(self, view: Mapping[str, Any]) -> str:
        lines = [
            f"Round {view['round']} of {view['rounds']}, phase {view['phase']}.",
            "Scores: " + ", ".join(f"seat {s}: {v}" for s, v in enumerate(view["scores"])),
        ]
        if "my_purse" in view:
            lines.append("Your purse: " + (", ".join(view["my_purse"]) or "empty"))
        return "\n".join(lines)


HOARD = Hoard()
