"""Property: over random positions of both games (every configuration the rules' contract
suite plays, any seat or a spectator), a mail's text part and HTML part state the same facts
of the board (``tests/mail/board_facts.py`` reads them from each part)."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from pbem.core.naming import names_for
from pbem.mail.outbound.compose import mail_board
from tests.mail.board_facts import READERS

PEOPLE = ["Ann", "Bob", "Cy", "Di", "Ed"]


def _position(game: str, config_index: int, seed: int, moves: int) -> tuple[Any, Any, bool]:
    """A position after ``moves`` random legal moves (a game that ends sooner: its end)."""
    rules = engine.REGISTRY[game]
    configs = rules.contract_configs()
    config = rules.validate_config(configs[config_index % len(configs)])
    state = rules.initial_state(config, seed)
    rng = random.Random(seed)
    for _ in range(moves):
        to_act = sorted(rules.to_act(state))
        if not to_act:
            break
        seat = rng.choice(to_act)
        legal = rules.legal_actions(state, seat)
        # Lancelot's force of the King offers thousands of pairs: a placement mostly.
        plain = [a for a in legal if a[0] != "king"] if rng.random() < 0.9 else []
        state = rules.apply(state, seat, rng.choice(plain or list(legal))).state
    return rules, state, not rules.to_act(state)


def _check(game: str, config_index: int, seed: int, moves: int, viewer: int) -> None:
    rules, state, finished = _position(game, config_index, seed, moves)
    players = len(rules.view(state, None)["players"])
    seat = viewer if viewer < players else None  # a spectator now and then
    names = names_for(rules, state, PEOPLE[:players])
    board = mail_board(rules, state, seat, names, finished=finished)
    from_text, from_html = READERS[game]
    text_facts, html_facts = from_text(board.text), from_html(board.draw())
    assert len(text_facts["players"]) == players, board.text
    assert text_facts == html_facts


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    config=st.integers(0, 50),
    seed=st.integers(0, 2**31),
    moves=st.integers(0, 90),
    viewer=st.integers(0, 5),
)
def test_lancelot_text_and_html_state_the_same_facts(
    config: int, seed: int, moves: int, viewer: int
) -> None:
    _check("lancelot", config, seed, moves, viewer)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    config=st.integers(0, 200),
    seed=st.integers(0, 2**31),
    moves=st.integers(0, 120),
    viewer=st.integers(0, 5),
)
def test_lancaster_text_and_html_state_the_same_facts(
    config: int, seed: int, moves: int, viewer: int
) -> None:
    _check("lancaster", config, seed, moves, viewer)


def test_the_readers_see_a_difference() -> None:
    """The comparison can fail: a board whose HTML misses a knight reads differently."""
    rules, state, _ = _position("lancelot", 0, 7, 12)
    names = names_for(rules, state, PEOPLE[:2])
    board = mail_board(rules, state, 0, names)
    html = board.draw()
    cell = html.index('data-piece="R"')
    broken = html[:cell] + 'data-piece="B"' + html[cell + len('data-piece="R"') :]
    from_text, from_html = READERS["lancelot"]
    assert from_text(board.text) == from_html(html)
    assert from_text(board.text) != from_html(broken)
