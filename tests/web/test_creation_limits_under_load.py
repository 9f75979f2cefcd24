"""The limits on creations hold when the creations come at the same moment, on a real
gunicorn (4 workers of 4 threads) over SQLite and PostgreSQL: 16 creations at once inviting
one new address make exactly ``per_address_per_day`` invitations, 16 at once from one client
mail exactly ``per_requester_per_day`` addresses, and the others get a 429 that says which
limit. (Before the check and the record were serialised, PostgreSQL let 4 and 8 through.)"""

from __future__ import annotations

import http.client
import json
import os
import secrets
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import func, select

from pbem.core.db import Database
from pbem.core.models import Seat
from tests.mail.servers import free_port

ROOT = Path(__file__).resolve().parents[2]
AT_ONCE = 16
PER_ADDRESS = 3
PER_REQUESTER = 5


@dataclass(frozen=True)
class Server:
    port: int
    log: Path


def _up(server: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert server.poll() is None, "gunicorn exited:\n" + log.read_text(errors="replace")
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        try:
            connection.request("GET", "/api/v1/games")
            if connection.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.2)
        finally:
            connection.close()
    raise AssertionError("gunicorn did not answer within 60 s:\n" + log.read_text())


@pytest.fixture(scope="module")
def server(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("gunicorn")
    port = free_port()
    env = {
        **os.environ,
        "PBEM_DATABASE_URL": database_url,
        "PBEM_VAR_DIR": str(folder / "var"),
        "PBEM_SECRET_KEY": "creation-limits-under-load-secret",
        "PBEM_MAIL_EMBEDDED_SCHEDULER": "false",
        "PBEM_INVITATIONS_PER_ADDRESS_PER_DAY": str(PER_ADDRESS),
        "PBEM_INVITATIONS_PER_REQUESTER_PER_DAY": str(PER_REQUESTER),
        "PBEM_LOG_LEVEL": "WARNING",
    }
    log = folder / "gunicorn.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [
                sys.executable, "-m", "gunicorn", "-w", "4", "--threads", "4",
                "-b", f"127.0.0.1:{port}", "--chdir", str(ROOT), "web:create_app()",
            ],
            env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        _up(process, port, log)
        yield Server(port, log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _create_at_once(
    server: Server,
    bodies: list[dict[str, Any]],
    clients: list[str],
    headers: dict[str, str] | None = None,
    created: list[str] | None = None,
) -> Counter[int]:
    """POST every body at the same moment, each from its client address (any 127.x address
    reaches a server on loopback); the statuses, counted, and the ids of the games created
    appended to ``created``. A 429 must say which limit."""
    ready = threading.Barrier(len(bodies))
    statuses: list[int] = []
    problems: list[str] = []

    def create(body: dict[str, Any], client: str) -> None:
        connection = http.client.HTTPConnection(
            "127.0.0.1", server.port, timeout=60, source_address=(client, 0)
        )
        try:
            connection.connect()  # connected before the barrier: the requests leave together
            ready.wait()
            connection.request(
                "POST",
                "/api/v1/games",
                json.dumps(body),
                {"Content-Type": "application/json", **(headers or {})},
            )
            answer = connection.getresponse()
            text = answer.read().decode()
        finally:
            connection.close()
        statuses.append(answer.status)
        if answer.status == 201 and created is not None:
            created.append(json.loads(text)["id"])
        if answer.status == 429 and "limit is" not in text and "the most" not in text:
            problems.append(text)
        if answer.status not in (201, 429):
            problems.append(f"{answer.status}: {text}")

    threads = [
        threading.Thread(target=create, args=(body, client))
        for body, client in zip(bodies, clients, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert problems == [], [*problems, server.log.read_text(errors="replace")[-3000:]]
    return Counter(statuses)


def _seats_of(database_url: str, address: str) -> int:
    db = Database(database_url)
    try:
        with db.read() as session:
            return int(
                session.exec(
                    select(func.count()).select_from(Seat).where(Seat.email == address)
                ).one()
            )
    finally:
        db.dispose()


def test_one_new_address_invited_by_16_clients_at_once_gets_the_limit(
    server: Server, database_url: str
) -> None:
    address = f"vic.{secrets.token_hex(4)}@example.org"
    body = {"game": "lancelot", "players": [{"name": "Vic", "email": address}, {"name": "Sam"}]}
    clients = [f"127.0.0.{2 + n}" for n in range(AT_ONCE)]
    statuses = _create_at_once(server, [body] * AT_ONCE, clients)
    assert statuses == {201: PER_ADDRESS, 429: AT_ONCE - PER_ADDRESS}
    assert _seats_of(database_url, address) == PER_ADDRESS


def test_one_client_inviting_16_addresses_at_once_mails_the_limit(
    server: Server, database_url: str
) -> None:
    tag = secrets.token_hex(4)
    addresses = [f"new{n}.{tag}@example.org" for n in range(AT_ONCE)]
    bodies = [
        {"game": "lancelot", "players": [{"name": "New", "email": a}, {"name": "Sam"}]}
        for a in addresses
    ]
    client = f"127.0.1.{secrets.randbelow(200) + 2}"  # a client of this test's own
    statuses = _create_at_once(server, bodies, [client] * AT_ONCE)
    assert statuses == {201: PER_REQUESTER, 429: AT_ONCE - PER_REQUESTER}
    assert sum(_seats_of(database_url, a) for a in addresses) == PER_REQUESTER


def test_a_retried_creation_waiting_on_the_limits_gets_its_game_not_a_429(
    server: Server, database_url: str
) -> None:
    # The client has room for one more mail; the same request, with its key, arrives 8
    # times at once: every answer is the one game, counted once.
    tag = secrets.token_hex(4)
    client = f"127.0.2.{secrets.randbelow(200) + 2}"
    spend = [
        {
            "game": "lancelot",
            "players": [{"name": "Old", "email": f"old{n}.{tag}@example.org"}, {"name": "Sam"}],
        }
        for n in range(PER_REQUESTER - 1)
    ]
    assert _create_at_once(server, spend[:1], [client]) == {201: 1}
    assert _create_at_once(server, spend[1:], [client] * len(spend[1:])) == {201: len(spend) - 1}
    address = f"last.{tag}@example.org"
    body = {"game": "lancelot", "players": [{"name": "Last", "email": address}, {"name": "Sam"}]}
    created: list[str] = []
    statuses = _create_at_once(
        server, [body] * 8, [client] * 8, headers={"Idempotency-Key": f"key-{tag}"}, created=created
    )
    assert statuses == {201: 8}
    assert len(set(created)) == 1
    assert _seats_of(database_url, address) == 1
    other = {
        "game": "lancelot",
        "players": [{"name": "More", "email": f"more.{tag}@example.org"}, {"name": "Sam"}],
    }
    assert _create_at_once(server, [other], [client]) == {429: 1}
