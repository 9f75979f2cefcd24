"""A player's name is written in the mails to the other players, so no name may read as a
link or an address (pbem.create.player_names): refused at creation by the API, the /new page and
`pbem new-game`, with an error naming the player's field, and nothing created. Ordinary
names (spaces, accents, other scripts, apostrophes, hyphens, initials) are kept."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from flask.testing import FlaskClient

from pbem.create.player_names import link_in_name
from web.cli import main as cli

LINKS = [
    "Visit evil.example/1 to claim your prize",
    "www.evil",
    "WWW.Evil.Example",
    "https://evil.example",
    "see https:evil",
    "mailto:pat",
    "javascript:alert(1)",
    "pat@evil",
    "Pat (at) evil.example",
    "claim at bit.ly",
    "St.John",
    "ｅｖｉｌ．ｅｘａｍｐｌｅ",  # full-width letters and dot: the same link once shown
    "evil\u00ad.example",  # a soft hyphen, invisible in a mail
    "evil\u200b.example",
    "evil\u034f.example",  # the combining grapheme joiner, invisible too
    "evil\ufe0f.example",  # a variation selector
    "evil.\u0301example",  # a mark left on the dot: the same domain to a reader
    "www\u180b.evil",
    "evil。example",  # the ideographic full stop, a dot to browsers
    "go to 192.168.0.1",
    "//evil",
]
ORDINARY = [
    "Ann",
    "Anne-Marie O'Brien",
    "Zoë Ørsted-Ñúñez",
    "N’Golo",
    "李雷",
    "Αλέξανδρος",
    "J. R. R. Tolkien",
    "J.R.R. Tolkien",
    "Dr. Who",
    "Mr. T",
    "Ann: the Red",
    "Player 2",
    "Version 2.0 fan",
    "Jr.",
]


@pytest.mark.parametrize("name", LINKS)
def test_a_name_that_reads_as_a_link_or_an_address_is_found(name: str) -> None:
    assert link_in_name(name) is not None


@pytest.mark.parametrize("name", ORDINARY)
def test_ordinary_names_are_no_links(name: str) -> None:
    assert link_in_name(name) is None


def _games(client: FlaskClient) -> int:
    return len(client.get("/api/v1/games").json["games"])


def test_the_api_refuses_a_link_as_a_name_and_names_the_player(client: FlaskClient) -> None:
    before = _games(client)
    for name in LINKS:
        answer = client.post(
            "/api/v1/games",
            json={"game": "hoard", "players": [{"name": "Ann"}, {"name": name}]},
        )
        assert answer.status_code == 400, (name, answer.json)
        message = answer.json["message"]
        assert message.startswith("Player 2's name reads as a web or e-mail address"), message
    assert _games(client) == before
    made = client.post(
        "/api/v1/games",
        json={"game": "hoard", "players": [{"name": ORDINARY[1]}, {"name": ORDINARY[2]}]},
    )
    assert made.status_code == 201, made.json
    assert [s["name"] for s in made.json["seats"]] == ORDINARY[1:3]


def test_the_new_page_shows_the_refusal_by_the_name_field(client: FlaskClient) -> None:
    before = _games(client)
    answer = client.post(
        "/new",
        data={
            "game": "lancelot",
            "name0": "Ann",
            "name1": "Visit evil.example/1 to claim your prize",
        },
    )
    assert answer.status_code == 400
    text = answer.get_data(as_text=True)
    error = re.search(r'id="name1-error"[^>]*>(.*?)<', text, re.S)
    assert error is not None and "reads as a web or e-mail address" in error.group(1), text
    assert "evil.example" in text  # the form comes back as typed
    assert _games(client) == before
    made = client.post(
        "/new", data={"game": "lancelot", "name0": "J. R. R. Tolkien", "name1": "N’Golo"}
    )
    assert made.status_code == 200, made.get_data(as_text=True)


def test_the_command_line_refuses_a_link_as_a_name(database_url: str, tmp_path: Path) -> None:
    env = {"PBEM_DATABASE_URL": database_url, "PBEM_VAR_DIR": str(tmp_path / "var")}
    runner = CliRunner()
    refused = runner.invoke(
        cli, ["new-game", "lancelot", "--player", "Ann", "--player", "www.evil.example"], env=env
    )
    assert refused.exit_code != 0
    assert "Player 2's name reads as a web or e-mail address" in refused.output
    assert refused.exception is None or isinstance(refused.exception, SystemExit)
    made = runner.invoke(
        cli, ["new-game", "lancelot", "--player", "Ann", "--player", "Zoë Ørsted"], env=env
    )
    assert made.exit_code == 0, made.output
