"""The pending-decision model: frames on the agenda and their handlers.

Every step of the sequence of play is a *frame* on ``State.agenda``: a plain tuple whose first
item names its kind (``("county", 3)``, ``("vote", 0)``). A handler per kind says what the
frame does:

- ``step`` runs it as far as it can without a decision. It returns the new state and whether
  the frame now waits for seats to act (a decision), in which case the frame stays at the head.
- ``seats`` / ``options`` / ``check`` / ``resolve`` describe and settle that decision.

``flow.advance`` drives the agenda: it runs frames until one waits, and takes a decision
automatically when it has exactly one option (and says so in the log). Henry V adds handlers
for its own frames (offices at court, the tower, dishonor) without touching these.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from engine.core.protocol import Action, IllegalActionError, action_sort_key
from engine.core.records import replace
from engine.lancaster.state import Frame, State

# -- the base game's frames, typed ------------------------------------------------------------
# A NamedTuple per kind of frame whose shape is fixed, its kind the first item: it equals the
# plain tuple a loaded state holds and is dumped as it, so typing a frame changes no dump. The
# phases build these, so mypy checks each item. (``("place", seat)`` gains its passed seats
# later, ``("place", seat, passed)``, so it stays a plain tuple.)


class FavorFrame(NamedTuple):
    """``colour``'s knight entered a conflict: its player chooses a king's favor tile."""

    kind: Literal["favor"]
    colour: int


class VoteFrame(NamedTuple):
    """The secret vote on this round's new law at ``position`` (0..2, left to right)."""

    kind: Literal["vote"]
    position: int


class LawFrame(NamedTuple):
    """The current law at ``position`` (0..2, left to right) is applied."""

    kind: Literal["law"]
    position: int


class LawChoiceFrame(NamedTuple):
    """``seat`` makes the choice law ``key`` gives it."""

    kind: Literal["law_choice"]
    key: str
    seat: int


class CountyFrame(NamedTuple):
    """The county at ``position`` (A = 0 .. I = 8) is scored."""

    kind: Literal["county"]
    position: int


class CastleFrame(NamedTuple):
    """``seat``'s castle is scored (and its ally's)."""

    kind: Literal["castle"]
    seat: int


class CastlePaidFrame(NamedTuple):
    """``seat`` chooses which of its paid castle ``spaces`` to use."""

    kind: Literal["castle_paid"]
    seat: int
    spaces: tuple[int, ...]


class AllyCastleFrame(NamedTuple):
    """``seat`` chooses the upgrade of its ally's castle ``space`` (rules 2.0.0)."""

    kind: Literal["ally_castle"]
    seat: int
    space: int


class CastleEndFrame(NamedTuple):
    """Company at table, then ``seat``'s castle knights go to court."""

    kind: Literal["castle_end"]
    seat: int


class ConflictFrame(NamedTuple):
    """The conflict card in ``row`` ("upper", "lower"), ``slot`` (0, 1) is resolved."""

    kind: Literal["conflict"]
    row: str
    slot: int


class RansomFrame(NamedTuple):
    """``seat`` may ransom its knights captured on the lower card in ``slot``."""

    kind: Literal["ransom"]
    slot: int
    seat: int


class CapturedFrame(NamedTuple):
    """The knights not ransomed from the lower card in ``slot`` go to the reserve."""

    kind: Literal["captured"]
    slot: int


#: Extension point: the notation's canonical text of an action, for the "not one of your
#: choices" messages and the log of an automatic move. The notation reads the frames, so it
#: fills this slot (``wiring.py``) rather than being imported here.
_FORMATTER: list[Callable[[State, Action], str]] = []


def set_formatter(formatter: Callable[[State, Action], str]) -> None:
    _FORMATTER[:] = [formatter]


def format_action(state: State, action: Action) -> str:
    """The canonical text of ``action`` (``notation.format_action``, once wired)."""
    return _FORMATTER[0](state, action)


@dataclass
class Ctx:
    """What one ``apply`` collects on its way: public log lines and the irreversible flag."""

    log: list[str] = field(default_factory=list)
    irreversible: bool = False

    def say(self, line: str) -> None:
        self.log.append(line)


class Handler:
    """Base of every frame handler. Subclasses set ``kind`` and override what they need."""

    kind: str = ""
    #: all seats in ``seats`` act at once (secret votes, the setup choice)
    simultaneous: bool = False

    def step(self, state: State, frame: Frame, ctx: Ctx) -> tuple[State, bool]:
        """Run the frame as far as possible; (state, True) when it waits for a decision."""
        return state, True

    def seats(self, state: State, frame: Frame) -> frozenset[int]:
        return frozenset({int(frame[1])})

    def options(self, state: State, frame: Frame, seat: int) -> list[Action]:
        raise NotImplementedError

    def known_options(self, state: State, frame: Frame, seat: int) -> Sequence[Action]:
        """``options``, computed once per state, frame and seat (``State.memo``) for the
        questions below, which only read them: an action's way through the service or the
        verifier asks them of one state in turn (ask, then is_option, then check)."""
        key = (self, "options", frame, seat)
        memo = state.memo()
        try:
            return memo[key]  # type: ignore[no-any-return]
        except KeyError:
            found = memo[key] = tuple(self.options(state, frame, seat))
            return found
        except TypeError:  # a frame holding something unhashable: computed each time
            return self.options(state, frame, seat)

    def ask(self, state: State, frame: Frame, seat: int) -> bool:
        """Whether to ask the seat rather than take its only option automatically.

        Must depend on public information only, or the speed of an automatic move would
        reveal hidden gold or squires: frames whose options depend on hidden values override
        this (outside the 2-player game, where those values are public).
        """
        return len(self.known_options(state, frame, seat)) > 1

    def is_option(self, state: State, frame: Frame, seat: int, action: Action) -> bool:
        """``action in self.options(state, frame, seat)``; a frame with many options may
        answer it without building them all (``rules.is_legal``, for the verifier)."""
        return action in self.known_options(state, frame, seat)

    def check(self, state: State, frame: Frame, seat: int, action: Action) -> None:
        """Raise IllegalActionError (with the reason) unless ``action`` is legal."""
        if action not in self.known_options(state, frame, seat):
            raise IllegalActionError(self.illegal_reason(state, frame, seat, action))

    def illegal_reason(self, state: State, frame: Frame, seat: int, action: Action) -> str:
        options = sorted_options(self.options(state, frame, seat))
        shown = " | ".join(format_action(state, a) for a in options[:12])
        more = f" (and {len(options) - 12} more)" if len(options) > 12 else ""
        return (
            f"That is not one of your choices now. {self.prompt(state, frame, seat)} "
            f"You can: {shown}{more}."
        )

    def resolve(self, state: State, frame: Frame, seat: int, action: Action, ctx: Ctx) -> State:
        raise NotImplementedError

    def auto(self, state: State, frame: Frame, seat: int) -> Action:
        """The deadline default (documented in auto.py); the first option unless overridden."""
        return sorted_options(self.options(state, frame, seat))[0]

    def prompt(self, state: State, frame: Frame, seat: int) -> str:
        """What ``seat`` is asked now, in words."""
        return "Choose."

    def waiting(self, state: State, frame: Frame) -> str:
        """What everyone else is told the game waits for."""
        names = ", ".join(state.colour_name(s) for s in sorted(self.seats(state, frame)))
        return f"Waiting for {names}."

    def phase(self, state: State, frame: Frame) -> str:
        return "rewards"


def sorted_options(options: Sequence[Action]) -> list[Action]:
    return sorted(options, key=action_sort_key)


def pop(state: State) -> State:
    return replace(state, agenda=state.agenda[1:])


def replace_head(state: State, *frames: Frame) -> State:
    """Replace the head frame by ``frames`` (in that order)."""
    return replace(state, agenda=(*frames, *state.agenda[1:]))


def push(state: State, *frames: Frame) -> State:
    """Put ``frames`` before the current head."""
    return replace(state, agenda=(*frames, *state.agenda))
