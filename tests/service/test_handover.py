"""Substitutes (``pbem.handover``) on SQLite and PostgreSQL: the administrator hands a seat
over at any time; the other seats propose and agree only after the seat missed its
deadlines in a row; one refusal ends a proposal; the newcomer accepts by the link in their
invitation, and the seat's old token, page link and reply address are refused from then on;
the seats read model, the log, the clock and the read models rebuilt from the log all say
who plays the seat."""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import col, select

from pbem.app.bootstrap import build_service, build_sweeper
from pbem.app.service import GameService
from pbem.core.db import Database
from pbem.core.errors import BadRequest, Conflict, Forbidden, ServiceError, Unauthorized
from pbem.core.models import Deadline
from pbem.core.time_source import ManualClock, format_time
from pbem.handover import events as he
from pbem.handover.rules import missed_in_a_row
from pbem.mail.models import OutboxMail
from pbem.mail.outbound.address import PAGE, make_token
from pbem.mail.outbound.compose import seat_reply_address
from tests.helpers import database_of
from tests.mail.helpers import text_part
from tests.service.helpers import REGISTRY
from tests.settings import make_settings

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
TEN_HOURS: dict[str, Any] = {"kind": "fixed", "per_decision": "10h", "reminders": []}


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def service(database: Database, tmp_path: Path, clock: ManualClock) -> GameService:
    settings = make_settings(database.url, tmp_path)
    return build_service(settings, db=database, registry=REGISTRY, listeners=[], clock=clock)


def new_game(service: GameService, players: int = 3, time_control: Any = TEN_HOURS) -> Any:
    tag = secrets.token_hex(4)
    names = ["Ann", "Bob", "Cy", "Di"][:players]
    people = [{"name": n, "email": f"{n.lower()}{tag}@example.org"} for n in names]

    created = service.create_game(
        "hoard", {"rounds": 3, "players": players}, people, time_control=time_control
    )
    for seat in range(players):
        service.accept_invitation(created.id, seat, channel="api")
    return created


def miss(service: GameService, clock: ManualClock, times: int) -> None:
    """Let ``times`` deadlines pass, each swept."""
    sweeper = build_sweeper(service)
    for _ in range(times):
        clock.advance(timedelta(hours=11))
        sweeper.sweep()


def outbox(service: GameService, game_id: str, kind: str) -> list[OutboxMail]:
    with database_of(service).read() as session:
        rows = session.exec(
            select(OutboxMail)
            .where(OutboxMail.game_id == game_id, OutboxMail.kind == kind)
            .order_by(col(OutboxMail.created_at))
        ).all()
        for row in rows:
            session.expunge(row)
    return list(rows)


def accept_link(service: GameService, game_id: str) -> str:
    mail = outbox(service, game_id, "substitute")[-1]
    found = re.search(rf"/handover/{game_id}\?link=([a-z0-9]+)", text_part(mail.message))
    assert found, "the invitation carries the link that accepts it"
    return found.group(1)


def test_the_administrator_hands_a_seat_over_and_the_old_credentials_are_refused(
    service: GameService,
) -> None:
    created = new_game(service)
    gid, admin = created.id, created.admin_token
    old_token = created.seats[1].token
    settings = service.settings
    with database_of(service).read() as session:
        old_reply = seat_reply_address(session, settings, gid, 1, 2)
    old_link = make_token(settings.secret_key, gid, 1, 0, purpose=PAGE)
    assert service.seat_for_token(gid, old_token) == 1

    result = service.admin_substitute(gid, admin, 1, "Dan", "dan@example.org", channel="api")
    assert result.status == "agreed"
    invitation = text_part(outbox(service, gid, "substitute")[-1].message)
    assert "take over the seat" in invitation and "Dan" in invitation
    # Until the newcomer accepts, the old player plays on.
    assert service.seat_for_token(gid, old_token) == 1
    assert service.seat_info(gid, 1).name == "Bob"

    link = accept_link(service, gid)
    assert service.substitute_invitation(gid, link)["seat"] == 1
    done = service.accept_substitution(gid, link, channel="web")
    assert done.status == "handed_over"

    info = service.seat_info(gid, 1)
    assert (info.name, info.email) == ("Dan", "dan@example.org")
    last = service.raw_events(gid)[-1]
    assert last.type == he.SEAT_HANDED_OVER
    assert (last.data["old_name"], last.data["new_name"], last.data["by"]) == (
        "Bob",
        "Dan",
        "administrator",
    )
    assert last.data["from_version"] == last.version
    # The old token, page link and reply address no longer open or play the seat.
    with pytest.raises(Unauthorized, match="replaced"):
        service.seat_for_token(gid, old_token)
    with pytest.raises(Forbidden, match="revoked"):
        service.seat_for_page_link(gid, old_link)
    from pbem.mail.outbound.address import verify
    from pbem.mail.outbound.compose import key_version

    local = old_reply.split("@")[0].split("+", 1)[1]
    with database_of(service).read() as session, pytest.raises(ValueError, match="revoked"):
        verify(settings.secret_key, local, key_version(session, gid, 1))
    # The link accepts once.
    with pytest.raises(Forbidden):
        service.accept_substitution(gid, link, channel="web")
    # The old player hears of it, once.
    farewell = text_part(outbox(service, gid, "replaced")[-1].message)
    assert "you no longer play" in farewell and "Dan" in farewell
    # Read models rebuilt from the log agree with the stored ones.
    assert service.read_model_difference(gid) is None


def test_a_seat_may_propose_only_after_the_seat_missed_its_deadlines_in_a_row(
    service: GameService, clock: ManualClock
) -> None:
    created = new_game(service)
    gid = created.id
    # Seat 0 is to draw first; only the administrator may replace it yet.
    with pytest.raises(Forbidden, match="missed 0 deadlines"):
        service.propose_substitute(gid, 1, 0, "Dan", "dan@example.org", channel="api")
    miss(service, clock, 1)  # seat 0's deadline move; seat 1 now owes
    with pytest.raises(Forbidden, match="missed 0 deadlines"):
        service.propose_substitute(gid, 2, 1, "Dan", "dan@example.org", channel="api")
    events = service.parts.queries.raw_events(gid)
    assert missed_in_a_row(events, 0) == 1
    miss(service, clock, 2)  # seats 1 and 2: the vote phase begins, every seat owes
    miss(service, clock, 1)  # every seat misses its vote at once
    events = service.raw_events(gid)
    assert [missed_in_a_row(events, s) for s in range(3)] == [2, 2, 2]
    # Its own seat cannot propose; a resigned or unknown seat cannot be the target.
    with pytest.raises(Forbidden, match="your own seat"):
        service.propose_substitute(gid, 0, 0, "Dan", "dan@example.org", channel="api")
    with pytest.raises(BadRequest, match="no seat 7"):
        service.propose_substitute(gid, 0, 7, "Dan", "dan@example.org", channel="api")
    # Bad newcomers are refused, changing nothing.
    version = service.load(gid).version
    for name, email, why in [
        ("Dan", "not an address", "plain e-mail"),
        ("", "dan@example.org", "Name the newcomer"),
        ("see www.evil.example", "dan@example.org", "web or e-mail"),
        ("Dan", created.seats[2].email, "another seat"),
        ("Dan", created.seats[0].email, "seat's own player"),
    ]:
        with pytest.raises(BadRequest, match=why):
            service.propose_substitute(gid, 1, 0, name, email, channel="api")
    assert service.load(gid).version == version

    result = service.propose_substitute(gid, 1, 0, "Dan", "dan@example.org", channel="api")
    assert result.status == "open"
    # One proposal at a time.
    with pytest.raises(Conflict, match="waiting"):
        service.propose_substitute(gid, 2, 1, "Eve", "eve@example.org", channel="api")
    # The seat replaced does not decide; the proposer already agreed.
    with pytest.raises(Forbidden, match="does not decide"):
        service.decide_substitute(gid, 0, False, channel="api")
    with pytest.raises(Conflict, match="already agreed"):
        service.decide_substitute(gid, 1, True, channel="api")
    assert outbox(service, gid, "substitute") == []  # nobody invited before all agree
    agreed = service.decide_substitute(gid, 2, True, channel="api")
    assert agreed.status == "agreed"
    assert len(outbox(service, gid, "substitute")) == 1
    done = service.accept_substitution(gid, accept_link(service, gid), channel="web")
    assert done.status == "handed_over"
    last = service.raw_events(gid)[-1]
    assert (last.data["by"], last.data["seat"]) == ("consent", 0)
    # The count starts again for the newcomer.
    assert missed_in_a_row(service.raw_events(gid), 0) == 0
    assert service.read_model_difference(gid) is None


def test_one_refusal_ends_a_proposal(service: GameService, clock: ManualClock) -> None:
    gid = new_game(service, players=4).id
    miss(service, clock, 5)  # draws of all four, then every vote: seat 0 missed 2 in a row
    service.propose_substitute(gid, 1, 0, "Dan", "dan@example.org", channel="api")
    service.decide_substitute(gid, 2, True, channel="api")
    refused = service.decide_substitute(gid, 3, False, channel="api")
    assert refused.status == "refused"
    assert service.substitute_waiting(gid) is None
    with pytest.raises(Conflict, match="no substitute proposal"):
        service.decide_substitute(gid, 2, True, channel="api")
    assert outbox(service, gid, "substitute") == []
    assert service.seat_info(gid, 0).name == "Ann"


def test_a_newcomer_gets_a_fresh_decision_time(service: GameService, clock: ManualClock) -> None:
    created = new_game(service)
    gid = created.id
    clock.advance(timedelta(hours=9))  # seat 0 has one hour left
    service.admin_substitute(gid, created.admin_token, 0, "Dan", "dan@example.org", channel="api")
    service.accept_substitution(gid, accept_link(service, gid), channel="web")
    with database_of(service).read() as session:
        row = session.get(Deadline, (gid, 0))
        assert row is not None
        assert row.due_at == format_time(clock.now() + timedelta(hours=10))


def test_who_may_not_hand_a_seat_over(service: GameService, clock: ManualClock) -> None:
    created = new_game(service)
    other = new_game(service)
    gid = created.id
    # Another game's admin token, no token, a seat token as an admin token.
    for token in (other.admin_token, None, created.seats[1].token):
        with pytest.raises(Forbidden):
            service.admin_substitute(gid, token, 0, "Dan", "dan@example.org", channel="api")
    # A link made for another game, or forged, or a seat's page link, accepts nothing.
    settings = service.settings
    for link in (
        make_token(settings.secret_key, other.id, 0, 0, 3, purpose=b"pbem seat handover"),
        make_token(b"another secret of the test", gid, 0, 0, 3, purpose=b"pbem seat handover"),
        make_token(settings.secret_key, gid, 0, 0, 3, purpose=PAGE),
        "not-a-link",
    ):
        with pytest.raises(ServiceError):
            service.accept_substitution(gid, link, channel="web")
    # A link of the right form for a proposal that is not agreed accepts nothing.
    miss(service, clock, 4)
    proposal = service.propose_substitute(gid, 1, 0, "Dan", "dan@example.org", channel="api")
    forged = make_token(
        settings.secret_key, gid, 0, 0, proposal.proposal, purpose=b"pbem seat handover"
    )
    with pytest.raises(Forbidden, match="no longer stands"):
        service.accept_substitution(gid, forged, channel="web")
    assert service.seat_info(gid, 0).name == "Ann"
    # The administrator's proposal replaces the one waiting.
    service.admin_substitute(gid, created.admin_token, 0, "Eve", "eve@example.org", channel="cli")
    waiting = service.substitute_waiting(gid)
    assert waiting is not None and (waiting["new_name"], waiting["status"]) == ("Eve", "agreed")
    # A finished game takes no substitute.
    service.admin_end(gid, created.admin_token)
    with pytest.raises(Conflict, match="over"):
        service.admin_substitute(
            gid, created.admin_token, 1, "Fay", "fay@example.org", channel="api"
        )


def test_the_export_and_its_offline_check_name_both_players(
    service: GameService, tmp_path: Path
) -> None:
    import json

    from pbem.audit.export import bundle_text
    from pbem.audit.verify import verify_bundle, verify_bytes

    created = new_game(service)
    gid = created.id
    service.admin_substitute(gid, created.admin_token, 2, "Dan", "dan@example.org", channel="api")
    service.accept_substitution(gid, accept_link(service, gid), channel="web")
    handed = service.raw_events(gid)[-1].version
    for seat in (None, 0, 2):
        bundle = service.export_game(gid, seat)
        assert [p for p in bundle["players"] if p["seat"] == 2] == [
            {"seat": 2, "name": "Cy", "from_version": 1, "to_version": handed - 1},
            {"seat": 2, "name": "Dan", "from_version": handed, "to_version": None},
        ]
        report = verify_bytes(bundle_text(bundle).encode(), REGISTRY)
        assert report.ok, report.problems
    # A bundle whose players were changed no longer checks.
    forged = json.loads(bundle_text(service.export_game(gid)))
    forged["players"][-1]["name"] = "Mallory"
    assert not verify_bundle(forged, REGISTRY).ok
    # A bundle without players (written before substitutes existed) still checks.
    del forged["players"]
    assert verify_bundle(forged, REGISTRY).ok


def test_the_time_control_says_after_how_many_missed_deadlines(
    service: GameService, clock: ManualClock
) -> None:
    from pbem.clock.time_control import TimeControl, TimeControlError, parse_time_control

    assert TimeControl().substitute_after_missed == 2
    chosen = parse_time_control({"preset": "standard", "substitute_after_missed": "3"})
    assert chosen.substitute_after_missed == 3
    assert TimeControl.from_json(chosen.to_json()) == chosen
    # A time control stored before the option existed reads as the default.
    old = {k: v for k, v in chosen.to_json().items() if k != "substitute_after_missed"}
    assert TimeControl.from_json(old).substitute_after_missed == 2
    for bad in ("x", 21, -1, True, "²", 1.5):
        with pytest.raises(TimeControlError, match="substitute_after_missed"):
            parse_time_control({"preset": "standard", "substitute_after_missed": bad})
    gid = new_game(service, time_control={**TEN_HOURS, "substitute_after_missed": 0}).id
    miss(service, clock, 6)
    with pytest.raises(Forbidden, match="only the administrator"):
        service.propose_substitute(gid, 1, 0, "Dan", "dan@example.org", channel="api")


def test_the_log_names_each_move_for_the_player_who_made_it(service: GameService) -> None:
    """After a hand-over the log (pages, mails, the API's events) names the seat's moves before
    it for the old player and those after for the newcomer: the newcomer is never said to
    have made the old player's moves."""
    created = new_game(service, players=2)
    gid = created.id

    def play(seat: int) -> None:
        loaded = service.load(gid)
        service.submit(
            gid, seat, loaded.legal(seat)[0], expected_version=loaded.version, channel="api"
        )

    while 1 not in service.load(gid).to_act:
        play(min(service.load(gid).to_act))
    play(1)  # Bob's move
    service.admin_substitute(gid, created.admin_token, 1, "Dan", "dan@example.org", channel="api")
    service.accept_substitution(gid, accept_link(service, gid), channel="web")
    while 1 not in service.load(gid).to_act:
        play(min(service.load(gid).to_act))
    play(1)  # Dan's move
    texts = {e["version"]: e["text"] for e in service.events(gid, 0, 0)}
    handed = next(e.version for e in service.raw_events(gid) if e.type == he.SEAT_HANDED_OVER)
    by_seat_1 = [
        (e.version, texts[e.version])
        for e in service.raw_events(gid)
        if e.type == "ActionApplied" and e.data["seat"] == 1
    ]
    before = [t for v, t in by_seat_1 if v < handed]
    after = [t for v, t in by_seat_1 if v > handed]
    assert before and all("Bob" in t and "Dan" not in t for t in before), before
    assert after and all("Dan" in t and "Bob" not in t for t in after), after
    accepted = [t for v, t in texts.items() if v < handed and "accepted the invitation" in t]
    assert any("Bob" in t for t in accepted) and not any("Dan" in t for t in accepted)
