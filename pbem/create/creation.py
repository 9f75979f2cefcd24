"""Creating a game: its seats and tokens (or seats left open for players to join:
``pbem.create.open_seats``), its seed, the invitations of addresses that never played, the
limits on creations (``pbem.create.limits``), and idempotency (a retry with the same key and
request gets the same game, even when two arrive at the same moment)."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy.exc import IntegrityError

from engine.core import ConfigError
from pbem.app.config import Settings
from pbem.clock import events as ce
from pbem.clock.time_control import TimeControlError, parse_time_control
from pbem.core import events as ev
from pbem.core import store
from pbem.core.db import Database
from pbem.core.errors import BadRequest, ServiceError
from pbem.core.repository import Repository
from pbem.core.time_source import Clock
from pbem.core.unit_of_work import Transactions
from pbem.create import events as creation_events
from pbem.create import invitations
from pbem.create import limits as creation_limits
from pbem.create import requests as game_requests
from pbem.play.actions import check_players
from pbem.play.results import Created, CreatedSeat
from pbem.seats import credentials


class _CreatedMeanwhile(Exception):
    """Leaves a creation's transaction when the same request was created meanwhile."""


class GameCreation:
    """Creates games (part of ``pbem.app.service.GameService``)."""

    def __init__(
        self,
        db: Database,
        settings: Settings,
        clock: Clock,
        repository: Repository,
        transactions: Transactions,
    ) -> None:
        self.db = db
        self.settings = settings
        self.clock = clock
        self.repository = repository
        self.transactions = transactions

    def create_game(
        self,
        game: str,
        config: Mapping[str, Any],
        players: Sequence[Mapping[str, Any]],
        *,
        channel: str = "api",
        private: bool = False,
        idempotency_key: str | None = None,
        requester: str | None = None,
        organiser_key: str | None = None,
        time_control: Any = None,
        vouched_requester: str | None = None,
        admin_token_hash: str | None = None,
        linked: Sequence[ev.Payload] = (),
    ) -> Created:
        """``private``: only the seats and the admin will see the game (``can_see``).
        ``idempotency_key``: a retry with the same key and request gets the same game.
        ``requester``: who asks (a client address), for the rate limit of invitations;
        ``organiser_key``: needed when the settings list organiser keys.

        For a creation the service itself makes on the players' behalf (a rematch every seat
        agreed to, ``pbem.rematch``): ``vouched_requester`` names it (no organiser key is
        asked; its idempotency keys are its own); ``admin_token_hash`` is kept as the new
        game's admin token's (whoever held that token administers this game too; the
        answer's ``admin_token`` then opens nothing); ``linked`` are events appended after
        ``GameStarted`` in the creation's transaction (``RematchOf``)."""
        if vouched_requester is not None:
            asker = game_requests.VOUCHED + vouched_requester
        else:
            asker = invitations.requester_for(self.settings, organiser_key, requester)
        game_requests.check_key(idempotency_key)
        rules = self.repository.rules_for(game)
        # Open seats (``{"open": true}``) come after the named ones, whatever their place in
        # the list: the seats taken are then always the first ones, and a game started with
        # fewer players keeps its seats' numbers (``pbem.create.open_seats``).
        named = [p for p in players if not p.get("open")]
        open_count = len(players) - len(named)
        seats = check_players(named, rules, open_seats=open_count)
        total = len(seats) + open_count
        if "players" in config and config["players"] != total:
            given = f"{total} were named" if not open_count else f"{total} seats were given"
            raise BadRequest(f"The config says {config['players']} players but {given}.")
        try:
            normalised = rules.validate_config({**config, "players": total})
            seed = secrets.randbits(128)
            state = rules.initial_state(normalised, seed)
            ev.canonical_json(normalised)  # refuses what cannot be stored, before anything is
        except ConfigError as e:
            raise BadRequest(f"The config is not valid for {game}: {e}") from None
        except ev.EventDataError as e:
            raise BadRequest(f"The config cannot be stored: {e}.") from None
        try:
            timing = parse_time_control(time_control)
        except TimeControlError as e:
            raise BadRequest(f"The time control cannot be used: {e}.") from None
        # An untimed game's request hashes as before time controls existed.
        hashed_config: Mapping[str, Any] = normalised
        if timing.enabled:
            hashed_config = {"config": normalised, "time_control": timing.to_json()}
        # (a request without open seats hashes as before they existed)
        asked_seats = [*seats, *({"open": True} for _ in range(open_count))]
        hashed_request = game_requests.request_hash(game, hashed_config, asked_seats, private)
        hashed_key = None
        join_key: str | None = None
        if idempotency_key is None:
            tokens = [credentials.new_token() for _ in seats]
            admin_token = credentials.new_token()
            if open_count:
                join_key = credentials.new_token()
        else:
            hashed_key = game_requests.key_hash(idempotency_key, asker)
            tokens, admin_token = game_requests.derived_tokens(
                self.settings.secret_key, hashed_key, len(seats)
            )
            if open_count:
                join_key = game_requests.derived_join_key(self.settings.secret_key, hashed_key)
        open_seats = tuple(range(len(seats), total))

        def answer(game_id: str, version: int, head_hash: str) -> Created:
            return Created(
                id=game_id,
                version=version,
                head_hash=head_hash,
                seats=tuple(
                    CreatedSeat(i, s["name"], s["email"], t)
                    for i, (s, t) in enumerate(zip(seats, tokens, strict=True))
                ),
                admin_token=admin_token,
                open_seats=open_seats,
                join_key=join_key,
            )

        def earlier() -> Created | None:
            if hashed_key is None:
                return None
            with self.db.read() as session:
                row = game_requests.find(session, hashed_key, hashed_request, asker)
                if row is None:
                    return None
                game_requests.check_tokens(session, row.game_id, tokens)
                return answer(row.game_id, row.version, row.head_hash)

        if (replayed := earlier()) is not None:
            return replayed
        for _ in range(5):  # a new random id; retried on the (unlikely) collision
            game_id = secrets.token_hex(5)
            try:
                with self.transactions.creating(game_id, rules, None) as work:
                    emails = [s["email"] for s in seats]
                    creation_limits.serialise(work.session, asker, [e for e in emails if e])
                    if (
                        hashed_key is not None
                        and game_requests.find(work.session, hashed_key, hashed_request, asker)
                        is not None
                    ):
                        # The same request, retried, was created while this one waited for
                        # the limits' lock: its answer, not a second count against them.
                        raise _CreatedMeanwhile
                    invited = invitations.to_invite(work.session, emails)
                    if vouched_requester is None:
                        # (A vouched creation is counted, not limited: every player it mails
                        # asked for it.)
                        creation_limits.check(
                            work.session, self.settings, self.clock.now(), asker, emails, invited
                        )
                    new_events: list[ev.Payload] = [
                        ev.GameCreated(
                            game=game,
                            rules_version=rules.version,
                            config=normalised,
                            seats=tuple(
                                ev.SeatEntry(i, s["name"], s["email"]) for i, s in enumerate(seats)
                            ),
                            seed_commitment=ev.seed_commitment(seed),
                            channel=channel,
                            private=private,
                            invited=invited,
                            open_seats=open_seats,
                        ),
                    ]
                    if timing.enabled:
                        new_events.append(
                            ce.TimeControlSet(
                                time_control=timing.to_json(), by="creator", channel=channel
                            )
                        )
                    if not open_seats:
                        # A game with open seats starts when they are taken (or closed).
                        new_events.append(
                            creation_events.GameStarted(to_act=tuple(sorted(rules.to_act(state))))
                        )
                    new_events.extend(linked)
                    credentials.keep(
                        work.session,
                        game_id,
                        seed,
                        admin_token,
                        tokens,
                        admin_token_hash=admin_token_hash,
                        join_key=join_key,
                    )
                    stored = work.append(new_events, state)
                    game_requests.record(
                        work.session,
                        game_id,
                        asker,
                        hashed_key,
                        hashed_request,
                        stored[-1],
                    )
                    creation_limits.record(
                        work.session, game_id, asker, emails, invited, stored[-1].recorded_at
                    )
                break
            except (IntegrityError, store.VersionTaken, _CreatedMeanwhile):
                # Perhaps the same request, retried at the same moment, won: its answer.
                if (replayed := earlier()) is not None:
                    return replayed
                continue
        else:
            raise ServiceError("Could not allocate a game id; please try again.")
        return answer(game_id, stored[-1].version, stored[-1].hash)
