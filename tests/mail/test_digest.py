"""The daily digest, on SQLite and PostgreSQL: ``digest daily`` in a reply to any game mail
(through ``Inbound.receive``, as the webhook does) is remembered for the address and
answered; from then on a move that hands that address its turn mails it nothing, and the
day's digest lists the game (seat, deadline, board) — once per UTC day however often it
runs, again the next day; ``digest off`` brings the turn mails back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.exc import IntegrityError

from pbem.app.bootstrap import build_digester, build_sweeper
from pbem.clock.digest import send_digest
from pbem.clock.preferences import PlayerPreference
from pbem.mail.models import OutboxMail
from tests.mail.helpers import MailWorld, mail_text

MONDAY = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)
TC = {"kind": "fixed", "per_decision": "48h"}
ALICE = {"name": "Alice", "email": "alice@example.com"}
BOB = {"name": "Bob", "email": "Bob@Example.com"}


def _digest_on(world: MailWorld, address: str) -> bool | None:
    with world.db.read() as session:
        row = session.get(PlayerPreference, address)
        return None if row is None else row.digest


def _digests(world: MailWorld) -> list[OutboxMail]:
    return [m for m in world.outbox() if m.kind == "digest"]


def test_a_daily_digest_instead_of_turn_mails(world: MailWorld) -> None:
    world.clock.set(MONDAY)
    world.welcome([ALICE, BOB])
    game = world.service.create_game("lancelot", {}, [ALICE, BOB], channel="api", time_control=TC)

    outcome, detail, answer = world.say(game.id, 1, "digest weekly")
    assert outcome == "refused" and answer.kind == "error"
    assert "digest daily" in mail_text(answer)
    assert _digest_on(world, "bob@example.com") is None

    outcome, detail, answer = world.say(game.id, 1, "Digest daily")
    assert (outcome, detail) == ("applied", "digest: daily")
    assert answer.kind == "clock" and "Daily digest on" in mail_text(answer)
    assert _digest_on(world, "bob@example.com") is True

    # Alice moves: Bob is to act, and is mailed no turn; Alice's own mails still go.
    before = len(world.outbox(game.id))
    world.service.submit(game.id, 0, "E5", expected_version=game.version, channel="api")
    new = world.outbox(game.id)[before:]
    assert not [m for m in new if m.recipient.lower() == "bob@example.com" and m.kind == "turn"]
    # A game where Bob is not to act is not in his digest.
    other = world.service.create_game("lancelot", {}, [ALICE, BOB], channel="api")

    world.clock.set(MONDAY + timedelta(hours=1))
    report = build_digester(world.service).run()
    assert (report.sent, report.failed) == ([("bob@example.com", 1)], 0), report
    [digest] = _digests(world)
    assert digest.recipient.lower() == "bob@example.com" and digest.game_id is None
    body = " ".join(mail_text(digest).split())
    assert f"Lancelot, game {game.id}: you play Bob (Blue)." in body, body
    assert "Deadline: Wed 25 Nov 2026 09:00 UTC (in 1 day 23 hours)" in body, body
    assert f"/games/{game.id}" in body and other.id not in body, body

    # Twice the same day (the job, then by hand): one digest.
    world.clock.set(MONDAY + timedelta(hours=14))
    assert build_digester(world.service).run().sent == []
    assert build_digester(world.service).run().sent == []
    assert len(_digests(world)) == 1
    # The next UTC day: another.
    world.clock.set(MONDAY + timedelta(days=1))
    assert len(build_digester(world.service).run().sent) == 1
    assert len(_digests(world)) == 2

    # Off: a game where Bob is to act at once mails him his turn again.
    outcome, detail, answer = world.say(game.id, 1, "digest off")
    assert (outcome, detail) == ("applied", "digest: off")
    assert _digest_on(world, "bob@example.com") is False
    third = world.service.create_game("lancelot", {}, [BOB, ALICE], channel="api")
    kinds = [(m.kind, m.seat) for m in world.outbox(third.id)]
    assert ("turn", 0) in kinds, kinds
    world.clock.set(MONDAY + timedelta(days=2))
    assert build_digester(world.service).run().sent == []


def test_help_lists_digest(world: MailWorld) -> None:
    game = world.new_game()
    *_, answer = world.say(game.id, 0, "help")
    assert "digest daily" in mail_text(answer)


def test_two_runs_racing_claim_one_digest_and_reminders_still_go(world: MailWorld) -> None:
    """Two runs that both read the address as not sent yet: the second's claim fails (its
    transaction, mail included, rolls back), so one digest goes. Reminders are about
    deadlines: an address with the digest still gets them."""
    world.clock.set(MONDAY)
    # Addresses of their own: the module's database is shared with the test above.
    carol, dave = (
        {"name": "Carol", "email": "carol@example.com"},
        {"name": "Dave", "email": "dave@example.com"},
    )
    world.welcome([carol, dave])
    timed = {**TC, "reminders": ["4h"]}
    game = world.service.create_game(
        "lancelot", {}, [carol, dave], channel="api", time_control=timed
    )
    world.service.set_digest("carol@example.com", True)
    digester = build_digester(world.service)
    names = digester._names
    with world.db.write() as session:
        assert send_digest(session, world.settings, "carol@example.com", MONDAY, names)
    with pytest.raises(IntegrityError), world.db.write() as session:
        send_digest(session, world.settings, "carol@example.com", MONDAY, names)
    assert [m.recipient for m in _digests(world)] == ["carol@example.com"]

    world.clock.set(MONDAY + timedelta(hours=44))
    report = build_sweeper(world.service).sweep()
    assert not report.failed, report
    [reminder] = [m for m in world.outbox(game.id) if m.kind == "reminder"]
    assert reminder.recipient == "carol@example.com"
