"""Commands on one game at the same moment, on SQLite and PostgreSQL: each waits for the
game's lock and then reads the game as the one before it left it, so the read models they
write are the ones the log gives.

On PostgreSQL a statement that waited for a row lock still reads other tables as they were
when it began; reading a game's clock, seats or open undo request in the statement that
takes the lock would fold the next command from a stale clock."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.app.service import GameService
from pbem.core.db import Database
from pbem.core.read_models import first_difference
from tests.helpers import database_of
from tests.service.deadline_helpers import PLAYERS, accept_all, rows, timed_service
from tests.service.helpers import REGISTRY

ROUNDS = 15


@pytest.fixture
def service(database: Database, tmp_path: Path) -> Iterator[GameService]:
    yield timed_service(database, tmp_path)


def test_two_seats_changing_their_clock_at_once_leave_the_read_models_the_log_gives(
    service: GameService,
) -> None:
    gid = accept_all(
        service, service.create_game("lancelot", {}, PLAYERS[:2], time_control="standard").id
    )
    legal = service.load(gid).legal(0)
    orders = {0: legal[:ROUNDS], 1: [f"E{n % 8 + 1}" for n in range(ROUNDS)]}
    start = threading.Barrier(2)
    failures: list[BaseException] = []

    def set_orders(seat: int) -> None:
        try:
            start.wait(timeout=30)
            for order in orders[seat]:
                service.set_standing_order(gid, seat, order, channel="api")
        except BaseException as error:  # reported below, on the test's thread
            failures.append(error)

    threads = [threading.Thread(target=set_orders, args=(seat,)) for seat in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert failures == []
    # Each seat's last standing order stands: neither command wrote over the other's.
    last = {seat: rows(service, gid)[seat].standing_order for seat in (0, 1)}
    assert last == {0: orders[0][-1], 1: orders[1][-1]}
    assert first_difference(database_of(service), gid, REGISTRY) is None
