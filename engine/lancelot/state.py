"""Lancelot's config and game state, and their lossless JSON form."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.core.protocol import Action, ConfigError, action_from_json, action_to_json
from engine.lancelot.lines import AREAS, EMPTY, EXCALIBUR, Geometry, geometry

#: Lancelot: each player has 30 knights.
KNIGHTS = 30

VARIANTS = ("diagonals", "excalibur")
CONFIG_KEYS = ("players", "target", "variants")

#: decision (ours; the sources name no colours): each seat's knights have a colour, in turn
#: order, and a letter on the text board. Every line a person reads names a seat by its
#: colour, as a whole capitalised word ("Red placed a knight on C3"), never by a number.
COLOURS = ("Red", "Blue", "Yellow", "Green", "Purple")
SYMBOLS = tuple(name[0] for name in COLOURS)


def colour(seat: int) -> str:
    """The colour naming ``seat`` in every text: "Red" for seat 0."""
    return COLOURS[seat]


#: Why a finished game ended.
END_TARGET = "target"
END_BLOCKED = "blocked"


def default_target(players: int) -> int:
    return AREAS[players][2]


def max_target(players: int) -> int:
    # Nobody can capture more than all the other players' knights.
    return KNIGHTS * (players - 1)


def validate_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """Check a config and return it with every default filled in."""
    if not isinstance(config, Mapping):
        raise ConfigError("The config must be a mapping with the key 'players'.")
    unknown = sorted(set(config) - set(CONFIG_KEYS))
    if unknown:
        raise ConfigError(
            f"Unknown config key(s) {', '.join(map(repr, unknown))}; "
            f"Lancelot knows {', '.join(map(repr, CONFIG_KEYS))}."
        )
    players = config.get("players")
    if isinstance(players, bool) or not isinstance(players, int) or players not in AREAS:
        raise ConfigError(f"'players' must be a whole number from 2 to 5, not {players!r}.")
    target = config.get("target")
    if target is None:
        target = default_target(players)
    # decision (ours): a target above the table is allowed too (a house rule), up to every
    # knight of the other players; the rules only say players "may agree on a lower target".
    if (
        isinstance(target, bool)
        or not isinstance(target, int)
        or not 1 <= target <= max_target(players)
    ):
        raise ConfigError(
            f"'target' must be a whole number of captures from 1 to {max_target(players)} "
            f"(the usual target with {players} players is {default_target(players)}), "
            f"not {target!r}."
        )
    variants = config.get("variants", {})
    if variants is None:
        variants = {}
    if not isinstance(variants, Mapping):
        raise ConfigError(
            '\'variants\' must be a mapping like {"diagonals": false, "excalibur": false}.'
        )
    unknown = sorted(set(variants) - set(VARIANTS))
    if unknown:
        raise ConfigError(
            f"Unknown variant(s) {', '.join(map(repr, unknown))}; "
            f"Lancelot has {', '.join(map(repr, VARIANTS))}."
        )
    normal: dict[str, bool] = {}
    for name in VARIANTS:
        value = variants.get(name, False)
        if not isinstance(value, bool):
            raise ConfigError(f"Variant {name!r} must be true or false, not {value!r}.")
        normal[name] = value
    return {"players": players, "target": target, "variants": normal}


@dataclass(frozen=True)
class LancelotState:
    """A position. Immutable and compared by value; ``board`` is indexed by square (see
    ``lines.py``) and holds a seat, ``EMPTY`` or ``EXCALIBUR``."""

    players: int
    target: int
    diagonals: bool
    excalibur: bool
    board: tuple[int, ...]
    in_hand: tuple[int, ...]
    #: captured[by][of]: knights of seat ``of`` captured by seat ``by``
    captured: tuple[tuple[int, ...], ...]
    #: Excalibur variant: whether each seat still has its white shield
    shields: tuple[bool, ...]
    #: the seat that owes the next action (meaningless once finished)
    current: int
    finished: bool = False
    winners: tuple[int, ...] = ()
    end: str = ""
    last_seat: int = -1
    last_action: Action | None = None

    @property
    def geo(self) -> Geometry:
        return geometry(self.players, self.diagonals)

    @property
    def excalibur_at(self) -> int | None:
        """The square of Excalibur, None before it is set or without the variant."""
        if not self.excalibur:
            return None
        try:
            return self.board.index(EXCALIBUR)
        except ValueError:
            return None

    @property
    def awaiting_excalibur(self) -> bool:
        """Excalibur variant, before the first turn: the last seat must set Excalibur."""
        return self.excalibur and not self.finished and EXCALIBUR not in self.board

    def captures(self, seat: int) -> int:
        return sum(self.captured[seat])

    def lost(self, seat: int) -> int:
        return sum(row[seat] for row in self.captured)

    def on_board(self, seat: int) -> int:
        return self.board.count(seat)


def initial_state(config: Mapping[str, Any]) -> LancelotState:
    normal = validate_config(config)
    players = normal["players"]
    variants = normal["variants"]
    geo = geometry(players, variants["diagonals"])
    return LancelotState(
        players=players,
        target=normal["target"],
        diagonals=variants["diagonals"],
        excalibur=variants["excalibur"],
        board=(EMPTY,) * geo.squares,
        in_hand=(KNIGHTS,) * players,
        captured=((0,) * players,) * players,
        shields=(variants["excalibur"],) * players,
        # decision (rules/lancelot.md, Excalibur): the last seat sets Excalibur first.
        current=players - 1 if variants["excalibur"] else 0,
    )


def occupied_squares(state: LancelotState) -> dict[str, int | str]:
    """Occupied squares by name: the seat holding each, or "X" for Excalibur (the form both
    the dump and the view use)."""
    geo = state.geo
    board: dict[str, int | str] = {}
    for square, cell in enumerate(state.board):
        if cell == EXCALIBUR:
            board[geo.names[square]] = "X"
        elif cell != EMPTY:
            board[geo.names[square]] = cell
    return board


def dump_state(state: LancelotState) -> dict[str, Any]:
    return {
        "players": state.players,
        "target": state.target,
        "variants": {"diagonals": state.diagonals, "excalibur": state.excalibur},
        "board": occupied_squares(state),
        "in_hand": list(state.in_hand),
        "captured": [list(row) for row in state.captured],
        "shields": list(state.shields),
        "current": state.current,
        "finished": state.finished,
        "winners": list(state.winners),
        "end": state.end,
        "last_seat": state.last_seat,
        "last_action": None if state.last_action is None else action_to_json(state.last_action),
    }


def load_state(data: Mapping[str, Any]) -> LancelotState:
    players = int(data["players"])
    variants = data["variants"]
    geo = geometry(players, bool(variants["diagonals"]))
    board = [EMPTY] * geo.squares
    for name, cell in data["board"].items():
        board[geo.index_of[name]] = EXCALIBUR if cell == "X" else int(cell)
    last = data.get("last_action")
    return LancelotState(
        players=players,
        target=int(data["target"]),
        diagonals=bool(variants["diagonals"]),
        excalibur=bool(variants["excalibur"]),
        board=tuple(board),
        in_hand=tuple(int(x) for x in data["in_hand"]),
        captured=tuple(tuple(int(x) for x in row) for row in data["captured"]),
        shields=tuple(bool(x) for x in data["shields"]),
        current=int(data["current"]),
        finished=bool(data["finished"]),
        winners=tuple(int(x) for x in data["winners"]),
        end=str(data["end"]),
        last_seat=int(data["last_seat"]),
        last_action=None if last is None else action_from_json(last),
    )
