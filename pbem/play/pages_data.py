"""Reads the web pages need beyond the other queries: the chain check of a stored game, the
seat a page link opens, what a page polls, the clock as a seat's page shows it (and the
seat's own standing order, vacation, the request waiting for consent, its address's time zone
and digest), the log as of
a version, and the game's config and its component values. Each opens its own read
transaction, and the pages call them through the service (``PageReads``' methods are the
service's ``verify_game``, ``game_status`` …), so the web layer never holds a database
session."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.core import ConfigError
from pbem.app.config import Settings
from pbem.clock.consent import pending_request
from pbem.clock.display import deadline_text, time_control_text, when_text
from pbem.clock.preferences import PlayerPreference, address_key, zone_of
from pbem.clock.schedule import GameClock
from pbem.clock.time_control import format_duration
from pbem.core import store
from pbem.core.db import Database
from pbem.core.models import Deadline, GameClockState, Seat
from pbem.core.naming import Names
from pbem.core.replay import VerifyReport, verify
from pbem.core.repository import Repository, game_or_404
from pbem.core.time_source import Clock
from pbem.mail.outbound.compose import seat_for_link
from pbem.play.views import visible_events

if TYPE_CHECKING:
    from pbem.play.component_values import Value


class PageReads:
    """The pages' reads, each in its own read transaction."""

    def __init__(
        self, db: Database, settings: Settings, clock: Clock, repository: Repository
    ) -> None:
        self.db = db
        self.settings = settings
        self.clock = clock
        self.repository = repository

    def verify_game(self, game_id: str) -> VerifyReport:
        """``pbem replay --verify`` for one game: the chain, every payload, legality, the seed."""
        with self.db.read() as session:
            game_or_404(session, game_id)
            return verify(session, game_id, self.repository.registry)

    def seat_for_page_link(self, game_id: str, link: str) -> int:
        """The seat a signed page link (the "Game page" of a mail) opens; Forbidden otherwise."""
        with self.db.read() as session:
            game_or_404(session, game_id)
            return seat_for_link(session, self.settings, game_id, link)

    def game_status(self, game_id: str) -> dict[str, Any]:
        """What a page polls to know the game moved: its version and who is to act (public)."""
        with self.db.read() as session:
            game = game_or_404(session, game_id)
            return {
                "version": game.version,
                "to_act": json.loads(game.to_act),
                "finished": game.finished,
            }

    def clock_of(self, game_id: str, seat: int | None) -> dict[str, str | None]:
        """The game's time control for people, and ``seat``'s deadline as its turn mail words
        it (None for a spectator, or a seat that owes no decision now), at the service's now,
        also in the time zone the seat's address chose."""
        with self.db.read() as session:
            game_or_404(session, game_id)
            clock = session.get(GameClockState, game_id)
            row = None if seat is None else session.get(Deadline, (game_id, seat))
            deadline = None
            if seat is not None and row is None:
                deadline = deadline_text(None, None, self.clock.now())  # an untimed game
            elif row is not None and row.status != "idle":
                seat_row = session.get(Seat, (game_id, row.seat))
                zone = zone_of(session, None if seat_row is None else seat_row.email)
                deadline = deadline_text(row.status, row.due_at, self.clock.now(), zone)
            return {
                "time_control": time_control_text(None if clock is None else clock.state),
                "deadline": deadline,
            }

    def seat_settings(self, game_id: str, seat: int) -> dict[str, Any]:
        """What a seat's page shows of its own clock and choices: its standing order (its
        own: no other seat's is ever read here), whether and until when it is away, the
        vacation allowance left, the request for the others' consent waiting for answers
        (who asked what, who agreed), whether the game is paused, and its address's time zone
        and digest (``pbem.clock.preferences``) — the state the mail commands change."""
        now = self.clock.now()
        with self.db.read() as session:
            game_or_404(session, game_id)
            row = session.get(GameClockState, game_id)
            seat_row = session.get(Seat, (game_id, seat))
            email = None if seat_row is None else seat_row.email
            preference = None if not email else session.get(PlayerPreference, address_key(email))
            clock = None if row is None else GameClock.from_json(json.loads(row.state))
            pending = (
                None if clock is None else pending_request(store.read(session, game_id), clock)
            )
        timed = clock is not None and clock.time_control.enabled
        mine = None if clock is None else clock.seats.get(seat)
        away = [b for _, b in (mine.away if mine else []) if b is not None and b > now]
        left = None
        if clock is not None and mine is not None:
            left = max(0, clock.time_control.vacation - mine.vacation_used)
        request = None
        if pending is not None:
            request = {
                "seat": pending.seat,
                "what": pending.what,
                "by": format_duration(pending.seconds) if pending.seconds else None,
                "agreed": sorted(pending.agreed),
            }
        return {
            "timed": timed,
            # a standing order is used only where a missed deadline plays a move
            "orders_used": timed and clock is not None and clock.time_control.on_deadline == "move",
            "standing_order": None if mine is None else mine.standing_order,
            "away_until": when_text(max(away)) if away else None,
            "vacation_left": None if left is None else (format_duration(left) if left else "none"),
            "paused": clock is not None and "pause" in clock.pause_reasons,
            "request": request,
            "has_address": bool(email),
            "time_zone": None if preference is None else preference.time_zone,
            "digest": bool(preference is not None and preference.digest),
        }

    def log_as_of(
        self, game_id: str, viewer: int | None, upto: int, names: Names
    ) -> list[dict[str, Any]]:
        """The log as ``viewer`` saw it at version ``upto``: only the events up to it, so a secret
        choice revealed later stays hidden and a step retracted later is not yet struck through
        (visibility is worked out from the events given)."""
        with self.db.read() as session:
            game_or_404(session, game_id)
            events = [e for e in store.read(session, game_id) if e.version <= upto]
        return visible_events(events, viewer, names=names)

    def _config_and_rules(self, game_id: str) -> tuple[Mapping[str, Any], Any]:
        """The game's config as its creation event recorded it, and the rules it plays under."""
        with self.db.read() as session:
            game = game_or_404(session, game_id)
            config: Mapping[str, Any] = json.loads(game.config)
            rules = self.repository.rules_of(game)
        return config, rules

    def game_config(self, game_id: str) -> Mapping[str, Any]:
        """The game's config, normalised, as its creation event recorded it."""
        config, _ = self._config_and_rules(game_id)
        return config

    def provisional_values(self, game_id: str) -> list[Value]:
        """The game's component values that are not from a published source, under the game's
        own config (e.g. Lancaster with its Henry V modules and its data overrides), in words;
        empty for rules that declare no ``provisional_values``."""
        # Imported here: it reads Lancaster's data, which a process playing another game (a
        # mail through ``pbem mail-in``) need not import (``engine.REGISTRY`` loads each game's
        # rules on first use).
        from pbem.play import component_values

        config, rules = self._config_and_rules(game_id)
        return component_values.provisional(rules, config)

    def overridden_values(self, game_id: str) -> list[Value]:
        """The values the game's config (its ``data`` overrides) changes from the printed game,
        in words, each with the value it replaces."""
        from pbem.play import component_values

        config, rules = self._config_and_rules(game_id)
        return component_values.overridden(rules, config)

    def config_error(self, game: str, config: Mapping[str, Any], players: int) -> str | None:
        """The rules' own words (their ``ConfigError``) when ``config`` cannot be played with
        ``players`` players, so a form can show them next to the field; None when it can."""
        try:
            self.repository.rules_for(game).validate_config({**config, "players": players})
        except ConfigError as e:
            return str(e)
        return None
