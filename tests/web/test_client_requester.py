"""Who asks for a game, for the limits on creations: a client's address, with an IPv6
client counted by its /64 (one network hands each machine a whole /64, so counting single
IPv6 addresses would give one client 2**64 budgets). On SQLite and PostgreSQL."""

from __future__ import annotations

import ipaddress
import secrets

import pytest
from flask import Flask
from sqlmodel import select

from pbem.core.models import CreationAddress
from pbem.create.invitations import client_requester
from tests.helpers import database_of


@pytest.mark.parametrize(
    ("remote", "requester"),
    [
        ("192.0.2.7", "ip:192.0.2.7"),
        ("2001:db8:1:2::5", "ip:2001:db8:1:2::/64"),
        ("2001:DB8:1:2:ffff:ffff:ffff:ffff", "ip:2001:db8:1:2::/64"),
        ("::ffff:192.0.2.7", "ip:192.0.2.7"),  # an IPv4 client on a dual-stack socket
        (None, "ip:unknown"),
        ("not an address", "ip:not an address"),
    ],
)
def test_a_client_is_counted_by_its_address_or_its_ipv6_network(
    remote: str | None, requester: str
) -> None:
    assert client_requester(remote) == requester


@pytest.mark.parametrize("door", ["api", "new page"])
def test_two_addresses_of_one_ipv6_network_are_one_requester(app: Flask, door: str) -> None:
    network = f"2001:db8:{secrets.randbelow(65536):x}:{secrets.randbelow(65536):x}"
    ids = []
    for host in ("1", "abcd:1234:5678:9"):
        client = app.test_client()
        client.environ_base["REMOTE_ADDR"] = f"{network}:{host}" if ":" in host else f"{network}::1"
        email = f"v{secrets.token_hex(4)}@example.org"
        if door == "api":
            body = {"game": "lancelot", "players": [{"name": "A", "email": email}, {"name": "B"}]}
            answer = client.post("/api/v1/games", json=body)
            assert answer.status_code == 201, answer.text
            ids.append(answer.json["id"])
        else:
            page = client.get("/new").text
            token = page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
            form = {"csrf_token": token, "game": "lancelot", "name0": "A", "email0": email}
            answer = client.post("/new", data={**form, "name1": "B", "time_control": "none"})
            assert answer.status_code in (200, 201), answer.text
            ids.append(answer.text.split("/games/", 1)[1][:10])
    with database_of(app.extensions["pbem"]).read() as session:
        rows = session.exec(
            select(CreationAddress).where(CreationAddress.game_id.in_(ids))  # type: ignore[attr-defined]
        ).all()
    expected = ipaddress.ip_network(f"{network}::/64")
    assert {r.requester for r in rows} == {f"ip:{expected}"}, rows
