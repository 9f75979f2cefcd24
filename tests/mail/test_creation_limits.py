"""Limits on creations: every mail a creation sends counts against its requester, whoever it
names; an address may be named in only so many games a day, whoever asks; addresses count
without case or sub-address (Gmail without dots). A creation over a limit changes nothing
and mails nobody. On SQLite and PostgreSQL."""

from __future__ import annotations

import secrets
from datetime import timedelta
from pathlib import Path

import pytest
from sqlmodel import func, select

from pbem.app.bootstrap import build_inbound, build_service
from pbem.app.config import DEFAULT_CONFIG, SettingsError, load_settings
from pbem.core.errors import TooManyRequests
from pbem.core.models import Game
from pbem.create.limits import limit_key
from tests.mail.helpers import MailWorld, reply_to
from tests.settings import with_invitations


def _limited(world: MailWorld, **limits: object) -> MailWorld:
    settings = with_invitations(world.settings, **limits)
    return MailWorld(
        world.db, settings, world.clock, build_service(settings, db=world.db, clock=world.clock)
    )


def _state(world: MailWorld) -> tuple[int, int]:
    """Games and mails so far: a refused creation changes neither."""
    with world.db.read() as session:
        games = int(session.exec(select(func.count()).select_from(Game)).one())
    return games, len(world.outbox())


def _played(world: MailWorld, name: str) -> str:
    """An address of its own that has played here: invited once, and accepted by reply."""
    address = f"{name.lower()}.{secrets.token_hex(3)}@example.org"
    game = world.service.create_game(
        "lancelot", {}, [{"name": name, "email": address}, {"name": "X"}]
    )
    (invitation,) = world.outbox(game.id)
    result = build_inbound(world.service).receive(reply_to(invitation, "accept"), "webhook")
    assert result.outcome == "applied", result.detail
    return address


def _requester() -> str:
    # The module's tests share a database and a day: requesters of each test's own.
    return f"ip:{secrets.token_hex(4)}"


def test_a_player_who_has_played_counts_against_the_requester_every_time(
    world: MailWorld,
) -> None:
    limited = _limited(world, per_requester_per_day=5)
    pat = _played(limited, "Pat")
    spammer = _requester()
    for n in range(5):
        game = limited.service.create_game(
            "lancelot", {}, [{"name": "Pat", "email": pat}, {"name": f"N{n}"}], requester=spammer
        )
        assert [m.recipient for m in limited.outbox(game.id)] == [pat]  # mailed at once
    before = _state(limited)
    with pytest.raises(TooManyRequests, match=r"your games have mailed 5 .* limit is 5"):
        limited.service.create_game(
            "lancelot", {}, [{"name": "Pat", "email": pat}, {"name": "N"}], requester=spammer
        )
    assert _state(limited) == before
    # Seats without an address are mailed nothing, so they do not count.
    limited.service.create_game("lancelot", {}, [{"name": "A"}, {"name": "B"}], requester=spammer)
    # Another requester has a budget of its own; the next day, so has this one.
    limited.service.create_game(
        "lancelot", {}, [{"name": "Pat", "email": pat}, {"name": "N"}], requester=_requester()
    )
    limited.clock.advance(timedelta(hours=25))
    limited.service.create_game(
        "lancelot", {}, [{"name": "Pat", "email": pat}, {"name": "N"}], requester=spammer
    )


def test_an_address_is_named_in_a_few_games_a_day_whoever_asks(world: MailWorld) -> None:
    limited = _limited(world, games_per_address_per_day=3, per_requester_per_day=0)
    pat = _played(limited, "Pat")  # the game that made Pat a player counts: 1
    for _ in range(2):
        limited.service.create_game(
            "lancelot", {}, [{"name": "Pat", "email": pat}, {"name": "N"}], requester=_requester()
        )
    before = _state(limited)
    with pytest.raises(TooManyRequests, match=r"named in 3 new game\(s\) .* \(3, counting"):
        limited.service.create_game(
            "lancelot",
            {},
            [{"name": "Pat", "email": pat.upper()}, {"name": "N"}],
            requester=_requester(),
        )
    assert _state(limited) == before
    # The operator's own command is not limited.
    limited.service.create_game("lancelot", {}, [{"name": "Pat", "email": pat}, {"name": "N"}])
    limited.clock.advance(timedelta(hours=25))
    limited.service.create_game(
        "lancelot", {}, [{"name": "Pat", "email": pat}, {"name": "N"}], requester=_requester()
    )


def test_sub_addresses_and_case_are_one_address_for_the_limits(world: MailWorld) -> None:
    limited = _limited(world, per_address_per_day=2, per_requester_per_day=0)
    vic = f"vic{secrets.token_hex(3)}"
    for written in (f"{vic}+1@example.org", f"{vic.upper()}+2@Example.ORG"):
        limited.service.create_game(
            "lancelot",
            {},
            [{"name": "Vic", "email": written}, {"name": "N"}],
            requester=_requester(),
        )
    before = _state(limited)
    for written in (f"{vic}+3@example.org", f"{vic}@example.org", f"{vic.title()}@EXAMPLE.org"):
        with pytest.raises(TooManyRequests, match="invited to 2 game"):
            limited.service.create_game(
                "lancelot",
                {},
                [{"name": "Vic", "email": written}, {"name": "N"}],
                requester=_requester(),
            )
    assert _state(limited) == before


def test_gmail_addresses_count_without_their_dots() -> None:
    assert limit_key("V.I.C+prize@GoogleMail.com") == "vic@gmail.com"
    assert limit_key("vic@gmail.com") == "vic@gmail.com"
    # Elsewhere a dot may make another mailbox: kept. A bare "+" local part is kept whole.
    assert limit_key("V.ic+1@Example.org") == "v.ic@example.org"
    assert limit_key("+1@example.org") == "+1@example.org"


def test_the_cap_on_games_per_address_is_a_setting(tmp_path: Path) -> None:
    env = {"PBEM_VAR_DIR": str(tmp_path)}
    assert load_settings(DEFAULT_CONFIG, env=env).invitations.games_per_address_per_day == 10
    changed = {**env, "PBEM_INVITATIONS_GAMES_PER_ADDRESS_PER_DAY": "4"}
    assert load_settings(DEFAULT_CONFIG, env=changed).invitations.games_per_address_per_day == 4
    negative = {**env, "PBEM_INVITATIONS_GAMES_PER_ADDRESS_PER_DAY": "-1"}
    with pytest.raises(SettingsError, match=r"games_per_address_per_day must be 0 \(no limit\)"):
        load_settings(DEFAULT_CONFIG, env=negative)
