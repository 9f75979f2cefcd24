"""A player's time zone, by mail, on SQLite and PostgreSQL: ``time zone Europe/Paris`` in a
reply to any mail of a game (through ``Inbound.receive``, as the webhook does) is remembered
for the address and answered with the time there; an unknown zone is refused with an example
and nothing is stored; from then on the address's turn mails and reminders in every game give
each deadline in that zone too, with the offset of the deadline's own day (across the end of
summer time), while other players keep the UTC-only line."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from pbem.app.bootstrap import build_sweeper
from pbem.clock.preferences import PlayerPreference, local_text, parse_zone
from pbem.core.errors import BadRequest
from tests.mail.helpers import MailWorld, mail_text

#: Saturday before Europe's summer time ends (Sun 25 Oct 2026 01:00 UTC): Paris is UTC+2
#: now, UTC+1 at a deadline two days later.
SATURDAY = datetime(2026, 10, 24, 10, 0, tzinfo=UTC)
TC = {"kind": "fixed", "per_decision": "48h", "reminders": ["4h"]}


def _stored(world: MailWorld, address: str) -> PlayerPreference | None:
    with world.db.read() as session:
        row = session.get(PlayerPreference, address)
        if row is not None:
            session.expunge(row)
        return row


def test_a_time_zone_by_mail_shows_in_turn_mails_and_reminders(world: MailWorld) -> None:
    world.clock.set(SATURDAY)
    untimed = world.new_game()
    version = world.service.load(untimed.id).version

    outcome, detail, answer = world.say(untimed.id, 0, "time zone Mars/Olympus")
    assert outcome == "refused" and answer.kind == "error"
    told = " ".join(mail_text(answer).split())
    assert "not a time zone I know" in told and "time zone Europe/Paris" in told, told
    assert _stored(world, "alice@example.com") is None
    assert world.service.load(untimed.id).version == version

    outcome, detail, answer = world.say(untimed.id, 0, "Timezone europe/paris")
    assert (outcome, detail) == ("applied", "time zone: Europe/Paris")
    assert answer.kind == "clock"
    told = " ".join(mail_text(answer).split())
    # 10:00 UTC on the Saturday is 12:00 in Paris (summer time).
    assert "Time zone set: Europe/Paris. It is Sat 24 Oct 2026 12:00 there now" in told, told
    stored = _stored(world, "alice@example.com")
    assert stored is not None and stored.time_zone == "Europe/Paris"
    assert world.service.load(untimed.id).version == version  # no game changes

    # Another game of the same address: its turn mail gives the deadline in Paris, at the
    # offset of Monday (winter time, UTC+1), not of now.
    seats = [{"name": n, "email": f"{n.lower()}@example.com"} for n in ("Alice", "Bob")]
    timed = world.service.create_game("lancelot", {}, seats, channel="api", time_control=TC)
    [turn] = [m for m in world.outbox(timed.id) if m.seat == 0 and m.kind == "turn"]
    line = "Deadline: Mon 26 Oct 2026 10:00 UTC (11:00 Europe/Paris), in 2 days"
    assert line in mail_text(turn), mail_text(turn)

    # The reminder, 4 hours before.
    world.clock.set(SATURDAY + timedelta(hours=44))
    report = build_sweeper(world.service).sweep()
    assert not report.failed, report
    [reminder] = [m for m in world.outbox() if m.kind == "reminder"]
    assert reminder.recipient == "alice@example.com"
    expected = "Deadline: Mon 26 Oct 2026 10:00 UTC (11:00 Europe/Paris), in 4 hours"
    assert expected in mail_text(reminder)

    # "time zone UTC" goes back to UTC only: the wording every player without a zone reads.
    world.clock.set(SATURDAY + timedelta(hours=45))
    outcome, detail, answer = world.say(timed.id, 0, "time zone UTC")
    assert (outcome, detail) == ("applied", "time zone: UTC")
    assert "Time zone cleared" in mail_text(answer)
    stored = _stored(world, "alice@example.com")
    assert stored is not None and stored.time_zone is None
    again = world.service.create_game("lancelot", {}, seats, channel="api", time_control=TC)
    [turn] = [m for m in world.outbox(again.id) if m.seat == 0 and m.kind == "turn"]
    body = mail_text(turn)
    assert "Deadline: Wed 28 Oct 2026 07:00 UTC (in 2 days)" in body and "Paris" not in body


def test_parse_zone_and_local_text() -> None:
    assert parse_zone("  America/New_york ") == "America/New_York"
    assert parse_zone("utc") is None
    for bad in ("", "Paris", "../../etc/passwd", "Europe/Paris; DROP"):
        with pytest.raises(BadRequest):
            parse_zone(bad)
    # The local day is named when it is not the UTC day.
    late = datetime(2026, 11, 24, 14, 0, tzinfo=UTC)
    assert local_text(late, "Europe/Paris") == "15:00 Europe/Paris"
    assert local_text(late, "Pacific/Auckland") == "Wed 25 Nov 03:00 Pacific/Auckland"
