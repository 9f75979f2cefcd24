"""Substitutes by mail, in Lancaster games of three, every mail delivered to a real SMTP
server (aiosmtpd) and every reply posted to the inbound webhook, on SQLite and PostgreSQL:

- Cat misses her deadlines (the sweep plays for her); Ann replies ``substitute Yellow with
  Dan <dan@example.org>``, Cat's ``refuse substitute`` is refused (she cannot block it),
  Bob's ``agree substitute`` invites Dan; Dan takes the seat over by his link, and Cat's
  reply to an older mail is then refused as revoked, while Dan's first mail lets him play.
- The administrator hands Ann's seat over while Bob's parliament vote is secret: Dan's
  first mail tells the game from Ann's seat — her own gold and squires, the others' hidden,
  Bob's vote as "acted in secret" — and nothing Ann could not see.
"""

from __future__ import annotations

import re
from datetime import timedelta

from flask.testing import FlaskClient

from engine import REGISTRY
from pbem.app.bootstrap import build_sweeper
from pbem.app.service import Created
from pbem.handover.rules import missed_in_a_row
from pbem.mail.outbound.relay import Relay
from pbem.mail.outbound.smtp import transport_for
from tests.mail.helpers import MailWorld, plain_text, reply_to
from tests.mail.servers import SmtpTestServer
from tests.mail.test_end_to_end import SECRET, Inbox, _parse
from tests.mail.test_simultaneous_by_mail import _to_parliament
from web import create_app

LANCASTER = REGISTRY["lancaster"]
PEOPLE = ("Ann", "Bob", "Cat")


def _game(world: MailWorld, time_control: object = None) -> Created:
    seats = [{"name": n, "email": f"{n.lower()}.ho@example.com"} for n in PEOPLE]
    world.welcome(seats)
    return world.service.create_game(
        "lancaster", {}, seats, channel="api", time_control=time_control
    )


def _post(client: FlaskClient, raw: bytes) -> dict:  # type: ignore[type-arg]
    response = client.post("/inbound/email", data=raw, headers=SECRET)
    assert response.status_code == 200, response.json
    assert isinstance(response.json, dict)
    return response.json


def _text(raw: bytes) -> str:
    return plain_text(_parse(raw))


def _accept(client: FlaskClient, raw: bytes, game_id: str) -> None:
    found = re.search(rf"/handover/{game_id}\?link=([a-z0-9]+)", _text(raw))
    assert found, _text(raw)
    assert client.get(f"/handover/{game_id}?link={found.group(1)}").status_code == 200
    taken = client.post(f"/handover/{game_id}", data={"link": found.group(1)})
    assert taken.status_code == 303, taken.text


def test_the_others_hand_a_seat_that_missed_its_deadlines_to_a_substitute_by_mail(
    world: MailWorld, smtp_server: SmtpTestServer
) -> None:
    client = create_app(world.settings, world.service).test_client()
    relay = Relay(world.db, world.settings, transport_for(smtp_server.url, ""), world.clock)
    inbox = Inbox(smtp_server)
    game = _game(world, {"kind": "fixed", "per_decision": "10h", "reminders": []})
    gid, svc = game.id, world.service
    sweeper = build_sweeper(svc)
    for _ in range(40):  # the sweep plays every seat's deadline moves until Cat missed two
        if missed_in_a_row(svc.raw_events(gid), 2) >= 2:
            break
        world.clock.advance(timedelta(hours=11))
        sweeper.sweep()
    else:
        raise AssertionError("Cat never missed two deadlines in a row")
    relay.run_once()
    ann, bob, cat = (f"{n.lower()}.ho@example.com" for n in PEOPLE)
    ann_mail, bob_mail, cat_mail = (inbox.mails(a)[-1] for a in (ann, bob, cat))

    # A line that is neither a move nor a proposal is refused, changing nothing.
    version = svc.load(gid).version
    wrong = _post(client, reply_to(ann_mail, "substitute Yellow with Dan"))
    assert wrong["outcome"] == "refused" and svc.load(gid).version == version
    proposed = _post(client, reply_to(ann_mail, "substitute Yellow with Dan <dan@example.org>"))
    assert proposed["outcome"] == "applied", proposed
    relay.run_once()
    asked = _text(inbox.mails(bob)[-1])
    assert "a substitute is proposed." in asked and "agree substitute" in asked
    told = _text(inbox.mails(cat)[-1])
    assert "a substitute is proposed for your seat, Yellow." in told
    assert "dan@example.org" not in asked + told  # the newcomer's address is not shown
    # Cat cannot block it; a forged reply (another sender, no token) does nothing.
    blocked = _post(client, reply_to(cat_mail, "refuse substitute"))
    assert blocked["outcome"] == "refused"
    forged = _post(
        client,
        reply_to(bob_mail, "agree substitute", sender="mallory@example.net", keep_token=False),
    )
    assert forged["outcome"] != "applied"
    assert inbox.mails("dan@example.org") == []
    agreed = _post(client, reply_to(inbox.mails(bob)[-1], "agree substitute"))
    assert agreed["outcome"] == "applied", agreed
    relay.run_once()
    (invitation,) = inbox.mails("dan@example.org", "substitute")
    assert "take over the seat Yellow, played until now by Cat" in _text(invitation)
    assert _parse(invitation)["Reply-To"] is None  # a reply cannot act for the seat
    assert "reply above this line" not in _text(invitation)  # nor is it asked for

    _accept(client, invitation, gid)
    relay.run_once()
    assert svc.seat_info(gid, 2).name == "Dan"
    (welcome,) = inbox.mails("dan@example.org", "welcome")
    text = _text(welcome)
    assert "you now play Yellow in this game, in place of Cat" in text
    assert "What happened since the game began, as your seat saw it:" in text
    assert "Ann (Red) proposes Dan as a substitute for Yellow" in text
    assert "Cat handed Yellow over to Dan" in text
    (farewell,) = inbox.mails(cat, "replaced")
    assert "you no longer play Yellow" in _text(farewell)
    # Cat's old reply address is refused, saying why; Dan's works.
    late = _post(client, reply_to(cat_mail, "help"))
    assert late["outcome"] == "refused"
    relay.run_once()
    error = _text(inbox.mails(cat, "error")[-1])
    assert "revoked" in error
    shown = _post(client, reply_to(welcome, "show"))
    assert shown["outcome"] == "applied", shown


def test_the_newcomers_first_mail_holds_nothing_the_seat_could_not_see(
    world: MailWorld, smtp_server: SmtpTestServer
) -> None:
    client = create_app(world.settings, world.service).test_client()
    relay = Relay(world.db, world.settings, transport_for(smtp_server.url, ""), world.clock)
    inbox = Inbox(smtp_server)
    game = _game(world)
    gid, svc = game.id, world.service
    _to_parliament(world, gid)
    relay.run_once()
    bob = "bob.ho@example.com"
    voted = _post(client, reply_to(inbox.mails(bob, "turn")[-1], "vote no"))
    assert voted["outcome"] == "applied", voted
    svc.admin_substitute(gid, game.admin_token, 0, "Dan", "dan@example.org", channel="api")
    relay.run_once()
    _accept(client, inbox.mails("dan@example.org", "substitute")[-1], gid)
    relay.run_once()
    (welcome,) = inbox.mails("dan@example.org", "welcome")
    text = _text(welcome)
    # The log as Ann's seat saw it: Bob's vote is secret until the last vote reveals it.
    assert "Bob (Blue) acted in secret" in text
    assert not re.search(r"Bob \(Blue\)[^\n]*: vote", text)
    # The board from Ann's view: her gold and squires, the others' hidden.
    state = svc.load(gid).state
    own = re.search(r"Dan \(Red, you\): [^\n]*gold (\d+), squires (\d+)", text)
    assert own, text
    for name in ("Bob (Blue)", "Cat (Yellow)"):
        assert re.search(re.escape(name) + r": [^\n]*gold \?, squires \?", text), name
    view = LANCASTER.view(state, 0)
    assert int(own.group(1)) == next(p for p in view["players"] if p["seat"] == 0)["gold"]
    # And it is Dan's turn: the mail says what he can type, and his reply plays it.
    assert "It is your turn" in text
    played = _post(client, reply_to(welcome, "vote yes"))
    assert played["outcome"] == "applied", played


def test_a_seat_whose_player_never_accepted_the_invitation_can_be_handed_over(
    world: MailWorld,
) -> None:
    """The commonest case: someone never showed up. Their invitation held back the seat's
    mails; the newcomer's taking the seat over lets them through."""
    client = create_app(world.settings, world.service).test_client()
    seats = [{"name": n, "email": f"{n.lower()}.ho@example.com"} for n in PEOPLE[:2]]
    world.welcome(seats)
    ghost = {"name": "Cat", "email": "never.answers@example.net"}
    game = world.service.create_game("lancaster", {}, [*seats, ghost], channel="api")
    assert world.service.invitation_waiting(game.id, 2)
    world.service.admin_substitute(
        game.id, game.admin_token, 2, "Dan", "dan@example.org", channel="api"
    )
    (invitation,) = [m for m in world.outbox(game.id) if m.kind == "substitute"]
    _accept(client, invitation.message, game.id)
    welcome = [m for m in world.outbox(game.id) if m.kind == "welcome"]
    assert [m.recipient for m in welcome] == ["dan@example.org"]
    assert not world.service.invitation_waiting(game.id, 2)
    # Nothing reaches the old address afterwards but its farewell (it never accepted: none).
    assert all(m.recipient != ghost["email"] or m.kind == "invitation" for m in world.outbox())
