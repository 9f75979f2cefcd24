"""Table talk by mail, through the inbound webhook and a real SMTP server (aiosmtpd), on
SQLite and PostgreSQL: ``say …`` reaches every other seat and ``to Bob: …`` only Bob, each
in a mail of its own in the game's thread; a talk line beside a move does not change how
the move is read (nor the move the line); an unknown name is refused with the names to use;
a quoted message is not sent again; a forged sender and another game's reply address send
nothing. A private message's words are in no mail of any other seat."""

from __future__ import annotations

import re
from datetime import timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage

from flask.testing import FlaskClient

from pbem.app.service import Created
from pbem.mail.outbound.relay import Relay
from pbem.mail.outbound.smtp import transport_for
from pbem.talk import events as talk_events
from tests.mail.helpers import MailWorld, plain_text, reply_to
from tests.mail.servers import SmtpTestServer
from web import create_app

HOOK = {"Authorization": "Bearer hook-secret"}
ADDRESSES = {0: "alice@example.com", 1: "bob@example.com", 2: "carol@example.com"}
SECRET = "Carol will take the fortress next turn"


def _parse(raw: bytes) -> EmailMessage:
    message = message_from_bytes(raw, policy=policy.default)
    assert isinstance(message, EmailMessage)
    return message


def _post(client: FlaskClient, raw: bytes) -> dict:  # type: ignore[type-arg]
    response = client.post("/inbound/email", data=raw, headers=HOOK)
    assert response.status_code == 200, response.json
    assert isinstance(response.json, dict)
    return response.json


def _received(server: SmtpTestServer, address: str) -> list[EmailMessage]:
    return [_parse(r.data) for r in server.messages() if r.rcpt_tos == (address,)]


def _latest_mail(world: MailWorld, gid: str, seat: int) -> bytes:
    return [m for m in world.outbox(gid) if m.seat == seat][-1].message


def _talk(world: MailWorld, gid: str) -> list[talk_events.TableTalkSent]:
    return [
        p
        for e in world.service.raw_events(gid)
        if isinstance(p := e.payload, talk_events.TableTalkSent)
    ]


def _game(world: MailWorld) -> Created:
    return world.new_game(3)


def _first_move(world: MailWorld, gid: str) -> tuple[int, str]:
    loaded = world.service.load(gid)
    seat = min(loaded.to_act)
    action = loaded.rules.auto_action(loaded.state, seat)
    return seat, loaded.rules.format_action(loaded.state, action)


def test_say_and_to_reach_only_their_recipients_over_smtp(
    world: MailWorld, smtp_server: SmtpTestServer
) -> None:
    client = create_app(world.settings, world.service).test_client()
    relay = Relay(world.db, world.settings, transport_for(smtp_server.url, ""), world.clock)
    game = _game(world)
    gid = game.id
    relay.run_once()
    # Alice, to act, answers her turn mail with her move and a word to the table.
    seat, move = _first_move(world, gid)
    version = world.service.load(gid).version
    answer = _post(client, reply_to(_latest_mail(world, gid, seat), f"say Good luck, all!\n{move}"))
    assert answer["outcome"] == "applied", answer
    assert world.service.load(gid).version == version + 2  # the message, then the move
    [said] = _talk(world, gid)
    assert (said.seat, said.recipients, said.text, said.channel) == (
        seat,
        (),
        "Good luck, all!",
        "email",
    )
    assert said.channel_ref and said.channel_ref.endswith("@client.example")
    # Carol writes to Bob alone, by his colour-free name, in any case.
    carol = 2 if seat != 2 else 1
    bob = 1 if carol != 1 else 0
    bob_name = ["alice", "bob", "carol"][bob]
    answer = _post(
        client, reply_to(_latest_mail(world, gid, carol), f"to {bob_name.upper()}: {SECRET}")
    )
    assert answer["outcome"] == "applied", answer
    relay.run_once()
    # A message's own mail waits a minute (for a turn mail that could carry it instead).
    assert not any(SECRET in plain_text(_parse(r.data)) for r in smtp_server.messages())
    world.clock.advance(timedelta(seconds=61))
    relay.run_once()
    next_seat = min(world.service.load(gid).to_act)
    for who, address in ADDRESSES.items():
        mails = _received(smtp_server, address)
        talk = [m for m in mails if m["X-Pbem-Mail"] == "talk"]
        texts = [plain_text(m) for m in mails]
        secret_mails = [m for m in talk if SECRET in plain_text(m)]
        if who == bob:
            assert len(secret_mails) == 1
            [mail] = secret_mails
            # In the game's thread, answerable like every mail of the game.
            assert mail["In-Reply-To"] or mail["References"]
            assert mail["Reply-To"] is not None
            assert "writes to" in plain_text(mail)
        else:
            assert not any(SECRET in t for t in texts), who
        # Everyone but Alice got her word to the table once; she got no copy of it. The
        # seat her move made the next to act read it in that turn mail, not in one more.
        good_luck = [m for m in mails if "Good luck, all!" in plain_text(m)]
        assert len(good_luck) == (0 if who == seat else 1), who
        if who == next_seat:
            assert good_luck[0]["X-Pbem-Mail"] == "turn"
        elif who != seat:
            assert good_luck[0]["X-Pbem-Mail"] == "talk"


def test_an_unknown_name_is_refused_with_the_names_to_use(world: MailWorld) -> None:
    game = _game(world)
    gid = game.id
    version = world.service.load(gid).version
    outcome, detail, answer = world.say(gid, 0, "to Zed: are you there?")
    assert outcome == "refused", detail
    text = plain_text(_parse(answer.message))
    assert "'Zed' fits no seat" in text
    assert "Bob" in text and "Carol" in text
    assert world.service.load(gid).version == version and _talk(world, gid) == []


def test_a_talk_line_is_never_read_as_a_move_nor_a_move_as_talk(world: MailWorld) -> None:
    game = _game(world)
    gid = game.id
    seat, move = _first_move(world, gid)
    client = create_app(world.settings, world.service).test_client()
    turn_mail = _latest_mail(world, gid, seat)
    # A message that reads like a move stays a message; the move after it is the move.
    answer = _post(client, reply_to(turn_mail, f"say {move}\n{move}"))
    assert answer["outcome"] == "applied", answer
    [said] = _talk(world, gid)
    assert said.text == move
    applied = [e for e in world.service.raw_events(gid) if e.type == "ActionApplied"]
    assert len(applied) == 1
    # "to E5" is a move (Lancelot reads "to" as a filler word): only a colon after the
    # names makes a "to" line a message.
    seat, move = _first_move(world, gid)
    answer = _post(client, reply_to(_latest_mail(world, gid, seat), f"to {move}"))
    assert answer["outcome"] == "applied", answer
    applied = [e for e in world.service.raw_events(gid) if e.type == "ActionApplied"]
    assert len(applied) == 2 and len(_talk(world, gid)) == 1


def test_a_quoted_message_is_not_sent_again(world: MailWorld) -> None:
    game = _game(world)
    gid = game.id
    world.service.send_talk(gid, 0, "hello from the page", (1,), channel="web")
    talk_mail = [m for m in world.outbox(gid) if m.seat == 1 and m.kind == "talk"][-1]
    # Bob answers the talk mail; his client quotes it (with "Alice writes to Bob" in it).
    outcome, detail, _ = world.say(gid, 1, "to Alice: hello back")
    assert outcome == "applied", detail
    texts = [m.text for m in _talk(world, gid)]
    assert texts == ["hello from the page", "hello back"]
    assert talk_mail.kind == "talk"


def test_a_forged_sender_and_another_games_address_send_nothing(world: MailWorld) -> None:
    game, other = _game(world), _game(world)
    client = create_app(world.settings, world.service).test_client()
    mail = _latest_mail(world, game.id, 1)
    forged = _post(client, reply_to(mail, "say I am Bob, trust me", sender="mallory@evil.example"))
    assert forged["outcome"] in ("refused", "held"), forged
    assert _talk(world, game.id) == []
    # Bob's reply address of one game names that game: his words go to it, not the other.
    _post(client, reply_to(mail, "say only in the first game"))
    assert [m.text for m in _talk(world, game.id)] == ["only in the first game"]
    assert _talk(world, other.id) == []


def test_a_private_message_is_in_no_mail_of_a_seat_it_is_not_for(world: MailWorld) -> None:
    game = _game(world)
    gid = game.id
    outcome, detail, _ = world.say(gid, 2, f"to Bob: {SECRET}")
    assert outcome == "applied", detail
    # The game goes on: every later mail is checked, turn mails included.
    for _ in range(6):
        loaded = world.service.load(gid)
        if loaded.finished:
            break
        seat = min(loaded.to_act)
        action = loaded.rules.auto_action(loaded.state, seat)
        world.service.submit(
            gid,
            seat,
            loaded.rules.format_action(loaded.state, action),
            expected_version=loaded.version,
            channel="api",
        )
    holding = {
        (mail.seat, mail.kind)
        for mail in world.outbox(gid)
        if SECRET in re.sub(r"\s+", " ", plain_text(_parse(mail.message)))
        or SECRET.encode() in mail.message
    }
    # Bob's turn mail, written within the minute, carried it (its own mail was dropped);
    # Carol's lists it too, as its writer's; Alice's mails never.
    assert (1, "turn") in holding and (1, "talk") not in holding
    assert {seat for seat, _ in holding} <= {1, 2}, holding
    assert (2, "talk") not in holding  # no copy to its writer


def test_a_lancaster_talk_mail_shows_its_reader_nothing_of_the_writers_secret_vote(
    world: MailWorld,
) -> None:
    from pbem.mail.outbound.compose import board_text
    from tests.mail.test_simultaneous_by_mail import _inbound, _lancaster, _latest, _to_parliament

    game = _lancaster(world)
    gid = game.id
    _to_parliament(world, gid)
    inbound = _inbound(world)
    ann_turn = _latest(world, gid, 0, "turn")
    # Ann votes in secret and writes to Bob in the same reply.
    result = inbound.receive(
        reply_to(ann_turn, "vote yes 1\nto Bob: the weather is fine"), "webhook"
    )
    assert result.outcome == "applied", result.detail
    world.clock.advance(timedelta(seconds=61))
    talk = [m for m in world.outbox(gid) if m.kind == "talk"]
    assert [m.seat for m in talk] == [1]
    text = plain_text(_parse(talk[0].message))
    assert "the weather is fine" in text
    loaded = world.service.load(gid)
    names = loaded.names
    bobs = board_text(loaded.rules, loaded.state, 1, names)
    anns = board_text(loaded.rules, loaded.state, 0, names)
    assert bobs.strip() in text  # the reader's own board
    assert anns != bobs and anns.strip() not in text  # never the writer's
    # Nothing of Ann's vote: the log line of it Bob may see says only that she voted.
    vote = [e for e in world.service.raw_events(gid) if e.type == "ActionApplied"][-1]
    assert vote.data["secret"] and vote.data["canonical"] not in text
