"""Inbound recovery: a message whose worker died after storing or claiming it is processed,
once, by the scheduler's recovery job when the worker's lease runs out; a redelivery meanwhile
is answered "queued" (stored, and taken care of) and never depends on the dead worker."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any, cast

import pytest

from pbem.app.bootstrap import reply_words
from pbem.app.scheduler import build_scheduler
from pbem.app.service import Created, GameService
from pbem.mail.inbound.pipeline import Inbound
from pbem.mail.inbound.recovery import recover_stranded
from pbem.mail.models import InboundMail
from tests.mail.helpers import MailWorld, reply_to
from tests.settings import with_mail
from web import create_app

SECRET = {"Authorization": "Bearer hook-secret"}


class _Killed(BaseException):
    """The worker's process ends here (as by kill -9): nothing after this line runs."""


class _DyingService:
    """The game service of a worker that is killed as it applies a move, just before it
    (``after=False``) or just after it committed (``after=True``); all else passes through."""

    def __init__(self, service: GameService, *, after: bool) -> None:
        self.service, self.after = service, after

    def __getattr__(self, name: str) -> Any:
        return getattr(self.service, name)

    def submit(self, *args: Any, **kwargs: Any) -> Any:
        if self.after:
            self.service.submit(*args, **kwargs)
        raise _Killed


def _dying_worker(world: MailWorld, *, after: bool = False) -> Inbound:
    service = cast(GameService, _DyingService(world.service, after=after))
    return Inbound(world.db, world.settings, service, world.clock, words=reply_words(service))


def _inbound(world: MailWorld) -> Inbound:
    return Inbound(
        world.db, world.settings, world.service, world.clock, words=reply_words(world.service)
    )


def _reply(world: MailWorld, game: Created, body: str = "E5", **kwargs: Any) -> bytes:
    turn = [m for m in world.outbox(game.id) if m.seat == 0 and m.kind == "turn"][-1]
    return reply_to(turn, body, **kwargs)


def _moves_by_mail(world: MailWorld, game_id: str) -> list[tuple[str, str]]:
    return [
        (e.data["canonical"], e.data["channel_ref"])
        for e in world.service.raw_events(game_id)
        if e.type == "ActionApplied" and e.data["channel"] == "email"
    ]


def _row(world: MailWorld, key: str) -> InboundMail:
    with world.db.read() as session:
        row = session.get(InboundMail, key)
        assert row is not None
        session.expunge(row)
        return row


def _wait_for(condition: Callable[[], bool], timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_a_reply_whose_worker_died_is_applied_by_the_running_scheduler(
    world: MailWorld,
) -> None:
    world.settings = with_mail(world.settings, lease_seconds=5, relay_interval=1)
    game = world.new_game()
    raw = _reply(world, game)
    with pytest.raises(_Killed):
        _dying_worker(world).receive(raw, "webhook")  # stored, claimed, then killed
    # The provider delivers it again while the dead worker's lease runs: stored, so 200.
    client = create_app(world.settings, world.service).test_client()
    response = client.post("/inbound/email", data=raw, headers=SECRET)
    assert response.status_code == 200
    assert (response.json["outcome"], response.json["duplicate"]) == ("queued", True)
    assert world.service.load(game.id).version == game.version
    world.clock.advance(timedelta(seconds=6))  # the lease ran out; no delivery comes again
    scheduler = build_scheduler(world.settings, world.service)
    scheduler.start()
    try:
        assert _wait_for(lambda: _row(world, response.json["key"]).status == "done")
    finally:
        scheduler.shutdown(wait=True)
    key = response.json["key"]
    assert _moves_by_mail(world, game.id) == [("E5", key)]
    row = _row(world, key)
    assert (row.status, row.outcome, row.lease_owner) == ("done", "applied", None)
    # A later redelivery gets the outcome; nothing is applied again.
    again = client.post("/inbound/email", data=raw, headers=SECRET).json
    assert (again["outcome"], again["duplicate"]) == ("applied", True)
    assert _moves_by_mail(world, game.id) == [("E5", key)]


def test_a_worker_killed_after_applying_is_recorded_as_applied_not_applied_again(
    world: MailWorld,
) -> None:
    game = world.new_game()
    # A move, then another command: the worker dies between the move's commit and the rest.
    raw = _reply(world, game, "E5\nshow")
    with pytest.raises(_Killed):
        _dying_worker(world, after=True).receive(raw, "imap")
    queued = _inbound(world).receive(raw, "imap")
    assert (queued.outcome, queued.duplicate) == ("queued", True)
    assert recover_stranded(_inbound(world)).processed == 0  # the lease still runs
    world.clock.advance(timedelta(seconds=world.settings.mail.lease_seconds))
    assert recover_stranded(_inbound(world)).processed == 1
    assert recover_stranded(_inbound(world)).processed == 0
    row = _row(world, queued.key)
    assert (row.status, row.outcome) == ("done", "applied")
    assert "not applied again" in (row.detail or "")
    assert _moves_by_mail(world, game.id) == [("E5", queued.key)]


def test_a_message_stored_but_never_claimed_is_recovered_after_the_lease(
    world: MailWorld,
) -> None:
    game = world.new_game()
    key, fresh = _inbound(world).store(_reply(world, game), "stdin")  # then the storer died
    assert fresh
    world.clock.advance(timedelta(seconds=world.settings.mail.lease_seconds - 1))
    assert recover_stranded(_inbound(world)).processed == 0  # the storer may still be at work
    world.clock.advance(timedelta(seconds=1))
    assert recover_stranded(_inbound(world)).processed == 1
    assert _moves_by_mail(world, game.id) == [("E5", key)]


def test_a_confirmed_reply_whose_worker_died_is_applied_not_held_again(
    world: MailWorld,
) -> None:
    world.settings = with_mail(world.settings, from_mismatch="hold")
    game = world.new_game()
    raw = _reply(world, game, sender="alice.work@example.org")
    held = _inbound(world).receive(raw, "webhook")
    assert held.outcome == "held"
    confirm_mails = len([m for m in world.outbox(game.id) if m.kind == "confirm"])
    dying = _dying_worker(world)
    with pytest.raises(_Killed):
        dying.confirm(held.key, dying.confirm_token(held.key))
    world.clock.advance(timedelta(seconds=world.settings.mail.lease_seconds))
    assert recover_stranded(_inbound(world)).processed == 1
    assert (_row(world, held.key).outcome) == "applied"
    assert _moves_by_mail(world, game.id) == [("E5", held.key)]
    # The seat was not asked to confirm a second time.
    assert len([m for m in world.outbox(game.id) if m.kind == "confirm"]) == confirm_mails


def test_recovery_jobs_and_redeliveries_racing_give_each_message_one_outcome(
    world: MailWorld,
) -> None:
    """Three schedulers' recovery jobs and two redeliveries of every message at once."""
    games = [world.new_game() for _ in range(5)]
    raws = [_reply(world, g, "E5" if i % 2 == 0 else "E5\nshow") for i, g in enumerate(games)]
    for index, raw in enumerate(raws):
        with pytest.raises(_Killed):
            _dying_worker(world, after=index % 2 == 1).receive(raw, "webhook")
    world.clock.advance(timedelta(seconds=world.settings.mail.lease_seconds))
    processed: list[int] = []
    keys: set[str] = set()
    errors: list[BaseException] = []

    def recover() -> None:
        try:
            processed.append(recover_stranded(_inbound(world)).processed)
        except BaseException as e:  # reported below
            errors.append(e)

    def redeliver() -> None:
        try:
            for raw in raws:
                result = _inbound(world).receive(raw, "webhook")
                assert result.duplicate
                keys.add(result.key)
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=recover) for _ in range(3)]
    threads += [threading.Thread(target=redeliver) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sum(processed) <= len(games)
    for game in games:
        assert [move for move, _ in _moves_by_mail(world, game.id)] == ["E5"]
    assert len(keys) == len(games)
    assert {(r.status, r.outcome) for r in map(lambda k: _row(world, k), keys)} == {
        ("done", "applied")
    }
