"""Lancelot (Roland Siegers, 1990) as a ``Rules`` implementation: rules/lancelot.md.

Actions (JSON-able tuples; columns are indexes A=0, rows are row numbers):
``("place", col, row)``, ``("king", excalibur_col, excalibur_row, col, row)``,
``("excalibur", col, row)`` (the opening placement of Excalibur) and ``("pass",)``.
Lancelot has no randomness: the seed is not used and the state holds no generator.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from engine.core.notation import examples
from engine.core.protocol import (
    Action,
    Choices,
    IllegalActionError,
    NotYourTurnError,
    Outcome,
    Rules,
    Seat,
    Transition,
)
from engine.lancelot import auto, choices, notation, play
from engine.lancelot import state as st
from engine.lancelot import view as vw
from engine.lancelot.lines import EMPTY, EXCALIBUR, Geometry
from engine.lancelot.state import LancelotState


def _over_text(geo: Geometry, over: tuple[tuple[int, int], ...]) -> str:
    return "; ".join(f"{geo.line_names[n]}: you would be +{a}" for n, a in over)


def _occupant(cell: int) -> str:
    return "Excalibur" if cell == EXCALIBUR else f"{st.colour(cell)}'s knight"


def _capture_text(s: LancelotState, judgement: play.Judgement, taken: tuple[int, ...]) -> str:
    geo = s.geo
    if not taken:
        return ""
    where = " and ".join(geo.line_names[n] for n, _ in judgement.captures)
    losers: dict[int, int] = {}
    for sq in taken:
        owner = s.board[sq]
        losers[owner] = losers.get(owner, 0) + 1
    lost = ", ".join(f"{st.colour(o)} lost {k}" for o, k in sorted(losers.items()))
    squares = ", ".join(geo.names[sq] for sq in taken)
    plural = "knight" if len(taken) == 1 else "knights"
    return f" and captured {len(taken)} {plural} on {where} ({squares}): {lost}"


class Lancelot:
    """The rules of Lancelot. Stateless; every method is a pure function."""

    name: str = "lancelot"
    version: str = "1.0.0"
    player_counts: tuple[int, ...] = (2, 3, 4, 5)

    # -- config and setup --------------------------------------------------------------

    def validate_config(self, config: Mapping[str, Any]) -> dict[str, Any]:
        return st.validate_config(config)

    def initial_state(self, config: Mapping[str, Any], seed: int) -> LancelotState:
        # Lancelot has no chance element: the seed is not needed (and never stored).
        return st.initial_state(config)

    def contract_configs(self) -> tuple[dict[str, Any], ...]:
        return tuple(
            {"players": n, "variants": {"diagonals": d, "excalibur": x}}
            for n in self.player_counts
            for d in (False, True)
            for x in (False, True)
        )

    # -- whose turn, what is legal ---------------------------------------------------------

    def to_act(self, s: LancelotState) -> frozenset[Seat]:
        return frozenset() if s.finished else frozenset((s.current,))

    def legal_actions(self, s: LancelotState, seat: Seat) -> tuple[Action, ...]:
        if s.finished or seat != s.current:
            return ()
        geo = s.geo
        if s.awaiting_excalibur:
            return tuple(geo.excalibur_actions[i] for i, c in enumerate(s.board) if c == EMPTY)
        place = geo.place_actions
        actions = play.king_moves(s, seat)  # "king" sorts before "place"
        actions.extend([place[i] for i in play.placement_squares(s, seat)])
        return tuple(actions) if actions else (("pass",),)

    def _check(self, s: LancelotState, seat: Seat, action: Action) -> Any:
        """Raise the error a player should read if ``action`` is not allowed now; return
        what ``apply`` needs: (board after the placement, judgement) or None."""
        if s.finished:
            raise NotYourTurnError("The game is over: no more moves can be made.")
        if seat != s.current:
            raise NotYourTurnError(f"It is not your turn: {st.colour(s.current)} is to play.")
        geo = s.geo
        kind = action[0] if action else None
        text = notation.format_action(action) if kind else repr(action)

        def square(col: Any, row: Any) -> int:
            sq = geo.square(col, row) if isinstance(col, int) and isinstance(row, int) else None
            if sq is None:
                raise IllegalActionError(f"{text}: that square is not on this board.")
            return sq

        if s.awaiting_excalibur:
            if kind != "excalibur" or len(action) != 3:
                raise IllegalActionError(
                    "First Excalibur must be set on the board: type excalibur and a square, "
                    "like excalibur G9."
                )
            square(action[1], action[2])
            return None
        if kind == "excalibur":
            if not s.excalibur:
                raise IllegalActionError("This game is played without Excalibur.")
            raise IllegalActionError(
                "Excalibur is already on the board; it can only be moved with the force of "
                "the King (king, its new square, then your knight's square)."
            )
        if kind == "pass" and len(action) == 1:
            squares = play.placement_squares(s, seat)
            if squares:
                raise IllegalActionError(
                    "You cannot pass while you can place a knight, "
                    f"for example on {geo.names[squares[0]]}."
                )
            return None
        if s.in_hand[seat] == 0:
            raise IllegalActionError("You have no knights left: type pass.")
        if kind == "place" and len(action) == 3:
            sq = square(action[1], action[2])
            if s.board[sq] != EMPTY:
                raise IllegalActionError(f"{text} is taken by {_occupant(s.board[sq])}.")
            after, judgement = play.after_place(s, seat, sq)
            if judgement.over:
                # Lancelot, the limit: at most +2 on every line through the square.
                raise IllegalActionError(
                    f"{text} is forbidden to you: {_over_text(geo, judgement.over)} "
                    f"(the limit is +{play.LIMIT})."
                )
            return after, judgement
        if kind == "king" and len(action) == 5:
            if not s.excalibur:
                raise IllegalActionError("This game is played without Excalibur.")
            if not s.shields[seat]:
                raise IllegalActionError(
                    "You have already used the force of the King (once per game)."
                )
            to = square(action[1], action[2])
            sq = square(action[3], action[4])
            old = s.excalibur_at
            if to == sq:
                raise IllegalActionError(
                    f"{text}: Excalibur and your knight cannot go on the same square."
                )
            if to == old:
                raise IllegalActionError(f"{text}: Excalibur must move to another square.")
            if s.board[to] != EMPTY:
                raise IllegalActionError(
                    f"{text}: Excalibur must move to a free square; "
                    f"{geo.names[to]} is taken by {_occupant(s.board[to])}."
                )
            if s.board[sq] != EMPTY and sq != old:
                raise IllegalActionError(
                    f"{text}: {geo.names[sq]} is taken by {_occupant(s.board[sq])}."
                )
            after, judgement = play.after_king(s, seat, to, sq)
            if judgement.over:
                raise IllegalActionError(
                    f"{text} is forbidden to you: with Excalibur on your side, "
                    f"{_over_text(geo, judgement.over)} (the limit is +{play.LIMIT})."
                )
            return after, judgement
        raise IllegalActionError(f"{text} is not a Lancelot move.")

    # -- acting ----------------------------------------------------------------------------

    def apply(self, s: LancelotState, seat: Seat, action: Action) -> Transition:
        checked = self._check(s, seat, action)
        geo = s.geo
        kind = action[0]
        log: list[str] = []
        if kind == "excalibur":
            sq = geo.square(action[1], action[2])
            assert sq is not None
            board = tuple(EXCALIBUR if i == sq else c for i, c in enumerate(s.board))
            new = play.next_turn(replace(s, board=board, last_seat=seat, last_action=action), seat)
            log.append(f"{st.colour(seat)} set Excalibur on {geo.names[sq]}.")
        elif kind == "pass":
            new = play.next_turn(replace(s, last_seat=seat, last_action=action), seat)
            log.append(f"{st.colour(seat)} could not place a knight and passed.")
        else:
            after, judgement = checked
            new, taken = play.resolve(s, seat, after, judgement, action, kind == "king")
            gained = _capture_text(s, judgement, taken)
            if kind == "king":
                old = s.excalibur_at
                assert old is not None
                log.append(
                    f"{st.colour(seat)} used the force of the King: Excalibur moved from "
                    f"{geo.names[old]} to {notation.format_action(action).split()[1]}, "
                    f"a knight placed on {notation.format_action(action).split()[2]}{gained}."
                )
            else:
                square = notation.format_action(action)
                log.append(f"{st.colour(seat)} placed a knight on {square}{gained}.")
        if new.finished:
            log.append(vw.view(new, None)["prompt"])
        return Transition(new, tuple(log), False)

    def auto_action(self, s: LancelotState, seat: Seat) -> Action:
        return auto.auto_action(s, seat)

    # -- reading and writing -----------------------------------------------------------------

    def parse_action(self, s: LancelotState, seat: Seat, text: str) -> Action:
        def can_type() -> tuple[str, ...]:
            # The deadline default first, then a few squares spread over the board and one
            # force-of-the-King example: enough to show the forms, not a list of 38,000.
            legal = self.legal_actions(s, seat)
            if not legal:
                return ()
            kings = [a for a in legal if a[0] == "king"]
            others = legal[len(kings) :]
            spread = others[:: len(others) // 4 + 1][:4]  # +1: not all on one row
            picks = [self.auto_action(s, seat), *spread, *kings[:1]]
            return examples((notation.format_action(a) for a in picks), limit=6)

        at = s.excalibur_at
        situation = notation.Situation(
            geo=s.geo,
            excalibur_variant=s.excalibur,
            opening=s.awaiting_excalibur,
            king=s.excalibur and not s.finished and not s.awaiting_excalibur and s.shields[seat],
            excalibur_at=None if at is None else s.geo.names[at],
            own_colour=st.colour(seat).lower(),
            colours=tuple(c.lower() for c in st.COLOURS[: s.players]),
        )
        action = notation.parse(text, situation, can_type)
        self._check(s, seat, action)
        return action

    def format_action(self, s: LancelotState, action: Action) -> str:
        return notation.format_action(action)

    def choices(self, s: LancelotState, seat: Seat) -> Choices:
        return choices.choices(self.legal_actions(s, seat))

    def dump_state(self, s: LancelotState) -> dict[str, Any]:
        return st.dump_state(s)

    def load_state(self, data: Mapping[str, Any]) -> LancelotState:
        return st.load_state(data)

    # -- showing -----------------------------------------------------------------------------

    def view(self, s: LancelotState, seat: Seat | None) -> dict[str, Any]:
        return vw.view(s, seat)

    def render_text(self, v: Mapping[str, Any]) -> str:
        return vw.render_text(v)

    def seat_label(self, s: LancelotState, seat: Seat) -> str:
        """How every text names ``seat``: its knights' colour ("Red"), as in the view's
        ``players[seat]["label"]``."""
        return st.colour(seat)

    def is_secret(self, s: LancelotState, seat: Seat, action: Action) -> bool:
        return False  # Lancelot hides nothing

    def outcome(self, s: LancelotState) -> Outcome | None:
        if not s.finished:
            return None
        seats = range(s.players)
        return Outcome(
            scores=tuple(s.captures(x) for x in seats),
            winners=s.winners,
            breakdown=tuple(
                {
                    "captures": s.captures(x),
                    "captured_from": {str(o): s.captured[x][o] for o in seats if o != x},
                    "lost": s.lost(x),
                    "in_hand": s.in_hand[x],
                    "on_board": s.on_board(x),
                    "end": s.end,
                }
                for x in seats
            ),
        )


LANCELOT = Lancelot()

if TYPE_CHECKING:  # mypy proves that Lancelot satisfies the engine contract
    _CONTRACT: Rules = LANCELOT
