"""A rematch of a finished game, through the service, on SQLite and PostgreSQL: proposed by
a seat, agreed by every seat, created once through the creation command with the same
players (rotated, or in the same seats), configuration, privacy and administrator, a fresh
seed and the rules' current version; the two games linked by events; refused while the game
is played, to a seat of no game, for another seating while one is open; declined; and
created exactly once when agreements and starts race."""

from __future__ import annotations

import json
import random
import threading
from pathlib import Path
from typing import Any

import pytest

from pbem.app.bootstrap import build_service
from pbem.app.service import Created, GameService
from pbem.audit.verify import EPILOGUE, verify_bytes
from pbem.clock.events import TimeControlSet
from pbem.core import events as ev
from pbem.core.db import Database
from pbem.core.errors import BadRequest, Conflict, Forbidden, ServiceError
from pbem.core.event_base import Epilogue
from pbem.rematch import events as re
from pbem.talk import events as talk_events
from tests.service.helpers import REGISTRY
from tests.settings import make_settings

PLAYERS = [
    {"name": "Ann", "email": "ann@example.org"},
    {"name": "Bob", "email": "bob@example.org"},
    {"name": "Cy", "email": "cy@example.org"},
]


def finished_game(svc: GameService, *, private: bool = False, players: int = 3) -> Created:
    """A game of Hoard with real addresses, its invitations accepted, played to its end."""
    created = svc.create_game(
        "hoard", {"rounds": 1}, PLAYERS[:players], private=private, time_control="2d"
    )
    for seat in range(players):
        svc.accept_invitation(created.id, seat, channel="web")
    rnd = random.Random(7)
    while not (loaded := svc.load(created.id)).finished:
        seat = min(loaded.to_act)
        move = rnd.choice(loaded.legal(seat))
        svc.submit(created.id, seat, move, expected_version=loaded.version, channel="api")
    return created


def payloads(svc: GameService, game_id: str, kind: type) -> list[Any]:
    return [e.payload for e in svc.raw_events(game_id) if isinstance(e.payload, kind)]


def test_a_rematch_starts_when_every_seat_agrees_with_the_seats_rotated(
    service: GameService,
) -> None:
    old = finished_game(service, private=True)
    first = service.propose_rematch(old.id, 1, channel="web")
    assert first.status == "proposed" and first.new_game_id is None
    assert service.agree_rematch(old.id, 0, channel="api").status == "agreed"
    status = service.rematch_status(old.id)
    assert status is not None and status.waiting == (2,) and status.agreed == (0, 1)
    done = service.agree_rematch(old.id, 2, channel="email", channel_ref="<m@x>")
    assert done.status == "started" and done.new_game_id
    new = done.new_game_id

    created_old = payloads(service, old.id, ev.GameCreated)[0]
    created_new = payloads(service, new, ev.GameCreated)[0]
    # Rotated: the old second seat plays first, the old first seat last.
    assert [(s.name, s.email) for s in created_new.seats] == [
        ("Bob", "bob@example.org"),
        ("Cy", "cy@example.org"),
        ("Ann", "ann@example.org"),
    ]
    assert created_new.config == created_old.config and created_new.game == "hoard"
    assert created_new.rules_version == REGISTRY["hoard"].version
    assert created_new.seed_commitment != created_old.seed_commitment  # a fresh seed
    assert created_new.private is True  # a private game's rematch is private
    assert created_new.invited == ()  # every address has played: no invitation
    # Linked both ways, as events: bookkeeping that changes no state.
    assert payloads(service, new, re.RematchOf) == [
        re.RematchOf(game_id=old.id, proposal=first.proposal, seating="rotate")
    ]
    assert [e.type for e in service.raw_events(new)][:2] == [ev.GAME_CREATED, "TimeControlSet"]
    assert payloads(service, old.id, re.RematchStarted) == [
        re.RematchStarted(proposal=first.proposal, game_id=new)
    ]
    assert service.rematch_of(new) == old.id
    assert service.rematch_status(old.id).new_game_id == new  # type: ignore[union-attr]
    # The old game's administrator administers the rematch; the seats' old tokens open
    # nothing in it.
    assert service.is_admin(new, old.admin_token)
    with pytest.raises(ServiceError):  # private: "no such game" to an old seat token
        service.seat_for_token(new, old.seats[0].token)
    # The time control goes on.
    timing = [p.time_control for p in payloads(service, old.id, TimeControlSet)]
    assert [p.time_control for p in payloads(service, new, TimeControlSet)] == timing[-1:]
    assert service.load(new).finished is False
    # A finished game's rematch starts once: another proposal is refused.
    with pytest.raises(Conflict, match="rematch has started"):
        service.propose_rematch(old.id, 0, channel="web")
    # Nothing of it is state: the finished game replays and checks as before.
    assert service.replay(old.id).ok and service.replay(new).ok
    assert not service.read_model_difference(old.id) and not service.read_model_difference(new)
    # The offline verifier checks the finished game's record, its epilogue after the end.
    for seat in (None, 0):
        bundle = service.export_game(old.id, seat)
        assert bundle["events"][-1]["type"] == re.REMATCH_STARTED
        report = verify_bytes(json.dumps(bundle).encode(), REGISTRY)
        assert report.ok, report.problems
    assert re.REMATCH_OF not in EPILOGUE  # (in the new game, before its end)
    epilogues = [*re.REMATCH_EVENTS, *talk_events.TALK_EVENTS]
    assert {k.TYPE for k in epilogues if issubclass(k, Epilogue)} == EPILOGUE


def test_same_seats_keeps_every_player_in_their_seat(service: GameService) -> None:
    old = finished_game(service, players=2)
    service.propose_rematch(old.id, 0, "same", channel="web")
    done = service.propose_rematch(old.id, 1, channel="web")  # proposing again joins it
    assert done.status == "started"
    seats = payloads(service, done.new_game_id or "", ev.GameCreated)[0].seats
    assert [s.name for s in seats] == ["Ann", "Bob"]


def test_a_rematch_is_refused_while_the_game_is_played(service: GameService) -> None:
    created = service.create_game("hoard", {"rounds": 1}, PLAYERS[:2])
    version = service.load(created.id).version
    with pytest.raises(Conflict, match="not over"):
        service.propose_rematch(created.id, 0, channel="web")
    with pytest.raises(Conflict, match="not over"):
        service.agree_rematch(created.id, 0, channel="web")
    assert service.load(created.id).version == version


def test_who_may_and_what_they_may_ask(service: GameService) -> None:
    old = finished_game(service, players=2)
    version = service.load(old.id).version
    with pytest.raises(Forbidden):
        service.propose_rematch(old.id, 5, channel="api")
    with pytest.raises(Conflict, match="No rematch is proposed"):
        service.agree_rematch(old.id, 0, channel="api")
    with pytest.raises(Conflict, match="No rematch is proposed"):
        service.decline_rematch(old.id, 0, channel="api")
    with pytest.raises(BadRequest):
        service.propose_rematch(old.id, 0, "shuffled", channel="api")
    assert service.load(old.id).version == version  # refusals change nothing
    service.propose_rematch(old.id, 0, "rotate", channel="api")
    with pytest.raises(Conflict, match="decline it and propose your own"):
        service.propose_rematch(old.id, 1, "same", channel="api")
    assert service.propose_rematch(old.id, 0, channel="api").status == "already"


def test_a_decline_ends_the_proposal_and_another_may_follow(service: GameService) -> None:
    old = finished_game(service)
    service.propose_rematch(old.id, 0, channel="web")
    service.agree_rematch(old.id, 1, channel="web")
    assert service.decline_rematch(old.id, 2, channel="web").status == "declined"
    status = service.rematch_status(old.id)
    assert status is not None and status.status == "declined" and status.declined_by == 2
    with pytest.raises(Conflict, match="No rematch is proposed"):
        service.agree_rematch(old.id, 1, channel="web")
    again = service.propose_rematch(old.id, 2, "same", channel="web")
    assert again.status == "proposed"
    assert service.rematch_status(old.id).seating == "same"  # type: ignore[union-attr]


def test_a_game_with_a_seat_without_address_has_no_rematch(service: GameService) -> None:
    created = service.create_game("hoard", {"rounds": 1}, [{"name": "Ann"}, {"name": "Bob"}])
    rnd = random.Random(3)
    while not (loaded := service.load(created.id)).finished:
        seat = min(loaded.to_act)
        service.submit(
            created.id, seat, rnd.choice(loaded.legal(seat)), expected_version=loaded.version,
            channel="api",
        )  # fmt: skip
    with pytest.raises(Conflict, match="e-mail address"):
        service.propose_rematch(created.id, 0, channel="api")


def _racing(database: Database, tmp_path: Path, calls: list[Any]) -> list[Any]:
    """Each call run at once on a service of its own (connections of its own)."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(i: int) -> None:
        svc = build_service(
            make_settings(database.url, tmp_path), db=Database(database.url),
            registry=REGISTRY, listeners=[],
        )  # fmt: skip
        barrier.wait(timeout=60)
        try:
            results[i] = calls[i](svc)
        except ServiceError as e:
            results[i] = e
        finally:
            svc.release_connections()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return results


def test_a_rematch_is_created_exactly_once_when_agreements_race(
    service: GameService, database: Database, tmp_path: Path
) -> None:
    old = finished_game(service)
    service.propose_rematch(old.id, 0, channel="web")
    # The two last seats agree at once, each twice (page and mail, say).
    results = _racing(
        database,
        tmp_path,
        [
            lambda s: s.agree_rematch(old.id, 1, channel="web"),
            lambda s: s.propose_rematch(old.id, 1, channel="email"),
            lambda s: s.agree_rematch(old.id, 2, channel="api"),
            lambda s: s.propose_rematch(old.id, 2, channel="email"),
        ],
    )
    assert not [r for r in results if isinstance(r, ServiceError)], results
    started = payloads(service, old.id, re.RematchStarted)
    assert len(started) == 1
    assert len(payloads(service, old.id, re.RematchAgreed)) == 2
    new = started[0].game_id
    assert {r.new_game_id for r in results if r.status == "started"} == {new}
    hoard_games = [g for g in service.list_games() if g["id"] != old.id]
    assert sum(1 for g in hoard_games if service.rematch_of(g["id"]) == old.id) == 1


def test_starts_racing_after_the_last_agreement_create_one_game(
    service: GameService, database: Database, tmp_path: Path
) -> None:
    """The window between the last agreement's commit and the start (a crash there, or two
    doors): every start creates or finds the one game of the proposal's idempotency key."""
    old = finished_game(service, players=2)
    proposal = service.propose_rematch(old.id, 0, channel="web").proposal
    rematches = service.parts.rematches
    start = rematches._start
    rematches._start = lambda *a, **k: None  # type: ignore[method-assign,assignment,return-value]
    service.agree_rematch(old.id, 1, channel="web")  # agreed, not started (as after a crash)
    rematches._start = start  # type: ignore[method-assign]
    assert service.rematch_status(old.id).status == "agreed"  # type: ignore[union-attr]
    results = _racing(
        database,
        tmp_path,
        [lambda s: s.parts.rematches._start(old.id, proposal, "web") for _ in range(4)]
        + [lambda s: s.propose_rematch(old.id, 0, channel="web")],
    )
    assert not [r for r in results if isinstance(r, ServiceError)], results
    assert len({r.new_game_id for r in results}) == 1
    assert len(payloads(service, old.id, re.RematchStarted)) == 1
    with pytest.raises(Conflict):
        service.decline_rematch(old.id, 0, channel="web")


def test_table_talk_after_the_end_and_a_rematch_replay_and_verify_offline(
    service: GameService,
) -> None:
    """Players may talk for a day after the end (``pbem.talk.limits``), around a rematch: the
    finished game still replays and its exports verify offline (the talk is bookkeeping after
    the end, as the rematch's events are)."""
    old = finished_game(service)
    service.send_talk(old.id, 0, "Well played, all!", channel="web")
    service.propose_rematch(old.id, 1, channel="web")
    service.send_talk(old.id, 2, "Rematch? Gladly.", (1,), channel="web")
    assert service.replay(old.id).ok
    assert not service.read_model_difference(old.id)
    for seat in (None, 0, 1):
        bundle = service.export_game(old.id, seat)
        kinds = [e["type"] for e in bundle["events"]]
        assert kinds[-3:] == ["TableTalkSent", re.REMATCH_PROPOSED, "TableTalkSent"]
        report = verify_bytes(json.dumps(bundle).encode(), REGISTRY)
        assert report.ok, (seat, report.problems)
