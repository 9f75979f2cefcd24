"""Disputes by mail, in a Lancaster game of three: a player replies ``dispute V: …`` to a
mail, every seat is told, the others' consent cannot take back a parliament vote once the
last vote revealed them all, the administrator can, and the log says which votes had been
seen. The evidence of the disputed vote is the mail the player answered and the raw reply,
kept with its headers; another seat sees only the public record. Every reply goes through
the inbound pipeline (``Inbound.receive``, as the webhook does), on SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
from datetime import timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage

from sqlmodel import select

from pbem.app.bootstrap import reply_words
from pbem.app.service import Created
from pbem.audit.evidence import NO_TIME_CONTROL
from pbem.mail.inbound.pipeline import Inbound
from pbem.mail.inbound.retention import purge_inbound
from pbem.mail.models import InboundMail, OutboxMail
from tests.helpers import audit
from tests.mail.helpers import MailWorld, plain_text, reply_to
from tests.mail.test_simultaneous_by_mail import _lancaster, _latest, _to_parliament
from tests.settings import with_mail


def _text(mail: OutboxMail) -> str:
    message = message_from_bytes(mail.message, policy=policy.default)
    assert isinstance(message, EmailMessage)
    return str(plain_text(message))


def _inbound(world: MailWorld) -> Inbound:
    return Inbound(
        world.db, world.settings, world.service, world.clock, words=reply_words(world.service)
    )


def _voted(world: MailWorld) -> tuple[Created, int]:
    """A Lancaster game at its first parliament vote, every seat's vote mailed in: Ann's
    (version ``vote_version`` + 1) first, Cat's last (it reveals all three)."""
    game = _lancaster(world)
    vote_version = _to_parliament(world, game.id)
    inbound = _inbound(world)
    vote_mails = [_latest(world, game.id, seat, "turn") for seat in range(3)]
    for seat, text in enumerate(["vote yes 1", "vote no", "vote yes"]):
        reply = reply_to(vote_mails[seat], text, message_id=f"vote{seat}.{game.id}@client.example")
        assert inbound.receive(reply, "webhook").outcome == "applied"
    return game, vote_version


def test_a_dispute_by_mail_reaches_every_seat_and_only_the_administrator_can_cross_the_reveal(
    world: MailWorld,
) -> None:
    game, vote_version = _voted(world)
    gid, svc, inbound = game.id, world.service, _inbound(world)
    ann_vote, reveal = vote_version + 1, vote_version + 3
    # Ann answers the mail that told her of the votes with a dispute about her own vote.
    told = _latest(world, gid, 0)
    before = {m.id for m in world.outbox(gid)}
    result = inbound.receive(
        reply_to(told, f"dispute {ann_vote}: I meant to vote no, the yes was a slip"), "webhook"
    )
    assert (result.outcome, result.detail) == ("applied", f"dispute {reveal + 1} opened")
    dispute = reveal + 1
    notices = [m for m in world.outbox(gid) if m.id not in before]
    assert sorted(m.seat for m in notices) == [0, 1, 2]
    assert {m.kind for m in notices} == {"notice"}
    for mail in notices:
        text = _text(mail)
        assert "a move is disputed." in text
        assert (
            f"Ann (Red) disputes version {ann_vote}: “I meant to vote no, the yes was a slip”"
            in text
        )
    # Taking Ann's vote back would cross the reveal: nobody is asked to agree.
    for seat in (1, 2):
        asked = " ".join(_text(next(m for m in notices if m.seat == seat)).split())
        assert f"Reply 'agree {dispute}'" not in asked
        assert "only the game's administrator can uphold this dispute" in asked
        assert f"Reply 'disagree {dispute}' if you think the moves stand." in asked
    assert "The other players and the game's administrator have been told." in _text(
        next(m for m in notices if m.seat == 0)
    )

    # Bob agrees by mail: consent cannot cross the reveal, and he is told why.
    bob_notice = next(m for m in notices if m.seat == 1)
    refused = inbound.receive(reply_to(bob_notice, f"agree {dispute}"), "webhook")
    assert refused.outcome == "refused"
    assert "Only the game's administrator can uphold this dispute" in refused.detail
    assert svc.disputes_of(gid)[0]["status"] == "open"

    # The administrator (an operator's command) upholds it across the reveal.
    before = {m.id for m in world.outbox(gid)}
    upheld = svc.resolve_dispute(gid, game.admin_token, dispute, uphold=True, reason="a slip")
    resolution = [m for m in world.outbox(gid) if m.id not in before]
    assert sorted(m.seat for m in resolution) == [0, 1, 2]
    assert upheld.retracted == (ann_vote, ann_vote + 1, reveal)
    [said] = upheld.revealed
    assert said.startswith(f"Version {reveal} (Cat (Yellow): vote yes) drew randomness")
    assert "Ann (Red) yes +1, Bob (Blue) no, Cat (Yellow) yes." in said
    assert (
        f"Ann (Red): vote yes 1 (version {ann_vote}), Bob (Blue): vote no (version "
        f"{ann_vote + 1}), Cat (Yellow): vote yes (version {reveal})" in said
    )
    loaded = svc.load(gid)
    assert loaded.to_act == frozenset({0, 1, 2})  # every seat votes again
    log = svc.events(gid, dispute, 1)
    assert "Already revealed, and still known to every player" in log[0]["text"]
    # Nothing deleted: the three votes are still in the log, retracted.
    assert [e.type for e in svc.raw_events(gid)][ann_vote - 1 : reveal] == ["ActionApplied"] * 3


def test_a_resolution_is_nobody_s_confirmed_act_and_every_seat_hears_of_it(
    world: MailWorld,
) -> None:
    """The administrator upholds a dispute: the opener did not, so the opener gets the
    notice every other seat gets (or a turn), never a confirmation of an act of theirs."""
    game = world.new_game(players=2)
    gid, svc = game.id, world.service
    for _ in range(2):  # the seat to act plays its first legal move: versions 3 and 4
        loaded = svc.load(gid)
        [seat] = loaded.to_act
        move = loaded.rules.legal_actions(loaded.state, seat)[0]
        text = loaded.rules.format_action(loaded.state, move)
        svc.submit(gid, seat, text, expected_version=loaded.version, channel="api")
    opener = next(iter(svc.load(gid, at=3).to_act))  # who played version 4's move...
    opener = 1 - opener  # ...is not the opener: the other seat disputes it
    before = {m.id for m in world.outbox(gid)}
    opened = svc.open_dispute(gid, opener, 4, None, "that move came late", channel="api")
    [asked] = [m for m in world.outbox(gid) if m.id not in before and m.seat != opener]
    assert f"Reply 'agree {opened.dispute}'" in _text(asked)  # consent can take it back
    before = {m.id for m in world.outbox(gid)}
    svc.resolve_dispute(gid, game.admin_token, opened.dispute, uphold=True, reason="late")
    mails = {m.seat: m for m in world.outbox(gid) if m.id not in before}
    assert sorted(mails) == [0, 1]
    assert (mails[opener].kind, mails[1 - opener].kind) == ("notice", "turn")
    assert f"dispute {opened.dispute} is upheld." in _text(mails[opener])
    events = svc.events(gid, opened.dispute, opener)
    [resolved] = [e for e in events if e["type"] == "DisputeResolved"]
    assert (resolved["data"]["opener"], resolved["data"]["seat"]) == (opener, None)


def test_the_evidence_of_a_disputed_vote_respects_hidden_information(world: MailWorld) -> None:
    game = _lancaster(world)
    gid, svc, inbound = game.id, world.service, _inbound(world)
    vote_version = _to_parliament(world, gid)
    vote_mail = _latest(world, gid, 0, "turn")
    ann_vote = vote_version + 1
    reply = reply_to(vote_mail, "vote yes 1", message_id=f"annvote.{gid}@client.example")
    world.clock.advance(timedelta(minutes=7))
    assert inbound.receive(reply, "webhook").outcome == "applied"
    # Bob disputes Ann's vote before the others voted: it is still secret.
    svc.open_dispute(gid, 1, ann_vote, None, "Ann voted after the bell", channel="api")

    full = audit(svc, gid, viewer=None, admin=True)["disputes"][0]["steps"][0]
    assert full["evidence"] == "full"
    assert full["canonical"] == "vote yes 1"
    assert full["sent"]["message_id"] == f"<annvote.{gid}@client.example>"
    assert full["sent"]["from"] == "Player <ann@example.com>"
    assert full["sent"]["received_at"] == "2025-06-02T09:07:00.000000Z"
    assert full["sent"]["date"] is None  # the test client wrote no Date: header
    assert "vote yes 1" in full["sent"]["raw"]
    assert full["parsed"] == ["vote yes 1"]
    assert full["seen"]["kind"] == "mail"
    assert full["seen"]["message_id"] == vote_mail.message_id
    assert full["seen"]["version"] == vote_version
    assert full["seen"]["text"] == _text(vote_mail)
    assert "vote yes 1" in full["legal"] and "vote no" in full["legal"]
    assert full["deadline"] == NO_TIME_CONTROL

    own = audit(svc, gid, viewer=0, admin=False)["disputes"][0]["steps"][0]
    assert (
        own["canonical"] == "vote yes 1" and own["sent"]["message_id"] == full["sent"]["message_id"]
    )

    for viewer in (1, 2, None):
        other = audit(svc, gid, viewer=viewer, admin=False)
        step = other["disputes"][0]["steps"][0]
        assert step["evidence"].startswith("public record only")
        assert step["record"]["data"]["hidden"] is True
        shown = json.dumps(other)
        for secret in ("vote yes 1", "annvote", "ann@example.com", vote_mail.message_id):
            assert secret not in shown, (viewer, secret)


def test_raw_inbound_mail_is_kept_while_the_game_runs_and_its_retention_after(
    world: MailWorld,
) -> None:
    game, _ = _voted(world)
    keys = {f"vote{seat}.{game.id}@client.example" for seat in range(3)}

    def kept() -> set[str]:
        with world.db.read() as session:
            return set(session.exec(select(InboundMail.key))) & keys

    settings = with_mail(world.settings, inbound_retention_days=30)
    later = world.clock.now() + timedelta(days=400)
    assert purge_inbound(world.db, settings, later) == 0  # the game still runs
    assert kept() == keys
    world.service.admin_end(game.id, game.admin_token)
    assert purge_inbound(world.db, settings, world.clock.now() + timedelta(days=29)) == 0
    assert kept() == keys
    assert purge_inbound(world.db, settings, later) == 3
    assert kept() == set()


def test_a_move_made_on_the_page_or_api_has_the_position_as_its_evidence_not_a_mail(
    world: MailWorld,
) -> None:
    game = world.new_game()
    svc = world.service
    assert _latest(world, game.id, 0, "turn").version == 2  # Ann had a mail too
    svc.submit(game.id, 0, "E5", expected_version=2, channel="api")
    svc.open_dispute(game.id, 1, 3, None, "too fast", channel="api")
    step = audit(svc, game.id, viewer=None, admin=True)["disputes"][0]["steps"][0]
    assert step["seen"]["kind"] == "page"
    assert step["seen"]["version"] == 2
    assert "Your turn" in step["seen"]["board"]
    assert step["sent"] is None and step["parsed"] == ["E5"]


def test_a_dispute_line_by_mail_that_cannot_be_read_is_answered_with_how_to_write_it(
    world: MailWorld,
) -> None:
    game = world.new_game()
    inbound = _inbound(world)
    world.service.submit(game.id, 0, "E5", expected_version=2, channel="api")
    mail = _latest(world, game.id, 1, "turn")
    for line in ("dispute 3 Ann was too fast", "dispute: Ann was too fast"):
        result = inbound.receive(reply_to(mail, line), "webhook")
        assert result.outcome == "refused", line
        assert "dispute 41: what went wrong" in result.detail, (line, result.detail)
        answer = [m for m in world.outbox(game.id) if m.kind == "error"][-1]
        assert "dispute 41: what went wrong" in " ".join(_text(answer).split())
        world.clock.advance(timedelta(days=1))  # one error reply per kind and day
    assert world.service.disputes_of(game.id) == []
    empty = inbound.receive(reply_to(mail, "dispute 3:"), "webhook")
    assert empty.outcome == "refused" and "a few words" in empty.detail
