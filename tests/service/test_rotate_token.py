"""``pbem rotate-token GAME SEAT``: a seat's bearer token is replaced, the old one is refused
with a 401 that says so, and the seat gets its new link by mail. On SQLite and PostgreSQL,
through the command line, the mail folder the relay writes and the web app."""

from __future__ import annotations

import re
from collections.abc import Iterator
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from flask.testing import FlaskClient

from pbem.app.config import load_settings
from tests.helpers import database_of
from tests.mail.helpers import reply_to
from web import create_app
from web.cli import main


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class World:
    def __init__(self, database_url: str, tmp_path: Path) -> None:
        self.var = tmp_path / "var"
        self.env = {
            "PBEM_DATABASE_URL": database_url,
            "PBEM_VAR_DIR": str(self.var),
            "PBEM_MAIL_CONFIRMATIONS": "false",
        }
        self.runner = CliRunner()
        self.app = create_app(load_settings(env=self.env))

    def run(self, *args: str) -> Result:
        return self.runner.invoke(main, list(args), env=self.env, catch_exceptions=False)

    def client(self) -> FlaskClient:
        return self.app.test_client()

    def close(self) -> None:
        database_of(self.app.extensions["pbem"]).dispose()

    def token_mails(self) -> list[EmailMessage]:
        return self.mails("token")

    def mails(self, kind: str) -> list[EmailMessage]:
        found = []
        for path in sorted((self.var / "mail").glob("*.eml")):
            mail = message_from_bytes(path.read_bytes(), policy=policy.default)
            assert isinstance(mail, EmailMessage)
            if mail["X-Pbem-Mail"] == kind:
                found.append(mail)
        return found

    def accept_invitations(self) -> None:
        """New to the service, each player with an address follows the link of their
        invitation and accepts it, as a person does."""
        assert self.run("mail", "relay").exit_code == 0
        for invitation in self.mails("invitation"):
            link = re.search(r"open this link: \S+?(/invitation/\S+)", _body(invitation))
            assert link is not None, _body(invitation)
            client = self.client()
            assert client.get(link.group(1)).status_code == 200
            path, _, token = link.group(1).partition("?link=")
            assert client.post(path, data={"link": token}).status_code == 303


def _body(mail: EmailMessage) -> str:
    part = mail.get_body(("plain",))
    assert part is not None
    content: Any = part.get_content()
    return str(content)


@pytest.fixture
def world(database_url: str, tmp_path: Path) -> Iterator[World]:
    made = World(database_url, tmp_path)
    yield made
    made.close()


def test_a_rotated_seat_token_is_refused_and_the_seat_is_mailed_its_new_link(
    world: World,
) -> None:
    created = world.run(
        "new-game", "lancelot", "--player", "Ann <ann@example.org>", "--player", "Bob"
    )
    assert created.exit_code == 0, created.output
    gid = created.output.split()[1]
    old_ann, old_bob = re.findall(r"token (\S+)", created.output)[:2]
    world.accept_invitations()
    client = world.client()
    assert client.get(f"/api/v1/games/{gid}", headers=_bearer(old_ann)).json["seat"] == 0

    rotated = world.run("rotate-token", gid, "0")
    assert rotated.exit_code == 0, rotated.output
    assert "new seat token mailed to ann@example.org; the old token is refused" in rotated.output
    assert old_ann not in rotated.output

    refused = client.get(f"/api/v1/games/{gid}", headers=_bearer(old_ann))
    assert refused.status_code == 401, refused.json
    assert refused.headers["WWW-Authenticate"] == 'Bearer error="invalid_token"'
    assert refused.json["code"] == "unauthorized"
    assert "This seat token was replaced on" in refused.json["message"]
    assert "new seat link mailed to the seat's address" in refused.json["message"]
    played = client.post(
        f"/api/v1/games/{gid}/actions",
        json={"action": "E5", "expected_version": 2},
        headers=_bearer(old_ann),
    )
    assert played.status_code == 401
    page = client.get(f"/games/{gid}?token={old_ann}")
    assert page.status_code == 401 and b"was replaced" in page.data

    relayed = world.run("mail", "relay")
    assert relayed.exit_code == 0, relayed.output
    [mail] = world.token_mails()
    assert mail["To"] == "Ann <ann@example.org>"
    text = _body(mail)
    link = re.search(rf"Your seat page: (\S+/games/{gid}\?token=(\S+))", text)
    assert link is not None, text
    new_ann = link.group(2)
    assert new_ann != old_ann and "Your seat token, for programs" in text
    assert client.get(f"/api/v1/games/{gid}", headers=_bearer(new_ann)).json["seat"] == 0
    opened = client.get(f"/games/{gid}?token={new_ann}")
    assert opened.status_code == 303
    # Bob's token is untouched; a token that never was one is still a plain 403.
    assert client.get(f"/api/v1/games/{gid}", headers=_bearer(old_bob)).json["seat"] == 1
    assert client.get(f"/api/v1/games/{gid}", headers=_bearer("x" * 32)).status_code == 403

    # A seat without an address: nothing to mail, the link is printed for the organiser.
    bob = world.run("rotate-token", gid, "1")
    assert bob.exit_code == 0, bob.output
    printed = re.search(rf"/games/{gid}\?token=(\S+)", bob.output)
    assert printed is not None, bob.output
    assert client.get(f"/api/v1/games/{gid}", headers=_bearer(old_bob)).status_code == 401
    assert client.get(f"/api/v1/games/{gid}", headers=_bearer(printed.group(1))).json["seat"] == 1
    world.run("mail", "relay")
    assert len(world.token_mails()) == 1


def test_rotating_the_token_of_a_seat_that_does_not_exist_is_refused(world: World) -> None:
    created = world.run("new-game", "lancelot", "--player", "Ann", "--player", "Bob")
    gid = created.output.split()[1]
    for game, seat in ((gid, "2"), ("nosuchgame", "0")):
        result = world.run("rotate-token", game, seat)
        assert result.exit_code == 1
        assert f"there is no seat {seat} in a game {game!r}" in result.output


def test_rotating_a_token_also_refuses_the_page_links_and_reply_addresses_mailed_before(
    world: World,
) -> None:
    # The mail of rotate-token says the old links no longer open the seat: the signed page
    # links of earlier mails (``?link=``) may have leaked as well as the bearer token.
    created = world.run(
        "new-game", "lancelot", "--player", "Ann <ann@example.org>", "--player", "Bo <bo@x.org>"
    )
    assert created.exit_code == 0, created.output
    gid = created.output.split()[1]
    world.accept_invitations()
    assert world.run("mail", "relay").exit_code == 0
    before = [m for m in world.mails("turn") + world.mails("notice") if "ann@" in m["To"]]
    links = {link for m in before for link in re.findall(rf"/games/{gid}\?link=\S+", _body(m))}
    assert links, [_body(m) for m in before]
    old_replies = {m["Reply-To"] for m in before if m["Reply-To"]}
    assert old_replies
    client = world.client()
    for link in links:
        assert client.get(link).status_code == 303, link

    rotated = world.run("rotate-token", gid, "0")
    assert rotated.exit_code == 0, rotated.output
    for link in links:
        refused = world.client().get(link)
        assert refused.status_code == 403, (link, refused.status_code)
        assert b"does not open a seat" in refused.data
    assert "page links and reply addresses of its earlier mails" in rotated.output

    assert world.run("mail", "relay").exit_code == 0
    [mail] = world.token_mails()
    assert mail["Reply-To"] and mail["Reply-To"] not in old_replies
    assert "Replies to the game's earlier mails are refused now" in _body(mail)
    # Bob's links are untouched.
    bobs = [m for m in world.mails("turn") + world.mails("notice") if "bo@" in m["To"]]
    bob_links = {k for m in bobs for k in re.findall(rf"/games/{gid}\?link=\S+", _body(m))}
    assert bob_links
    for link in bob_links:
        assert world.client().get(link).status_code == 303


def _raw_mails(world: World, kind: str) -> list[bytes]:
    found = []
    for path in sorted((world.var / "mail").glob("*.eml")):
        raw = path.read_bytes()
        if message_from_bytes(raw, policy=policy.default)["X-Pbem-Mail"] == kind:
            found.append(raw)
    return found


def _mail_in(world: World, raw: bytes) -> str:
    result = world.runner.invoke(main, ["mail-in"], input=raw, env=world.env)
    assert result.exit_code == 0, result.output
    return result.output


def test_rotating_an_invited_seat_revokes_its_invitation_link_and_reply_address(
    world: World,
) -> None:
    created = world.run(
        "new-game", "lancelot", "--player", "Ivy <ivy.rotate@example.org>", "--player", "Bo"
    )
    assert created.exit_code == 0, created.output
    gid = created.output.split()[1]
    assert world.run("mail", "relay").exit_code == 0
    [old] = _raw_mails(world, "invitation")
    first = message_from_bytes(old, policy=policy.default)
    assert isinstance(first, EmailMessage)
    old_link = re.search(r"open this link: \S+?(/invitation/\S+)", _body(first))
    assert old_link is not None
    client = world.client()
    assert client.get(old_link.group(1)).status_code == 200

    rotated = world.run("rotate-token", gid, "0")
    assert rotated.exit_code == 0, rotated.output
    assert "invitation was mailed again to ivy.rotate@example.org" in rotated.output

    # The old invitation's link and reply address no longer accept for the seat.
    path, _, token = old_link.group(1).partition("?link=")
    assert client.get(old_link.group(1)).status_code == 403
    assert client.post(path, data={"link": token}).status_code == 403
    assert _mail_in(world, reply_to(old, "accept")).startswith("refused")
    # Nor does a reply without its token, routed by the old invitation it answers.
    assert _mail_in(world, reply_to(old, "accept", keep_token=False)).startswith("refused")
    assert world.app.extensions["pbem"].invitation_waiting(gid, 0)

    # The invitation came again, with a new link and reply address, and nothing else did.
    assert world.run("mail", "relay").exit_code == 0
    assert world.token_mails() == []
    new = [raw for raw in _raw_mails(world, "invitation") if raw != old]
    assert len(new) == 1
    again = message_from_bytes(new[0], policy=policy.default)
    assert isinstance(again, EmailMessage)
    new_link = re.search(r"open this link: \S+?(/invitation/\S+)", _body(again))
    assert new_link is not None and new_link.group(1) != old_link.group(1)
    assert again["Reply-To"] != first["Reply-To"]
    assert client.get(new_link.group(1)).status_code == 200
    assert _mail_in(world, reply_to(new[0], "accept")).startswith("applied")
