"""Open seats in the service and the log, on SQLite and PostgreSQL: a timed game waiting for
players runs no deadline until it starts; a retried creation with open seats gets the same
join link; nobody acts, resigns or undoes before the start; a finished game takes no one;
the read models rebuild from the log; the fold refuses a ``SeatsClosed`` after an action or
with a config other than the created one's, and a fold from a base before it is never used."""

from __future__ import annotations

import secrets
from pathlib import Path
from types import SimpleNamespace

import pytest

import engine
from pbem.app.bootstrap import build_service
from pbem.app.service import GameService
from pbem.core.db import Database
from pbem.core.errors import Conflict
from pbem.core.fold import Fold, FoldError, fewer_players_config
from tests.settings import make_settings


@pytest.fixture
def service(database: Database, tmp_path: Path) -> GameService:
    settings = make_settings(
        database.url,
        tmp_path,
        invitations={"joins_per_requester_per_hour": 0, "per_requester_per_day": 0},
    )
    return build_service(settings, db=database, registry=engine.REGISTRY, listeners=[])


def _address(name: str) -> str:
    return f"{name}.{secrets.token_hex(3)}@example.org"


def test_a_timed_game_runs_no_deadline_until_every_seat_is_taken(service: GameService) -> None:
    game = service.create_game(
        "lancelot", {}, [{"name": "Ann"}, {"open": True}], time_control="standard"
    )
    assert [d["status"] for d in service.deadlines(game.id)] == ["idle"]
    service.join_game(game.id, "Bo", _address("bo"), channel="api", requester="ip:1")
    statuses = {d["seat"]: d["status"] for d in service.deadlines(game.id)}
    # Bo's address never played: its clock waits for its acceptance; Ann's runs now.
    assert statuses == {0: "running", 1: "idle"}
    assert service.read_model_difference(game.id) is None


def test_a_retried_creation_with_open_seats_gets_the_same_join_link(
    service: GameService,
) -> None:
    key = secrets.token_hex(8)
    players = [{"name": "Ann"}, {"open": True}, {"open": True}]
    first = service.create_game("lancelot", {}, players, idempotency_key=key, requester="ip:2")
    again = service.create_game("lancelot", {}, players, idempotency_key=key, requester="ip:2")
    assert again.id == first.id and again.join_key == first.join_key is not None
    assert again.open_seats == (1, 2)
    with pytest.raises(Conflict):
        service.create_game("lancelot", {}, players[:2], idempotency_key=key, requester="ip:2")


def test_nobody_acts_before_the_start_and_a_finished_game_takes_nobody(
    service: GameService,
) -> None:
    game = service.create_game("lancelot", {}, [{"name": "Ann"}, {"open": True}])
    with pytest.raises(Conflict, match="has not started"):
        service.submit(game.id, 0, "E5", expected_version=1, channel="api")
    with pytest.raises(Conflict, match="has not started"):
        service.resign(game.id, 0, channel="api")
    with pytest.raises(Conflict, match="has not started"):
        service.undo(game.id, 0, channel="api")
    assert service.load(game.id).version == 1
    service.admin_end(game.id, game.admin_token)
    with pytest.raises(Conflict, match="over"):
        service.join_game(game.id, "Bo", _address("bo"), channel="api", requester="ip:3")
    assert [g.id for g in service.open_games() if g.id == game.id] == []


def test_a_state_cached_before_the_seats_closed_is_not_folded_on(service: GameService) -> None:
    game = service.create_game("lancelot", {}, [{"name": "Ann"}] + [{"open": True}] * 3)
    service.join_game(game.id, "Bo", _address("bo"), channel="api", requester="ip:4")
    before = service.load(game.id)  # cached: a four-player state at version 2
    service.start_game_now(game.id, game.admin_token, channel="cli")
    service.cache.clear()
    service.load(game.id, at=before.version)  # the cache holds the older version only
    after = service.load(game.id)
    assert after.version == before.version + 2
    assert after.rules.dump_state(after.state) != before.rules.dump_state(before.state)
    fresh = build_service(service.settings, db=service.parts.db, registry=engine.REGISTRY)
    folded = fresh.load(game.id)
    assert folded.rules.dump_state(folded.state) == after.rules.dump_state(after.state)
    assert service.read_model_difference(game.id) is None


def _event(version: int, type_: str, **data: object) -> SimpleNamespace:
    return SimpleNamespace(version=version, type=type_, payload=SimpleNamespace(**data))


def test_the_fold_refuses_seats_closed_after_an_action_or_with_another_config() -> None:
    rules = engine.REGISTRY["lancelot"]
    created = rules.validate_config({"players": 4})
    closed = rules.validate_config({"players": 2})
    # Lancelot's target is the rules' default for two players, not the four's.
    assert fewer_players_config(rules, created, 2) == closed and closed["target"] == 7
    chosen = rules.validate_config({"players": 4, "target": 5})
    assert fewer_players_config(rules, chosen, 2)["target"] == 5
    fold = Fold.from_start(rules, created, 7)
    fold.apply(_event(2, "SeatsClosed", players=2, config=closed), check=True)
    assert fold.state == rules.initial_state(closed, 7)
    other = Fold.from_start(rules, created, 7)
    with pytest.raises(FoldError, match="not the game's with fewer players"):
        other.apply(_event(2, "SeatsClosed", players=2, config=closed | {"players": 3}), check=True)
    played = Fold.from_start(rules, created, 7)
    action = rules.auto_action(played.state, 0)
    played.apply(
        _event(
            2,
            "ActionApplied",
            seat=0,
            action=list(action) if isinstance(action, tuple) else action,
            canonical=rules.format_action(played.state, action),
            irreversible=False,
            secret=False,
            log=(),
        )
    )
    with pytest.raises(FoldError, match="after actions were played"):
        played.apply(_event(3, "SeatsClosed", players=2, config=closed))
    without_seed = Fold(rules, rules.initial_state(created, 7), 1)
    with pytest.raises(FoldError, match="needs the fold from the game's start"):
        without_seed.apply(_event(2, "SeatsClosed", players=2, config=closed))
