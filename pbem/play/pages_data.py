"""Reads the web pages need beyond the service's commands: the chain check of a stored game,
a seat's page link, and the seed once it is public. Each opens its own read transaction, so
the web layer never holds a database session."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.core import ConfigError
from pbem.clock.display import deadline_text, time_control_text
from pbem.clock.preferences import zone_of
from pbem.core import store
from pbem.core.models import Deadline, GameClockState, Seat
from pbem.core.naming import Names
from pbem.core.replay import VerifyReport, verify
from pbem.core.repository import game_or_404
from pbem.mail.outbound.compose import seat_for_link
from pbem.play import component_values
from pbem.play.component_values import Value
from pbem.play.views import visible_events

if TYPE_CHECKING:
    from pbem.app.service import GameService


def verify_game(service: GameService, game_id: str) -> VerifyReport:
    """``pbem replay --verify`` for one game: the chain, every payload, legality, the seed."""
    with service.db.read() as session:
        game_or_404(session, game_id)
        return verify(session, game_id, service.registry)


def seat_for_page_link(service: GameService, game_id: str, link: str) -> int:
    """The seat a signed page link (the "Game page" of a mail) opens; Forbidden otherwise."""
    with service.db.read() as session:
        game_or_404(session, game_id)
        return seat_for_link(session, service.settings, game_id, link)


def game_status(service: GameService, game_id: str) -> dict[str, Any]:
    """What a page polls to know the game moved: its version and who is to act (public)."""
    with service.db.read() as session:
        game = game_or_404(session, game_id)
        return {
            "version": game.version,
            "to_act": json.loads(game.to_act),
            "finished": game.finished,
        }


def clock_of(service: GameService, game_id: str, seat: int | None) -> dict[str, str | None]:
    """The game's time control for people, and ``seat``'s deadline as its turn mail words
    it (None for a spectator, or a seat that owes no decision now), at the service's now,
    also in the time zone the seat's address chose."""
    with service.db.read() as session:
        game_or_404(session, game_id)
        clock = session.get(GameClockState, game_id)
        row = None if seat is None else session.get(Deadline, (game_id, seat))
        deadline = None
        if seat is not None and row is None:
            deadline = deadline_text(None, None, service.clock.now())  # an untimed game
        elif row is not None and row.status != "idle":
            seat_row = session.get(Seat, (game_id, row.seat))
            zone = zone_of(session, None if seat_row is None else seat_row.email)
            deadline = deadline_text(row.status, row.due_at, service.clock.now(), zone)
        return {
            "time_control": time_control_text(None if clock is None else clock.state),
            "deadline": deadline,
        }


def log_as_of(
    service: GameService, game_id: str, viewer: int | None, upto: int, names: Names
) -> list[dict[str, Any]]:
    """The log as ``viewer`` saw it at version ``upto``: only the events up to it, so a secret
    choice revealed later stays hidden and a step retracted later is not yet struck through
    (visibility is worked out from the events given)."""
    with service.db.read() as session:
        game_or_404(session, game_id)
        events = [e for e in store.read(session, game_id) if e.version <= upto]
    return visible_events(events, viewer, names=names)


def _config_and_rules(service: GameService, game_id: str) -> tuple[Mapping[str, Any], Any]:
    """The game's config as its creation event recorded it, and the rules it plays under."""
    with service.db.read() as session:
        game = game_or_404(session, game_id)
        config: Mapping[str, Any] = json.loads(game.config)
        rules = service.rules_of(game)
    return config, rules


def game_config(service: GameService, game_id: str) -> Mapping[str, Any]:
    """The game's config, normalised, as its creation event recorded it."""
    config, _ = _config_and_rules(service, game_id)
    return config


def provisional_values(service: GameService, game_id: str) -> list[Value]:
    """The game's component values that are not from a published source, under the game's
    own config (e.g. Lancaster with its Henry V modules and its data overrides), in words;
    empty for rules that declare no ``provisional_values``."""
    config, rules = _config_and_rules(service, game_id)
    return component_values.provisional(rules, config)


def overridden_values(service: GameService, game_id: str) -> list[Value]:
    """The values the game's config (its ``data`` overrides) changes from the printed game,
    in words, each with the value it replaces."""
    config, rules = _config_and_rules(service, game_id)
    return component_values.overridden(rules, config)


def config_error(
    service: GameService, game: str, config: Mapping[str, Any], players: int
) -> str | None:
    """The rules' own words (their ``ConfigError``) when ``config`` cannot be played with
    ``players`` players, so a form can show them next to the field; None when it can."""
    try:
        service.rules_for(game).validate_config({**config, "players": players})
    except ConfigError as e:
        return str(e)
    return None
