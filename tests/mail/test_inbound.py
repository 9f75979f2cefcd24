"""The inbound pipeline: store first, one outcome per message, routing, authentication,
commands, error replies that say what to do, and silence where silence is due."""

from __future__ import annotations

import threading
from datetime import timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage

import pytest
from sqlmodel import select

from pbem.app.bootstrap import reply_words
from pbem.app.service import Created
from pbem.mail.inbound.pipeline import Inbound, TooLarge
from pbem.mail.models import AddressFailure, InboundMail
from pbem.mail.outbound.compose import rotate_key
from tests.mail.helpers import MailWorld, plain_text, reply_to
from tests.settings import with_mail


def _inbound(world: MailWorld) -> Inbound:
    return Inbound(
        world.db, world.settings, world.service, world.clock, words=reply_words(world.service)
    )


def _body(raw: bytes) -> str:
    message = message_from_bytes(raw, policy=policy.default)
    assert isinstance(message, EmailMessage)
    return plain_text(message)


def _turn_mail(world: MailWorld, game: Created, seat: int):  # type: ignore[no-untyped-def]
    return [m for m in world.outbox(game.id) if m.seat == seat and m.kind == "turn"][-1]


def test_a_reply_applies_the_move_with_channel_email_and_the_message_id(
    world: MailWorld,
) -> None:
    game = world.new_game()
    raw = reply_to(_turn_mail(world, game, 0), "E5", message_id="first@client.example")
    result = _inbound(world).receive(raw, "webhook")
    assert (result.outcome, result.game_id, result.seat) == ("applied", game.id, 0)
    applied = world.service.raw_events(game.id)[-1]
    assert applied.data["canonical"] == "E5"
    assert applied.data["channel"] == "email"
    assert applied.data["channel_ref"] == "first@client.example"
    assert [m.kind for m in world.outbox(game.id)[2:]] == ["applied", "turn"]


def test_the_same_reply_delivered_twice_applies_once(world: MailWorld) -> None:
    game = world.new_game()
    raw = reply_to(_turn_mail(world, game, 0), "E5")
    inbound = _inbound(world)
    first, second = inbound.receive(raw, "webhook"), inbound.receive(raw, "imap")
    assert first.outcome == "applied" and not first.duplicate
    assert second.outcome == "applied" and second.duplicate
    assert world.service.load(game.id).version == game.version + 1
    assert len(world.outbox(game.id)) == 4  # no second confirmation, no error reply


def test_commands_delivered_twice_are_carried_out_once(world: MailWorld) -> None:
    # Moves are also protected by the service's idempotency key; other commands are not:
    # only the stored message's outcome stops a second delivery from doing them again.
    game = world.new_game()
    inbound = _inbound(world)
    inbound.receive(reply_to(_turn_mail(world, game, 0), "E5"), "webhook")
    inbound.receive(reply_to(_turn_mail(world, game, 1), "F6"), "webhook")
    inbound.receive(reply_to(_turn_mail(world, game, 0), "G7"), "webhook")
    version, mails = world.service.load(game.id).version, len(world.outbox(game.id))
    alice_latest = [m for m in world.outbox(game.id) if m.seat == 0][-1]
    show = reply_to(alice_latest, "show")
    undo = reply_to(alice_latest, "undo")
    for raw in (show, show, undo, undo):
        assert inbound.receive(raw, "imap").outcome == "applied"
    assert [m.kind for m in world.outbox(game.id)[mails:]].count("show") == 1
    # One take-back of G7; a second "undo" would have gone on to ask Bob about E5 and F6.
    assert world.service.load(game.id).version == version + 1
    assert world.service.raw_events(game.id)[-1].type == "ActionsRetracted"


def test_two_workers_receiving_one_message_at_once_give_one_outcome(world: MailWorld) -> None:
    game = world.new_game()
    raw = reply_to(_turn_mail(world, game, 0), "E5")
    results = []
    barrier = threading.Barrier(4)

    def deliver() -> None:
        barrier.wait()
        results.append(_inbound(world).receive(raw, "webhook"))

    threads = [threading.Thread(target=deliver) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4
    assert [r.duplicate for r in results].count(False) == 1
    assert world.service.load(game.id).version == game.version + 1
    assert len(world.outbox(game.id)) == 4


def test_a_reply_to_an_outdated_mail_is_refused_with_the_fresh_position(
    world: MailWorld,
) -> None:
    game = world.new_game()
    inbound = _inbound(world)
    inbound.receive(reply_to(_turn_mail(world, game, 0), "E5"), "webhook")
    bob_turn = _turn_mail(world, game, 1)
    inbound.receive(reply_to(bob_turn, "F6"), "webhook")
    # Alice answers her first mail again, as if she had not seen Bob's move.
    stale = reply_to(world.outbox(game.id)[0], "G7")
    result = inbound.receive(stale, "webhook")
    assert result.outcome == "refused"
    assert world.service.load(game.id).version == game.version + 2
    error = world.outbox(game.id)[-1]
    assert (error.kind, error.recipient) == ("error", "alice@example.com")
    text = _body(error.message)
    assert "> G7" in text
    assert f"The position changed after the mail you answered (version {game.version})" in text
    assert f"What happened since (version {game.version} to {game.version + 2}):" in text
    assert "Bob (Blue): F6 — Bob (Blue) placed a knight on F6." in text
    assert "   6 . . B . . . . .  6" in text  # Bob's knight on F6, in the fresh board
    assert "Reply to this mail to play on the position below." in " ".join(text.split())
    # Answering the error mail answers the fresh position: it applies.
    assert inbound.receive(reply_to(error, "G7"), "webhook").outcome == "applied"


def test_a_client_that_drops_the_token_is_routed_by_in_reply_to(world: MailWorld) -> None:
    game = world.new_game()
    raw = reply_to(_turn_mail(world, game, 0), "E5", keep_token=False)
    assert b"play@reply.pbem.test" in raw
    assert _inbound(world).receive(raw, "webhook").outcome == "applied"


def test_a_forged_sender_is_refused_and_the_seat_is_told(world: MailWorld) -> None:
    game = world.new_game()
    raw = reply_to(_turn_mail(world, game, 0), "E5", sender="mallory@evil.example")
    result = _inbound(world).receive(raw, "webhook")
    assert result.outcome == "refused"
    assert world.service.load(game.id).version == game.version
    error = world.outbox(game.id)[-1]
    assert error.recipient == "alice@example.com"  # never the forged address
    assert "mallory@evil.example" in _body(error.message)


def test_hold_mode_applies_a_foreign_sender_once_the_seat_confirms(world: MailWorld) -> None:
    world.settings = with_mail(world.settings, from_mismatch="hold")
    game = world.new_game()
    inbound = _inbound(world)
    raw = reply_to(_turn_mail(world, game, 0), "E5", sender="alice.work@example.org")
    held = inbound.receive(raw, "webhook")
    assert held.outcome == "held"
    confirm = world.outbox(game.id)[-1]
    assert confirm.kind == "confirm" and confirm.recipient == "alice@example.com"
    link = next(w for w in _body(confirm.message).split() if "/inbound/confirm/" in w)
    assert link.startswith("https://pbem.test/inbound/confirm/")
    with pytest.raises(ValueError):
        inbound.confirm(held.key, "0" * 32)
    assert inbound.receive(raw, "webhook").outcome == "held"  # not applied by redelivery
    key_hex, token = link.rsplit("/", 2)[-2:]
    assert inbound.confirm(bytes.fromhex(key_hex).decode(), token).outcome == "applied"
    assert world.service.load(game.id).version == game.version + 1


def test_a_rotated_key_revokes_old_reply_addresses(world: MailWorld) -> None:
    game = world.new_game()
    old = _turn_mail(world, game, 0)
    with world.db.write() as session:
        rotate_key(session, game.id, 0, world.clock.now())
    result = _inbound(world).receive(reply_to(old, "E5"), "webhook")
    assert result.outcome == "refused" and "revoked" in result.detail
    assert world.service.load(game.id).version == game.version


@pytest.mark.parametrize(
    ("extra_headers", "outcome"),
    [
        ("Auto-Submitted: auto-replied\r\n", "ignored"),
        ("Precedence: bulk\r\n", "ignored"),
        ("List-Id: <games.lists.example.org>\r\n", "ignored"),
    ],
)
def test_automatic_and_list_mail_is_never_answered(
    world: MailWorld, extra_headers: str, outcome: str
) -> None:
    game = world.new_game()
    raw = reply_to(_turn_mail(world, game, 0), "E5")
    raw = raw.replace(b"MIME-Version", extra_headers.encode() + b"MIME-Version", 1)
    assert _inbound(world).receive(raw, "webhook").outcome == outcome
    assert world.service.load(game.id).version == game.version
    assert len(world.outbox(game.id)) == 2


def test_our_own_mail_coming_back_is_ignored(world: MailWorld) -> None:
    game = world.new_game()
    assert _inbound(world).receive(world.outbox(game.id)[0].message, "imap").outcome == "ignored"
    assert len(world.outbox()) == 2


def test_a_bounce_marks_the_address_failing_and_the_others_are_told(world: MailWorld) -> None:
    game = world.new_game()
    bob_mail = world.outbox(game.id)[1]
    dsn = (
        "From: MAILER-DAEMON@mx.example.com\r\nTo: games@pbem.test\r\nSubject: Undelivered\r\n"
        "Message-ID: <dsn1@mx.example.com>\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b"\r\n\r\n'
        "--b\r\nContent-Type: text/plain\r\n\r\nfailed\r\n"
        "--b\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx\r\n\r\n"
        "Final-Recipient: rfc822; bob@example.com\r\nAction: failed\r\nStatus: 5.1.1\r\n\r\n"
        "--b\r\nContent-Type: text/rfc822-headers\r\n\r\n"
        f"Message-ID: <{bob_mail.message_id}>\r\n\r\n--b--\r\n"
    ).encode()
    assert _inbound(world).receive(dsn, "imap").outcome == "bounce"
    with world.db.read() as session:
        assert [r.address for r in session.exec(select(AddressFailure))] == ["bob@example.com"]
    assert len(world.outbox(game.id)) == 2  # no answer to a bounce
    _inbound(world).receive(reply_to(_turn_mail(world, game, 0), "E5"), "webhook")
    confirmation = _body(world.outbox(game.id)[2].message)
    assert "mail to Bob (Blue) is bouncing" in confirmation


def test_one_error_reply_per_sender_kind_and_day(world: MailWorld) -> None:
    game = world.new_game()
    mail = _turn_mail(world, game, 0)
    inbound = _inbound(world)
    for text in ("Z99", "Q1", "what"):
        assert inbound.receive(reply_to(mail, text), "webhook").outcome == "refused"
    errors = [m for m in world.outbox(game.id) if m.kind == "error"]
    assert len(errors) == 1
    assert "> Z99" in _body(errors[0].message)
    hint = next(
        line for line in _body(errors[0].message).splitlines() if line.startswith("What you can")
    )
    assert "D4" in hint and "Z99" not in hint


def test_lines_apply_in_order_and_stop_at_the_first_error(world: MailWorld) -> None:
    game = world.new_game()
    inbound = _inbound(world)
    inbound.receive(reply_to(_turn_mail(world, game, 0), "E5"), "webhook")
    result = inbound.receive(reply_to(_turn_mail(world, game, 1), "F6\nshow\nG7"), "webhook")
    # F6 applied; show mailed the position; G7 is not Bob's to play now.
    assert result.outcome == "partly applied"
    kinds = [m.kind for m in world.outbox(game.id)[4:]]
    assert kinds == ["turn", "applied", "show", "error"]  # mails in seat order, then replies
    error = _body(world.outbox(game.id)[-1].message)
    assert "> G7" in error
    # F6 stands: the mail must not say the reply was not applied.
    assert "your mail was applied in part." in error
    assert "your mail was not applied." not in error


def test_help_undo_and_resign_by_mail(world: MailWorld) -> None:
    game = world.new_game()
    inbound = _inbound(world)
    assert inbound.receive(reply_to(_turn_mail(world, game, 0), "help"), "webhook").outcome == (
        "applied"
    )
    assert "undo           take back your last move" in _body(world.outbox(game.id)[-1].message)
    inbound.receive(reply_to(_turn_mail(world, game, 0), "E5"), "webhook")
    confirmation = world.outbox(game.id)[-2]
    assert confirmation.kind == "applied"
    assert inbound.receive(reply_to(confirmation, "undo"), "webhook").outcome == "applied"
    assert world.service.raw_events(game.id)[-1].type == "ActionsRetracted"
    result = inbound.receive(reply_to(_turn_mail(world, game, 0), "resign"), "webhook")
    assert result.outcome == "applied"
    ends = [m for m in world.outbox(game.id) if m.kind == "end"]
    assert sorted(m.recipient for m in ends) == ["alice@example.com", "bob@example.com"]
    assert "The seed was " in _body(ends[0].message)
    # The seed and its published hash each whole, not a sentence broken around them; the
    # result stands apart from the last moves.
    end = _body(ends[0].message).replace("\r\n", "\n")
    finished = world.service.raw_events(game.id)[-1].data
    commitment = world.service.raw_events(game.id)[0].data["seed_commitment"]
    assert f"The seed was {finished['seed']}.\n" in end
    assert f"created:\n{commitment}\nso anyone can replay" in end
    assert "\n\nThe last moves:" in end


def test_an_empty_reply_gets_an_error_saying_so(world: MailWorld) -> None:
    game = world.new_game()
    result = _inbound(world).receive(reply_to(_turn_mail(world, game, 0), ""), "webhook")
    assert result.outcome == "refused"
    assert "We found no command in your mail." in _body(world.outbox(game.id)[-1].message)
    assert "your mail was not applied." in _body(world.outbox(game.id)[-1].message)


def test_a_taken_square_is_named_by_the_player_whose_knight_is_on_it(world: MailWorld) -> None:
    game = world.new_game()
    inbound = _inbound(world)
    inbound.receive(reply_to(_turn_mail(world, game, 0), "E5"), "webhook")
    result = inbound.receive(reply_to(_turn_mail(world, game, 1), "E5"), "webhook")
    assert result.outcome == "refused"
    # The engine says "Red's knight"; a person reads the player's name with the colour.
    assert "E5 is taken by Alice (Red)'s knight." in _body(world.outbox(game.id)[-1].message)


def test_an_error_reply_carries_the_receipt_every_mail_has(world: MailWorld) -> None:
    game = world.new_game()
    _inbound(world).receive(reply_to(_turn_mail(world, game, 0), "Z99"), "webhook")
    error = world.outbox(game.id)[-1]
    assert error.kind == "error"
    headers = message_from_bytes(error.message, policy=policy.default)
    head = world.service.load(game.id)
    assert headers["X-Pbem-Version"] == str(head.version)
    assert headers["X-Pbem-Head"] == head.head_hash
    assert f"Version {head.version}, head {head.head_hash}" in _body(error.message)


def test_strangers_get_no_answer(world: MailWorld) -> None:
    raw = b"From: someone@spam.example\r\nTo: play@reply.pbem.test\r\nSubject: hi\r\n\r\nbuy\r\n"
    result = _inbound(world).receive(raw, "webhook")
    assert result.outcome == "refused"
    assert world.outbox() == []


def test_oversized_messages_are_refused_before_storing(world: MailWorld) -> None:
    inbound = _inbound(world)
    with pytest.raises(TooLarge):
        inbound.receive(b"x" * (world.settings.mail.max_inbound_bytes + 1), "webhook")
    with world.db.read() as session:
        assert session.exec(select(InboundMail).where(InboundMail.size > 10**6)).first() is None


def test_a_message_left_by_a_dead_worker_is_taken_over_by_a_later_delivery(
    world: MailWorld,
) -> None:
    game = world.new_game()
    raw = reply_to(_turn_mail(world, game, 0), "E5")
    inbound = _inbound(world)
    inbound.store(raw, "webhook")  # ... and the worker that stored it died here
    waiting = inbound.receive(raw, "webhook")
    assert (waiting.outcome, waiting.duplicate) == ("queued", True)
    assert world.service.load(game.id).version == game.version
    world.clock.advance(timedelta(seconds=world.settings.mail.lease_seconds + 1))
    assert inbound.receive(raw, "imap").outcome == "applied"
    assert world.service.load(game.id).version == game.version + 1


def test_a_worker_that_died_after_applying_is_not_applied_again(world: MailWorld) -> None:
    game = world.new_game()
    raw = reply_to(_turn_mail(world, game, 0), "E5\nundo")
    inbound = _inbound(world)
    first = inbound.receive(raw, "webhook")
    assert first.outcome == "applied"
    version = world.service.load(game.id).version
    # As if the worker had died before recording the outcome: its lease runs out.
    with world.db.write() as session:
        row = session.get(InboundMail, first.key)
        assert row is not None
        row.status, row.lease_expires_at = "processing", "2000-01-01T00:00:00.000000Z"
        session.add(row)
    again = inbound.receive(raw, "webhook")
    assert again.outcome == "applied" and "not applied again" in again.detail
    assert world.service.load(game.id).version == version


def test_a_bounce_that_names_no_recipient_marks_the_mail_it_is_about(world: MailWorld) -> None:
    game = world.new_game()
    bob_mail = world.outbox(game.id)[1]
    qmail = (
        "From: postmaster@legacy.example\r\nTo: games@pbem.test\r\nSubject: failure notice\r\n"
        "Message-ID: <q1@legacy.example>\r\n\r\nSorry, no mailbox here by that name.\r\n\r\n"
        f"--- Below this line is a copy of the message.\r\n\r\nMessage-ID: <{bob_mail.message_id}>"
        "\r\n"
    ).encode()
    assert _inbound(world).receive(qmail, "imap").outcome == "bounce"
    forged = (
        b"From: MAILER-DAEMON@evil.example\r\nTo: games@pbem.test\r\nSubject: Undelivered\r\n"
        b"Message-ID: <f1@evil.example>\r\nX-Failed-Recipients: victim@example.net\r\n\r\nx\r\n"
    )
    assert _inbound(world).receive(forged, "imap").outcome == "ignored"
    with world.db.read() as session:
        assert [r.address for r in session.exec(select(AddressFailure))] == ["bob@example.com"]


def test_an_unknown_from_mismatch_setting_is_named(world: MailWorld) -> None:
    settings = with_mail(world.settings, from_mismatch="hodl")
    with pytest.raises(ValueError, match="from_mismatch is 'hodl'"):
        Inbound(world.db, settings, world.service, world.clock, words=reply_words(world.service))


def test_an_outdated_reply_from_a_seat_not_to_act_is_not_told_to_reply_with_a_move(
    world: MailWorld,
) -> None:
    game = world.new_game(players=3)
    inbound = _inbound(world)
    inbound.receive(reply_to(_turn_mail(world, game, 0), "E5"), "webhook")
    bob_turn = _turn_mail(world, game, 1)
    inbound.receive(reply_to(bob_turn, "F6"), "webhook")
    inbound.receive(reply_to(_turn_mail(world, game, 2), "G7"), "webhook")
    # Bob answers his old mail again: Carol has moved since, and it is Alice's turn now.
    assert inbound.receive(reply_to(bob_turn, "H8"), "webhook").outcome == "refused"
    text = " ".join(_body(world.outbox(game.id)[-1].message).split())
    assert "The position changed after the mail you answered" in text
    assert "you will get a mail when it is your turn." in text
    assert "Reply to this mail to play" not in text


def test_the_lines_under_a_failed_line_are_those_after_it_even_when_one_repeats(
    world: MailWorld,
) -> None:
    game = world.new_game()
    result = _inbound(world).receive(reply_to(_turn_mail(world, game, 0), "E5\nE5\nF7"), "webhook")
    assert result.outcome == "partly applied"  # the first E5 applied, the second is taken
    error = _body(world.outbox(game.id)[-1].message).replace("\r\n", "\n")
    assert "This line was not applied:\n\n> E5" in error
    assert "Nor the lines under it, which come after it:\n\n> F7\n" in error
    assert "> E5\n> F7" not in error


def test_prose_above_a_command_is_refused_as_prose_and_the_lines_under_it_are_named(
    world: MailWorld,
) -> None:
    game = world.new_game()
    inbound = _inbound(world)
    inbound.receive(reply_to(_turn_mail(world, game, 0), "E5"), "webhook")
    applied = [m for m in world.outbox(game.id) if m.seat == 0][-1]
    result = inbound.receive(reply_to(applied, "Oops, sorry Bob!\nundo"), "webhook")
    assert result.outcome == "refused"
    error = _body(world.outbox(game.id)[-1].message).replace("\r\n", "\n")
    # Why the line failed first: it is no command (not only that it is Bob's turn) ...
    assert "It reads as no command of this game, and it is not your turn now" in error
    # ... and what was not reached because of it, and what still works now.
    assert "Nor the lines under it, which come after it:\n\n> undo" in error
    assert "you can still reply undo, show or help" in error
    assert world.service.load(game.id).version == game.version + 1  # nothing taken back
