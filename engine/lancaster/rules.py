"""Lancaster's releases (engine contract, DESIGN.md): one ``LancasterRules`` per rules version,
each the same engine over its own dataset (``data.Data``), so that a game keeps the values
and rules it was created with.

``LANCASTER_1_0`` (1.0.0) is the game as first released: its data is ``data.BASE``, partly
stand-ins. ``LANCASTER_2_0`` (2.0.0) is Lancaster as printed: the rulebook's counties, laws
and conflict cards (``printed.PRINTED``). ``LANCASTER`` is the latest release, which new games
get.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from typing import Any

from engine.core.protocol import Action, Choices, ConfigError, Outcome, Seat, Transition
from engine.lancaster import choices, flow, henry_v, new_laws, notation, setup, state, text, view
from engine.lancaster.data import BASE, Data
from engine.lancaster.new_laws import NEW_LAWS_DATA
from engine.lancaster.overrides import apply_overrides
from engine.lancaster.phases.scoring import final_scoring
from engine.lancaster.printed import PRINTED
from engine.lancaster.provenance import provisional_values
from engine.lancaster.state import State


class LancasterRules:
    """Lancaster under one release: ``version`` and its dataset ``base`` (the values a game's
    data overrides apply to). Stateless, like every Rules."""

    name = "lancaster"
    player_counts: tuple[int, ...] = setup.PLAYER_COUNTS

    def __init__(self, version: str, base: Data) -> None:
        self.version = version
        self.base = base

    def __repr__(self) -> str:
        return f"<Lancaster rules {self.version}>"

    def validate_config(self, config: Mapping[str, Any]) -> dict[str, Any]:
        return setup.validate_config(config, self.base)

    def initial_state(self, config: Mapping[str, Any], seed: int) -> State:
        return setup.initial_state(config, seed, self.base)

    def to_act(self, state: State) -> frozenset[Seat]:
        return flow.to_act(state)

    def legal_actions(self, state: State, seat: Seat) -> tuple[Action, ...]:
        return flow.legal_actions(state, seat)

    def is_legal(self, state: State, seat: Seat, action: Action) -> bool:
        """Exactly ``action in self.legal_actions(state, seat)``, cheaper (an extra beyond the
        contract: the offline verifier uses it when a game offers it)."""
        return flow.is_legal(state, seat, action)

    def apply(self, state: State, seat: Seat, action: Action) -> Transition:
        return flow.apply(state, seat, action)

    def view(self, state: State, seat: Seat | None) -> dict[str, Any]:
        return view.view(state, seat)

    def auto_action(self, state: State, seat: Seat) -> Action:
        h = flow.head(state)
        if h is None or seat not in h[1].seats(state, h[0]):
            raise ValueError(f"seat {seat} has nothing to do")
        return h[1].auto(state, h[0], seat)

    def outcome(self, state: State) -> Outcome | None:
        return final_scoring(state) if state.finished else None

    def parse_action(self, state: State, seat: Seat, text: str) -> Action:
        return notation.parse_action(state, seat, text)

    def format_action(self, state: State, action: Action) -> str:
        return notation.format_action(state, action)

    def choices(self, state: State, seat: Seat) -> Choices:
        return choices.choices(state, seat)

    def dump_state(self, s: State) -> dict[str, Any]:
        return state.dump(s)

    def load_state(self, data: Mapping[str, Any]) -> State:
        return state.load(data, self.base)

    def contract_configs(self) -> tuple[dict[str, Any], ...]:
        """The base game and every combination of the Henry V modules this version plays,
        for 2 to 5 players."""
        combos = self.module_combinations()
        configs = tuple(
            {"players": n, **({"expansions": dict.fromkeys(c, True)} if c else {})}
            for c in combos
            for n in setup.PLAYER_COUNTS
        )
        if not new_laws.has_new_laws(self.base):
            return configs
        # The New Laws: a few configs, not the whole product (the suites must stay fast)
        every_module = dict.fromkeys(henry_v.AVAILABLE_MODULES, True)
        return (
            *configs,
            {"players": 4, "new_laws": "replace"},
            {"players": 3, "new_laws": "combine"},
            {"players": 2, "new_laws": ["new", "base", "random", "new", "base"]},
            {"players": 5, "new_laws": "combine", "expansions": every_module},
        )

    def is_secret(self, state: State, seat: Seat, action: Action) -> bool:
        return bool(action) and action[0] == "vote"  # secret until all have voted

    def render_text(self, view: Mapping[str, Any]) -> str:
        return text.render_text(view)

    def seat_label(self, state: State, seat: Seat) -> str:
        """How every log line and rendering names ``seat``: its colour ("Red"), as the view's
        ``players[seat]["colour"]`` (an ally is "Yellow (Red's ally)" in the log)."""
        return state.colour_name(seat)

    # -- extras for the game page and ``pbem rules lancaster --data`` --

    def provisional_values(self, config: Mapping[str, Any]) -> list[tuple[str, str]]:
        """(path, value) of every component value still provisional under ``config``."""
        config = self.validate_config(config)
        data, _ = apply_overrides(config["data"], self.base)
        return provisional_values(data, frozenset(config["expansions"]))

    def has_new_laws(self) -> bool:
        """Whether this release plays The New Laws (config ``"new_laws"``; 2.1.0 on)."""
        return new_laws.has_new_laws(self.base)

    def law_sets(self, config: Mapping[str, Any]) -> list[str]:
        """What each law group 0..4 plays under ``config``, before the setup's draws:
        "base", "new", "random" (drawn at setup) or "king" (Laws of the King replaces groups
        2 and 3). Raises ConfigError as ``validate_config``."""
        return list(new_laws.law_sets(self.validate_config(config)))

    def module_combinations(self) -> list[tuple[str, ...]]:
        """Every valid set of Henry V modules this version plays, the base game (none) first."""
        available = henry_v.AVAILABLE_MODULES
        combos: list[tuple[str, ...]] = [()]
        for size in range(1, len(available) + 1):
            for combo in combinations(available, size):
                try:
                    self.validate_config({"players": 3, "expansions": dict.fromkeys(combo, True)})
                except ConfigError:
                    continue
                combos.append(combo)
        return combos


#: rules 1.0.0, the first release: ``data.BASE`` (games created with it keep it)
LANCASTER_1_0 = LancasterRules("1.0.0", BASE)
#: rules 2.0.0: Lancaster as printed (the rulebook's data)
LANCASTER_2_0 = LancasterRules("2.0.0", PRINTED)
#: rules 2.1.0: 2.0.0 with The New Laws (config "new_laws")
LANCASTER_2_1 = LancasterRules("2.1.0", NEW_LAWS_DATA)
#: the latest release: what new games get
LANCASTER = LANCASTER_2_1
