"""Invitations: mail to an address that never played is an invitation only; its other mails
wait until the player accepts (a reply, or the link), and then the game as it stands comes,
not the stale mails. Limits per requester and per address; an organiser key when the
operator requires one; creation is idempotent. On SQLite and PostgreSQL."""

from __future__ import annotations

import secrets
from datetime import timedelta
from email import message_from_bytes, policy

import pytest
from click.testing import CliRunner
from sqlmodel import func, select

from pbem.app.bootstrap import build_inbound, build_service
from pbem.core.errors import Conflict, Forbidden, TooManyRequests
from pbem.core.models import Game
from pbem.core.read_models import first_difference, rebuild_all
from pbem.core.replay import verify
from tests.mail.helpers import MailWorld, plain_text, reply_to
from tests.settings import with_invitations
from web import create_app
from web.cli import main as cli


def _players(*names: str) -> list[dict[str, str]]:
    # Addresses of their own: the module's database is shared by its tests.
    tag = secrets.token_hex(3)
    return [{"name": n, "email": f"{n.lower()}.{tag}@example.com"} for n in names]


def _limited(world: MailWorld, **limits: object) -> MailWorld:
    settings = with_invitations(world.settings, **limits)
    service = build_service(settings, db=world.db, clock=world.clock)
    return MailWorld(world.db, settings, world.clock, service)


def _games(world: MailWorld) -> int:
    with world.db.read() as session:
        return int(session.exec(select(func.count()).select_from(Game)).one())


def test_a_new_address_gets_an_invitation_only_until_it_accepts(world: MailWorld) -> None:
    players = _players("Ann", "Bob")
    game = world.service.create_game("lancelot", {}, players, channel="api", requester="ip:1")
    invitations = world.outbox(game.id)
    assert [(m.kind, m.recipient) for m in invitations] == [
        ("invitation", p["email"]) for p in players
    ]
    text = plain_text(message_from_bytes(invitations[1].message, policy=policy.default))
    assert "accept" in text and "/invitation/" in text and "Game page" not in text

    # Ann moves (through the API) while both still wait: nobody is mailed.
    world.service.submit(game.id, 0, "E5", expected_version=game.version, channel="api")
    assert len(world.outbox(game.id)) == 2

    # Bob replies "accept" to his invitation: one mail, his turn as it stands now.
    result = build_inbound(world.service).receive(reply_to(invitations[1], "accept"), "webhook")
    assert result.outcome == "applied", result.detail
    new = world.outbox(game.id)[2:]
    assert [(m.kind, m.recipient) for m in new] == [("turn", players[1]["email"])]
    turn = plain_text(message_from_bytes(new[0].message, policy=policy.default))
    assert "your turn, Bob" in turn and "E5" in turn

    # Bob moves: Ann, still waiting, gets nothing; then she accepts by the link.
    world.service.submit(game.id, 1, "F5", expected_version=game.version + 2, channel="api")
    kinds = [(m.kind, m.recipient) for m in world.outbox(game.id)[3:]]
    assert ("turn", players[0]["email"]) not in kinds
    assert world.service.accept_invitation(game.id, 0, channel="web") is True
    assert world.service.accept_invitation(game.id, 0, channel="web") is False
    last = world.outbox(game.id)[-1]
    assert (last.kind, last.recipient) == ("turn", players[0]["email"])

    # The acceptances are in the log, and the read model is rebuilt from it alone.
    types = [e.type for e in world.service.raw_events(game.id)]
    assert types.count("InvitationAccepted") == 2
    with world.db.read() as session:
        assert verify(session, game.id, world.service.registry).ok
    rebuild_all(world.db, world.service.registry)
    assert first_difference(world.db, game.id, world.service.registry) is None

    # Having played, their addresses are mailed as players in their next game.
    again = world.service.create_game("lancelot", {}, players, channel="api", requester="ip:1")
    assert [m.kind for m in world.outbox(again.id)] == ["turn", "start"]


def test_a_move_in_the_reply_to_an_invitation_accepts_and_is_applied(world: MailWorld) -> None:
    players = _players("Ann", "Bob")
    game = world.service.create_game("lancelot", {}, players, channel="api", requester="ip:1")
    invitation = world.outbox(game.id)[0]
    result = build_inbound(world.service).receive(reply_to(invitation, "E5"), "webhook")
    assert result.outcome == "applied" and "E5" in result.detail, result.detail
    assert not world.service.invitation_waiting(game.id, 0)
    assert world.service.load(game.id).version == game.version + 2  # accepted, then E5
    assert result.detail == "invitation accepted; E5"
    events = world.service.raw_events(game.id)
    assert [e.type for e in events[-2:]] == ["InvitationAccepted", "ActionApplied"]
    # One mail to Ann: the game as it stands after her move, not a "your turn" for the move
    # her reply has just made (Bob, still invited, is sent nothing).
    new = world.outbox(game.id)[2:]
    assert [(m.kind, m.recipient) for m in new] == [("notice", players[0]["email"])]
    text = plain_text(message_from_bytes(new[0].message, policy=policy.default))
    assert "you have joined the game" in text and "E5" in text


def test_an_invitation_answered_with_an_outdated_move_is_still_accepted(
    world: MailWorld,
) -> None:
    """Refused before any line is read (the game moved on since the invitation): the player
    still meant to join, and is sent the game's mails from now on."""
    players = _players("Ann", "Bob", "Cat")
    game = world.service.create_game("lancelot", {}, players, channel="api", requester="ip:old")
    cats = world.outbox(game.id)[2]
    world.service.submit(game.id, 0, "E5", expected_version=game.version, channel="api")
    result = build_inbound(world.service).receive(reply_to(cats, "E7"), "webhook")
    assert result.outcome == "partly applied", result.detail
    assert not world.service.invitation_waiting(game.id, 2)
    types = [e.type for e in world.service.raw_events(game.id)]
    assert types[-2:] == ["ActionApplied", "InvitationAccepted"]  # E5, then Cat joined
    kinds = [(m.kind, m.recipient) for m in world.outbox(game.id)[3:]]
    assert kinds == [("notice", players[2]["email"]), ("error", players[2]["email"])]


def test_a_refused_move_in_the_reply_to_an_invitation_still_accepts(world: MailWorld) -> None:
    players = _players("Ann", "Bob")
    game = world.service.create_game("lancelot", {}, players, channel="api", requester="ip:refused")
    invitation = world.outbox(game.id)[1]
    result = build_inbound(world.service).receive(reply_to(invitation, "E5"), "webhook")
    # E5 is a move, but Ann is to play first: Bob meant to join, and has joined.
    assert result.outcome == "partly applied", result.detail
    assert not world.service.invitation_waiting(game.id, 1)
    assert world.service.load(game.id).version == game.version + 1
    kinds = [(m.kind, m.recipient) for m in world.outbox(game.id)[2:]]
    assert kinds == [("notice", players[1]["email"]), ("error", players[1]["email"])]
    error = message_from_bytes(world.outbox(game.id)[-1].message, policy=policy.default)
    assert "Applied first: invitation accepted." in plain_text(error)


def test_invitations_are_limited_per_address_and_per_requester(world: MailWorld) -> None:
    limited = _limited(world, per_address_per_day=2, per_requester_per_day=5)
    svc = limited.service
    target = _players("Zed")[0]
    # Requesters of this test's own: the module's tests share a database and a day.
    ip = f"ip:{secrets.token_hex(3)}"
    for n in range(2):
        svc.create_game("lancelot", {}, [target, {"name": "X"}], requester=f"{ip}-{n}")
    before = (_games(limited), len(limited.outbox()))
    with pytest.raises(TooManyRequests, match="invited to 2 game"):
        svc.create_game("lancelot", {}, [target, {"name": "X"}], requester=f"{ip}-9")
    assert (_games(limited), len(limited.outbox())) == before  # nothing created, no mail
    # Another day, another invitation.
    limited.clock.advance(timedelta(hours=25))
    svc.create_game("lancelot", {}, [target, {"name": "X"}], requester=f"{ip}-9")

    svc.create_game("lancelot", {}, _players("A", "B", "C"), requester=f"{ip}-spam")
    with pytest.raises(TooManyRequests, match="your games have mailed 3"):
        svc.create_game("lancelot", {}, _players("D", "E", "F"), requester=f"{ip}-spam")
    # Players without an address are mailed nothing: not limited.
    svc.create_game("lancelot", {}, [{"name": "G"}, {"name": "H"}], requester=f"{ip}-spam")


def test_an_organiser_key_can_be_required_to_create_games(world: MailWorld) -> None:
    keyed = _limited(world, organiser_keys=("key-one", "key-two"))
    svc = keyed.service
    with pytest.raises(Forbidden, match="needs an organiser key"):
        svc.create_game("lancelot", {}, _players("A", "B"), requester="ip:1")
    with pytest.raises(Forbidden, match="not one this service knows"):
        svc.create_game("lancelot", {}, _players("A", "B"), organiser_key="key-three")
    svc.create_game("lancelot", {}, _players("A", "B"), organiser_key="key-two")

    app = create_app(keyed.settings, svc)
    body = {"game": "lancelot", "players": _players("A", "B")}
    client = app.test_client()
    refused = client.post("/api/v1/games", json=body)
    assert refused.status_code == 403 and "Organiser-Key" in refused.json["message"]
    made = client.post("/api/v1/games", json=body, headers={"Organiser-Key": "key-one"})
    assert made.status_code == 201, made.json

    form = {"game": "lancelot", "name0": "Ann", "name1": "Bob"}
    page = client.get("/new").get_data(as_text=True)
    assert 'name="organiser_key"' in page
    wrong = client.post("/new", data={**form, "organiser_key": "nope"})
    assert wrong.status_code == 400 and 'id="organiser_key-error"' in wrong.get_data(as_text=True)
    right = client.post("/new", data={**form, "organiser_key": "key-one"})
    assert right.status_code == 200

    env = {
        "PBEM_DATABASE_URL": keyed.settings.database_url,
        "PBEM_SECRET_KEY": keyed.settings.secret_key,
        "PBEM_VAR_DIR": keyed.settings.var_dir,
        "PBEM_INVITATIONS_ORGANISER_KEYS": "key-one,key-two",
    }
    args = ["new-game", "lancelot", "--player", "Ann", "--player", "Bob"]
    runner = CliRunner()
    assert runner.invoke(cli, args, env=env).exit_code == 1
    done = runner.invoke(cli, [*args, "--organiser-key", "key-two"], env=env)
    assert done.exit_code == 0, done.output


def test_a_retried_creation_with_its_key_gets_the_same_game_and_mails_once(
    world: MailWorld,
) -> None:
    players = _players("Ann", "Bob")
    first = world.service.create_game(
        "lancelot", {}, players, idempotency_key="create-1", requester="ip:1"
    )
    again = world.service.create_game(
        "lancelot", {}, players, idempotency_key="create-1", requester="ip:1"
    )
    assert again == first  # the same id, version and tokens
    # The answer holds every token: another requester replaying the key does not get it.
    with pytest.raises(Conflict, match="another requester"):
        world.service.create_game(
            "lancelot", {}, players, idempotency_key="create-1", requester="ip:2"
        )
    assert world.service.seat_for_token(first.id, again.seats[1].token) == 1
    assert world.service.is_admin(first.id, again.admin_token)
    assert len(world.outbox(first.id)) == 2  # the invitations, once
    with pytest.raises(Conflict, match="different game"):
        world.service.create_game(
            "lancelot",
            {},
            players[:1] + _players("Cat"),
            idempotency_key="create-1",
            requester="ip:1",
        )

    app = create_app(world.settings, world.service)
    client = app.test_client()
    body = {"game": "lancelot", "players": _players("Dan", "Eve"), "idempotency_key": "k-2"}
    one = client.post("/api/v1/games", json=body)
    two = client.post("/api/v1/games", json=body)
    assert one.status_code == two.status_code == 201
    assert one.json == two.json
    other = client.post("/api/v1/games", json=body, environ_base={"REMOTE_ADDR": "10.9.9.9"})
    assert other.status_code == 409 and "another requester" in other.json["message"]
    assert "admin_token" not in other.json
    three = client.post(
        "/api/v1/games",
        json={**body, "private": True, "idempotency_key": None},
        headers={"Idempotency-Key": "k-2"},
    )
    assert three.status_code == 409 and "idempotency key" in three.json["message"]
    assert len([m for m in world.outbox() if m.game_id == one.json["id"]]) == 2


def test_accepting_an_invitation_does_not_make_a_reply_stale(world: MailWorld) -> None:
    players = _players("Ann", "Bob")
    game = world.service.create_game("lancelot", {}, players, requester="ip:1")
    world.service.accept_invitation(game.id, 1, channel="web")
    # Ann decided on version 2; Bob's acceptance since changed nothing she decides on.
    world.service.submit(game.id, 0, "E5", expected_version=game.version, channel="api")
    assert world.service.load(game.id).version == game.version + 2


#: Replies that say no, as people write it: each declines.
DECLINES = ("decline", "no thanks", "I'll pass, thanks", "Not this time, sorry")


@pytest.mark.parametrize(
    "reply",
    [
        *DECLINES,
        "I am out of the office until Monday.",
        "unsubscribe",
        # a pass is a move in Lancelot, but to an invitation it says no: never a yes
        "pass",
        # a yes and a no: asked, not picked
        "Yes, I accept\ndecline",
    ],
)
def test_a_reply_that_does_not_accept_changes_nothing(world: MailWorld, reply: str) -> None:
    players = _players("Ann", "Bob")
    game = world.service.create_game("lancelot", {}, players, channel="api", requester="ip:1")
    invitation = world.outbox(game.id)[0]
    result = build_inbound(world.service).receive(reply_to(invitation, reply), "webhook")
    assert result.outcome == "refused", result.detail
    assert world.service.invitation_waiting(game.id, 0)
    assert world.service.load(game.id).version == game.version  # nothing recorded
    answers = world.outbox(game.id)[2:]
    assert [(m.kind, m.recipient) for m in answers] == [("error", players[0]["email"])]
    text = plain_text(message_from_bytes(answers[0].message, policy=policy.default))
    if reply in DECLINES:
        assert "invitation declined" in text and "Nothing more is sent" in text
    else:
        assert "did not accept" in text and "accept" in text and "decline" in text
    # Ann's mails still wait: Bob accepts and moves, and Ann is sent nothing.
    build_inbound(world.service).receive(reply_to(world.outbox(game.id)[1], "join"), "webhook")
    assert not world.service.invitation_waiting(game.id, 1)
    assert world.service.invitation_waiting(game.id, 0)
    assert [m.recipient for m in world.outbox(game.id)[3:]] == [players[1]["email"]]
    # Changing her mind later, she accepts by replying to the answer.
    later = build_inbound(world.service).receive(reply_to(answers[0], "accept"), "webhook")
    assert later.outcome == "applied", later.detail
    assert not world.service.invitation_waiting(game.id, 0)


@pytest.mark.parametrize(
    "reply",
    ["Hi, sure, count me in! accept", "Yes, I accept!", "I'm in", "Sure!", "Count me in 👍"],
)
def test_a_yes_as_people_write_it_accepts_and_is_not_read_as_a_move(
    world: MailWorld, reply: str
) -> None:
    players = _players("Ann", "Bob")
    game = world.service.create_game("lancelot", {}, players, channel="api", requester="ip:yes")
    invitation = world.outbox(game.id)[1]
    result = build_inbound(world.service).receive(reply_to(invitation, reply), "webhook")
    assert (result.outcome, result.detail) == ("applied", "invitation accepted")
    assert not world.service.invitation_waiting(game.id, 1)
    assert world.service.load(game.id).version == game.version + 1  # the acceptance only
    kinds = [(m.kind, m.recipient) for m in world.outbox(game.id)[2:]]
    assert ("error", players[1]["email"]) not in kinds


def test_a_move_after_the_acceptance_in_the_same_reply_is_applied(world: MailWorld) -> None:
    """ "Count me in!" is the answer, not a move; the move under it is applied with it."""
    players = _players("Ann", "Bob", "Cat")
    game = world.service.create_game("lancaster", {}, players, channel="api", requester="ip:in")
    inbound = build_inbound(world.service)
    anns = world.outbox(game.id)[0]
    result = inbound.receive(reply_to(anns, "Count me in!\naccept\nextension 1"), "webhook")
    assert (result.outcome, result.detail) == ("applied", "invitation accepted; extension 1")
    events = world.service.raw_events(game.id)
    assert [e.type for e in events[-2:]] == ["InvitationAccepted", "ActionApplied"]
    assert events[-1].data["canonical"] == "extension 1"


def test_a_move_after_the_acceptance_when_the_seat_is_not_to_act_is_refused_with_why(
    world: MailWorld,
) -> None:
    players = _players("Ann", "Bob")
    game = world.service.create_game("lancelot", {}, players, channel="api", requester="ip:wait")
    bobs = world.outbox(game.id)[1]
    result = build_inbound(world.service).receive(reply_to(bobs, "Yes, I accept!\nF6"), "webhook")
    # Bob has joined; F6 waits for Ann's move, and the error says so.
    assert result.outcome == "partly applied", result.detail
    assert not world.service.invitation_waiting(game.id, 1)
    assert world.service.load(game.id).version == game.version + 1
    error = message_from_bytes(world.outbox(game.id)[-1].message, policy=policy.default)
    text = plain_text(error)
    assert "Applied first: invitation accepted." in text
    assert "> F6" in text and "not your turn" in text.lower()


def test_prose_from_a_lancaster_seat_not_to_act_does_not_accept(world: MailWorld) -> None:
    """Lancaster answers "not your turn" to anything a seat not to act writes; prose is
    still no move, so it accepts nothing (a move written too early still accepts)."""
    players = _players("Ann", "Bob", "Cat")
    game = world.service.create_game("lancaster", {}, players, channel="api", requester="ip:ooo")
    version = game.version
    for seat in range(3):
        version = world.service.submit(
            game.id, seat, f"extension {seat + 1}", expected_version=version, channel="api"
        ).version
    waiting = max(set(range(3)) - set(world.service.load(game.id).to_act))
    invitation = next(m for m in world.outbox(game.id) if m.seat == waiting)
    inbound = build_inbound(world.service)
    for prose in ("I am out of the office until Monday.", "I'll pass, thanks"):
        result = inbound.receive(reply_to(invitation, prose), "webhook")
        assert result.outcome == "refused", result.detail
        assert world.service.invitation_waiting(game.id, waiting)
    assert world.service.load(game.id).version == version
    early = inbound.receive(reply_to(invitation, "knight 2 to C"), "webhook")
    assert early.outcome == "partly applied", early.detail
    assert not world.service.invitation_waiting(game.id, waiting)
