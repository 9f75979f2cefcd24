"""Table talk through the service on SQLite and PostgreSQL: a message is an event of the
log and of the hash chain, never of the game (the board, the stale-submission rule, undo
and the deadlines pass it over); only its writer and recipients read it, in the log, the
conversation and a seat's export (which still verifies offline); the administrator hides
one; every limit refuses with a clear message and changes nothing."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from pbem.app.service import Created, GameService
from pbem.audit.export import bundle_text, export_game
from pbem.audit.verify import verify_bytes
from pbem.core.errors import BadRequest, Conflict, Forbidden, GameNotFound, TooManyRequests
from pbem.core.fold import state_hash
from pbem.core.read_models import first_difference
from pbem.core.time_source import ManualClock
from pbem.mail.models import OutboxMail
from pbem.talk import events as talk_events
from pbem.talk.limits import PER_GAME_PER_DAY, PER_SEAT_PER_HOUR
from tests.helpers import database_of
from tests.mail.helpers import text_part
from tests.service.helpers import REGISTRY
from tests.service.test_games import play

SECRET = "meet me at Calais, the Duke is bluffing"


def _game(service: GameService, players: int = 3) -> Created:
    names = [
        {"name": n, "email": f"{n.lower()}@example.org"} for n in ("Ann", "Bob", "Cat")[:players]
    ]
    created = service.create_game("hoard", {"rounds": 3}, names)
    for seat in range(players):  # new addresses are invited: nothing else until they accept
        service.accept_invitation(created.id, seat, channel="web")
    return created


def _state(service: GameService, gid: str) -> str:
    loaded = service.load(gid)
    return state_hash(loaded.rules, loaded.state)


def _mails(service: GameService, gid: str) -> list[OutboxMail]:
    from sqlmodel import col, select

    with database_of(service).read() as s:
        return list(
            s.exec(
                select(OutboxMail).where(OutboxMail.game_id == gid).order_by(col(OutboxMail.id))
            ).all()
        )


def test_a_message_is_in_the_log_and_the_chain_but_not_in_the_game(
    service: GameService,
) -> None:
    gid = _game(service).id
    before, version = _state(service, gid), service.load(gid).version
    sent = service.send_talk(gid, 0, "  good luck   all ", channel="api")
    assert sent.version == version + 1 and sent.recipients == ()
    assert _state(service, gid) == before  # the board is untouched
    last = service.raw_events(gid)[-1]
    assert last.type == talk_events.TABLE_TALK_SENT
    assert isinstance(last.payload, talk_events.TableTalkSent)
    p = last.payload
    assert (p.seat, p.text, p.channel) == (0, "good luck all", "api")
    assert first_difference(database_of(service), gid, service.registry) is None


def test_a_move_made_before_a_message_is_still_applied_even_through_the_strict_api(
    service: GameService,
) -> None:
    gid = _game(service).id
    seen = service.load(gid).version
    service.send_talk(gid, 1, "hurry up", channel="api")
    # The seat to act read the game at ``seen``; a message since is not a move.
    to_act = sorted(service.load(gid).rules.to_act(service.load(gid).state))[0]
    result = service.submit(gid, to_act, "keep", expected_version=seen, channel="api")
    assert result.error is None and result.applied


def test_only_the_writer_and_the_recipients_read_a_private_message(service: GameService) -> None:
    gid = _game(service).id
    sent_at = service.send_talk(gid, 0, SECRET, (1,), channel="web").version
    service.send_talk(gid, 2, "hello table", channel="web")
    for seat, sees_secret in ((0, True), (1, True), (2, False)):
        texts = [m["text"] for m in service.talk_messages(gid, seat)]
        assert (SECRET in texts) is sees_secret
        assert "hello table" in texts
        log = json.dumps(service.events(gid, 0, seat))
        assert (SECRET in log) is sees_secret
    # Spectators and the public see no table talk at all, public or private.
    assert service.talk_messages(gid, None) == []
    public = json.dumps(service.events(gid, 0, None))
    assert SECRET not in public and "hello table" not in public
    # The other seat's log does not list the private message at all (not its writer, not
    # its recipients): its version is skipped, as another seat's standing order is.
    versions = [e["version"] for e in service.events(gid, 0, 2)]
    assert sent_at not in versions and sent_at + 1 in versions


def test_a_message_mails_only_its_recipients_and_not_its_writer(service: GameService) -> None:
    gid = _game(service).id
    already = len(_mails(service, gid))
    service.send_talk(gid, 0, SECRET, (1,), channel="web")
    new = _mails(service, gid)[already:]
    assert [(m.seat, m.kind) for m in new] == [(1, "talk")]
    text = text_part(new[0].message)
    assert "Ann writes to Bob" in text
    service.send_talk(gid, 2, "hello table", channel="web")
    newer = _mails(service, gid)[already + 1 :]
    assert sorted((m.seat, m.kind) for m in newer) == [(0, "talk"), (1, "talk")]
    assert all(SECRET.encode() not in m.message for m in newer)


def test_a_seats_export_leaves_out_the_messages_it_may_not_read_and_still_verifies(
    service: GameService,
) -> None:
    gid = _game(service).id
    service.send_talk(gid, 0, SECRET, (1,), channel="web")
    play(service, gid, sorted(service.load(gid).rules.to_act(service.load(gid).state))[0], "keep")
    db = database_of(service)
    for seat, sees in ((0, True), (1, True), (2, False)):
        text = bundle_text(export_game(db, gid, seat))
        assert (SECRET in text) is sees
        report = verify_bytes(text.encode(), REGISTRY)
        assert report.ok, report.problems
    public = bundle_text(export_game(db, gid, public=True))
    assert SECRET not in public
    report = verify_bytes(public.encode(), REGISTRY)
    assert report.ok and report.talk_withheld == 1
    assert SECRET in bundle_text(export_game(db, gid))  # the operator's: everything


def test_the_administrator_hides_a_message_with_a_reason(service: GameService) -> None:
    created = _game(service)
    gid = created.id
    sent = service.send_talk(gid, 0, "you are all fools", channel="web")
    with pytest.raises(Forbidden):
        service.hide_talk(gid, created.seats[1].token, sent.version, "rude")
    with pytest.raises(BadRequest):
        service.hide_talk(gid, created.admin_token, sent.version, "  ")
    with pytest.raises(GameNotFound):
        service.hide_talk(gid, created.admin_token, 1, "not a message")
    service.hide_talk(gid, created.admin_token, sent.version, "rude", channel="api")
    for seat in (0, 1, 2):
        [message] = service.talk_messages(gid, seat)
        assert message["text"] == "hidden by the administrator: rude"
        assert "fools" not in json.dumps(service.events(gid, 0, seat))
    with pytest.raises(Conflict):
        service.hide_talk(gid, created.admin_token, sent.version, "again")
    [admin_view] = service.talk_messages(gid, None, admin=True)
    assert admin_view["text"] == "you are all fools" and admin_view["hidden_reason"] == "rude"
    assert "fools" not in bundle_text(export_game(database_of(service), gid, 1))


def test_bad_messages_are_refused_and_change_nothing(service: GameService) -> None:
    gid = _game(service).id
    version = service.load(gid).version
    with pytest.raises(BadRequest, match="empty"):
        service.send_talk(gid, 0, " \n ", channel="api")
    with pytest.raises(BadRequest, match="at most 1000 characters"):
        service.send_talk(gid, 0, "x" * 1001, channel="api")
    with pytest.raises(BadRequest, match="address"):
        service.send_talk(gid, 0, "see evil.example/phish", channel="api")
    with pytest.raises(BadRequest, match="no seat 7"):
        service.send_talk(gid, 0, "hi", (7,), channel="api")
    with pytest.raises(BadRequest, match="other player"):
        service.send_talk(gid, 0, "hi", (0,), channel="api")
    with pytest.raises(Forbidden):
        service.send_talk(gid, 5, "hi", channel="api")
    assert service.load(gid).version == version
    service.send_talk(gid, 0, "x" * 1000, channel="api")  # the longest message


def test_a_seat_sends_at_most_twenty_messages_an_hour(
    service: GameService, clock: ManualClock
) -> None:
    gid = _game(service).id
    for i in range(PER_SEAT_PER_HOUR):
        service.send_talk(gid, 0, f"message {i}", channel="api")
        clock.advance(timedelta(seconds=10))
    with pytest.raises(TooManyRequests, match="20 messages in the last hour"):
        service.send_talk(gid, 0, "one more", channel="api")
    service.send_talk(gid, 1, "another seat may", channel="api")
    clock.advance(timedelta(hours=1))
    service.send_talk(gid, 0, "an hour later", channel="api")


def test_a_game_carries_at_most_two_hundred_messages_a_day(
    service: GameService, clock: ManualClock
) -> None:
    gid = _game(service).id
    sent = 0
    while sent < PER_GAME_PER_DAY:
        for seat in (0, 1, 2):
            if sent < PER_GAME_PER_DAY:
                service.send_talk(gid, seat, f"m{sent}", channel="api")
                sent += 1
        clock.advance(timedelta(minutes=10))
    with pytest.raises(TooManyRequests, match="200 messages in the last 24 hours"):
        service.send_talk(gid, 0, "one more", channel="api")


def test_a_finished_game_takes_messages_for_a_day(service: GameService, clock: ManualClock) -> None:
    created = _game(service, players=2)
    gid = created.id
    service.admin_end(gid, created.admin_token)
    service.send_talk(gid, 0, "good game", channel="api")
    clock.advance(timedelta(hours=25))
    with pytest.raises(Conflict, match="a day after the end"):
        service.send_talk(gid, 1, "too late", channel="api")


def test_a_resigned_seat_writes_no_more(service: GameService) -> None:
    gid = _game(service).id
    service.resign(gid, 2, channel="api")
    with pytest.raises(Forbidden, match="resigned"):
        service.send_talk(gid, 2, "bye", channel="api")


def test_a_message_changes_no_deadline_and_lets_no_undo_request_lapse(
    service: GameService, clock: ManualClock
) -> None:
    names = [{"name": n, "email": f"{n.lower()}.clock@example.org"} for n in ("Ann", "Bob")]
    created = service.create_game("hoard", {"rounds": 3}, names, time_control="48h")
    gid = created.id
    to_act = min(service.load(gid).rules.to_act(service.load(gid).state))
    before = service.deadlines(gid)
    clock.advance(timedelta(hours=5))
    service.send_talk(gid, 1 - to_act, "take your time", channel="api")
    service.send_talk(gid, to_act, "thinking", channel="api")
    # The seat to act still owes the same decision by the same time.
    assert service.deadlines(gid) == before
    # An undo request waiting for answers stays open across a message.
    play(service, gid, to_act, "keep")
    other = min(service.load(gid).rules.to_act(service.load(gid).state))
    play(service, gid, other, "keep")
    asked = service.undo(gid, to_act, to_version=service.load(gid).version - 2, channel="api")
    assert service.open_undo_request(gid) is not None, asked
    service.send_talk(gid, other, "no way", channel="api")
    assert service.open_undo_request(gid) is not None


def test_a_messages_mail_waits_a_minute_and_a_turn_mail_carrying_it_replaces_it(
    service: GameService, clock: ManualClock
) -> None:
    gid = _game(service, players=2).id
    to_act = min(service.load(gid).rules.to_act(service.load(gid).state))
    waiting = 1 - to_act
    service.send_talk(gid, to_act, "brace yourself", channel="api")
    [talk] = [m for m in _mails(service, gid) if m.kind == "talk"]
    assert talk.seat == waiting and talk.next_attempt_at > talk.created_at
    # The move within the minute makes the other seat to act: its turn mail says it all.
    clock.advance(timedelta(seconds=30))
    play(service, gid, to_act, "keep")
    mails = _mails(service, gid)
    assert not [m for m in mails if m.kind == "talk"]
    [turn] = [m for m in mails if m.kind == "turn" and m.seat == waiting][-1:]
    assert "brace yourself" in text_part(turn.message)
    # A minute later, the message's mail has gone its way: a turn mail does not undo that.
    service.send_talk(gid, waiting, "well played", channel="api")
    clock.advance(timedelta(seconds=61))
    play(service, gid, waiting, "keep")
    assert [m.seat for m in _mails(service, gid) if m.kind == "talk"] == [to_act]


def test_the_same_words_from_the_same_reply_are_sent_once(service: GameService) -> None:
    gid = _game(service).id
    first = service.send_talk(gid, 0, "hi", (1,), channel="email", channel_ref="<r1@x.example>")
    # The reply processed again (after a crash), or the same line twice in it: sent once.
    again = service.send_talk(gid, 0, "hi", (1,), channel="email", channel_ref="<r1@x.example>")
    assert again.version == first.version == service.load(gid).version
    # Other words, other seats or another reply are other messages.
    service.send_talk(gid, 0, "hi", (2,), channel="email", channel_ref="<r1@x.example>")
    service.send_talk(gid, 0, "hi", (1,), channel="email", channel_ref="<r2@x.example>")
    assert len(service.talk_messages(gid, 0)) == 3
