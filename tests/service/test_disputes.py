"""Disputes as events, through the service on SQLite and PostgreSQL: opened, dismissed,
upheld by consent or by the administrator (who alone may cross a reveal), with the disputes
read model rebuilt from the log alone and nothing ever deleted."""

from __future__ import annotations

from typing import Any

import pytest

from pbem.app.service import Created, GameService
from pbem.core import events as ev
from pbem.core.errors import AgainstTheRules, BadRequest, Conflict, Forbidden, GameNotFound
from pbem.core.fold import state_hash
from pbem.core.read_models import first_difference
from pbem.disputes import events as dispute_events
from pbem.play.views import event_text
from tests.helpers import database_of
from tests.service.test_games import event_count, play


def _hoard(service: GameService, players: int = 2) -> Created:
    names = [{"name": f"P{i}", "email": f"p{i}@example.org"} for i in range(players)]
    return service.create_game("hoard", {"rounds": 3}, names)


def _state(service: GameService, gid: str, at: int | None = None) -> str:
    loaded = service.load(gid, at=at)
    return state_hash(loaded.rules, loaded.state)


def _types(service: GameService, gid: str) -> list[str]:
    return [e.type for e in service.raw_events(gid)]


def _texts(service: GameService, gid: str, after: int) -> list[str]:
    return [e["text"] for e in service.events(gid, after)]


def _read_models_match(service: GameService, gid: str) -> None:
    assert first_difference(database_of(service), gid, service.registry) is None


def test_a_dispute_is_opened_then_dismissed_with_a_reason(service: GameService) -> None:
    game = _hoard(service)
    gid = game.id
    play(service, gid, 0, "keep")  # version 3
    play(service, gid, 1, "keep")  # version 4
    before = _state(service, gid)
    opened = service.open_dispute(gid, 1, 3, None, "  P0 never  said keep ", channel="api")
    assert (opened.dispute, opened.status, opened.version) == (5, "open", 5)
    assert _state(service, gid) == before  # the board is untouched
    [row] = service.disputes_of(gid)
    assert (row["seat"], row["versions"], row["text"], row["status"]) == (
        1,
        [3],
        "P0 never said keep",
        "open",
    )
    assert service.parts.disputes.open_one(gid) == 5
    with pytest.raises(Conflict, match="Your dispute 5 is still open"):
        service.open_dispute(gid, 1, 4, None, "and this", channel="api")
    with pytest.raises(Forbidden, match="admin token"):
        service.resolve_dispute(gid, game.seats[0].token, 5, uphold=False, reason="no")
    with pytest.raises(BadRequest, match="Say why"):
        service.resolve_dispute(gid, game.admin_token, 5, uphold=False, reason="  ")
    dismissed = service.resolve_dispute(
        gid, game.admin_token, 5, uphold=False, reason="the API log shows P0 sent keep"
    )
    assert (dismissed.status, dismissed.version, dismissed.retracted) == ("dismissed", 6, ())
    assert _state(service, gid) == before
    assert service.disputes_of(gid)[0]["status"] == "dismissed"
    assert service.disputes_of(gid)[0]["resolved"] == 6
    assert service.parts.disputes.open_one(gid) is None
    assert _texts(service, gid, 4) == [
        "P1 disputes version 3: “P0 never said keep”",
        "dispute 5 dismissed by the administrator: the API log shows P0 sent keep",
    ]
    with pytest.raises(Conflict, match="already resolved"):
        service.resolve_dispute(gid, game.admin_token, 5, uphold=True, reason="")
    _read_models_match(service, gid)


def test_a_dispute_names_moves_in_effect_and_says_what_to_write_otherwise(
    service: GameService,
) -> None:
    game = _hoard(service)
    gid = game.id
    play(service, gid, 0, "keep")
    count = event_count(service, gid)
    with pytest.raises(AgainstTheRules, match="no move in effect at version 2"):
        service.open_dispute(gid, 1, 2, None, "the start was wrong", channel="api")
    with pytest.raises(AgainstTheRules, match="The game is at version 3"):
        service.open_dispute(gid, 1, 9, None, "future", channel="api")
    with pytest.raises(BadRequest, match="a few words"):
        service.open_dispute(gid, 1, 3, None, " ", channel="api")
    with pytest.raises(Forbidden, match="no seat 7"):
        service.open_dispute(gid, 7, 3, None, "who am I", channel="api")
    with pytest.raises(GameNotFound, match="no dispute 3"):
        service.answer_dispute(gid, 1, 3, True, channel="api")
    with pytest.raises(GameNotFound, match="no dispute 99999999999"):
        service.answer_dispute(gid, 1, 99999999999, True, channel="api")
    assert event_count(service, gid) == count  # nothing refused was recorded


def test_a_dispute_upheld_by_every_other_seats_consent_retracts_like_an_undo(
    service: GameService,
) -> None:
    game = _hoard(service, players=3)
    gid = game.id
    start = _state(service, gid)
    play(service, gid, 0, "keep")  # 3
    play(service, gid, 1, "keep")  # 4
    opened = service.open_dispute(gid, 0, 3, 4, "I meant draw", channel="api")
    assert service.disputes_of(gid)[0]["versions"] == [3, 4]
    with pytest.raises(AgainstTheRules, match="You opened this dispute"):
        service.answer_dispute(gid, 0, opened.dispute, True, channel="api")
    first = service.answer_dispute(gid, 1, opened.dispute, True, channel="api")
    assert first.status == "agreed"
    assert _state(service, gid) != start  # one consent is not enough
    with pytest.raises(Conflict, match="already agreed"):
        service.answer_dispute(gid, 1, opened.dispute, True, channel="api")
    last = service.answer_dispute(gid, 2, opened.dispute, True, channel="api")
    assert (last.status, last.retracted, last.revealed) == ("upheld", (3, 4), ())
    assert _state(service, gid) == start
    assert _types(service, gid)[-3:] == [
        dispute_events.DISPUTE_ANSWERED,
        dispute_events.DISPUTE_RESOLVED,
        ev.ACTIONS_RETRACTED,
    ]
    # Nothing deleted: the retracted moves are still in the log, skipped by the fold.
    assert _types(service, gid)[2:4] == [ev.ACTION_APPLIED, ev.ACTION_APPLIED]
    assert service.load(gid, at=4).to_act == frozenset({2})
    resolved = service.raw_events(gid)[-2]
    assert event_text(resolved.type, resolved.data) == (
        "dispute 5 upheld by every other player's consent (every other player agreed to "
        "retract the disputed actions): back to version 2, retracting versions 3 and 4"
    )
    [row] = service.disputes_of(gid)
    assert (row["status"], row["agreed"], row["disagreed"]) == ("upheld", [1, 2], [])
    assert (row["agreed_names"], row["disagreed_names"]) == (["P1", "P2"], [])
    play(service, gid, 0, "keep")  # the game goes on from the restored position
    _read_models_match(service, gid)


def test_a_disagreement_leaves_the_dispute_to_the_administrator(service: GameService) -> None:
    game = _hoard(service)
    gid = game.id
    play(service, gid, 0, "keep")
    play(service, gid, 1, "keep")
    opened = service.open_dispute(gid, 1, 3, None, "not what P0 said", channel="api")
    no = service.answer_dispute(gid, 0, opened.dispute, False, channel="api")
    assert no.status == "disagreed"
    assert service.disputes_of(gid)[0]["status"] == "open"
    upheld = service.resolve_dispute(gid, game.admin_token, opened.dispute, uphold=True, reason="")
    assert (upheld.status, upheld.retracted) == ("upheld", (3, 4))
    assert service.load(gid).to_act == frozenset({0})
    _read_models_match(service, gid)


def _to_reveal(service: GameService, gid: str) -> tuple[int, int]:
    """Both seats keep, then both stake nothing: the second stake reveals (irreversible).
    Returns (the first stake's version, the reveal's version)."""
    play(service, gid, 0, "keep")  # 3
    play(service, gid, 1, "keep")  # 4
    first = play(service, gid, 0, "pass").version  # 5, secret
    reveal = play(service, gid, 1, "pass").version  # 6, reveals both
    last = service.raw_events(gid)[-1].payload
    assert isinstance(last, ev.ActionApplied) and last.irreversible
    return first, reveal


def test_consent_cannot_uphold_a_dispute_across_a_reveal(service: GameService) -> None:
    game = _hoard(service)
    gid = game.id
    first, reveal = _to_reveal(service, gid)
    opened = service.open_dispute(gid, 0, first, None, "I staked by mistake", channel="api")
    count = event_count(service, gid)
    with pytest.raises(AgainstTheRules) as refused:
        service.answer_dispute(gid, 1, opened.dispute, True, channel="api")
    assert refused.value.message == (
        f"Retracting these moves would go back across version {reveal} (P1: pass), "
        "which drew randomness or revealed hidden information: the players' consent cannot "
        "undo that. Only the game's administrator can uphold this dispute."
    )
    assert event_count(service, gid) == count
    assert service.disputes_of(gid)[0]["status"] == "open"


def test_the_administrator_upholds_across_a_reveal_and_the_log_says_what_was_revealed(
    service: GameService,
) -> None:
    game = _hoard(service)
    gid = game.id
    first, reveal = _to_reveal(service, gid)
    opened = service.open_dispute(gid, 0, first, None, "I staked by mistake", channel="api")
    upheld = service.resolve_dispute(
        gid, game.admin_token, opened.dispute, uphold=True, reason="a slip of the keyboard"
    )
    assert upheld.retracted == (first, reveal)
    assert len(upheld.revealed) == 1
    said = upheld.revealed[0]
    assert said.startswith(
        f"Version {reveal} (P1: pass) drew randomness or revealed hidden information, "
        "which every player has seen"
    )
    assert f"P0: pass (version {first})" in said
    assert _state(service, gid) == _state(service, gid, at=first - 1)
    assert service.load(gid).to_act == frozenset({0, 1})
    text = service.events(gid, opened.dispute)[0]["text"]
    assert "upheld by the administrator (a slip of the keyboard)" in text
    assert "Already revealed, and still known to every player: Version 6" in text
    _read_models_match(service, gid)


def test_a_stale_mail_reply_still_applies_after_a_dispute_was_opened(
    service: GameService,
) -> None:
    game = _hoard(service)
    gid = game.id
    play(service, gid, 0, "keep")
    seen = service.load(gid).version
    service.open_dispute(gid, 0, 3, None, "just asking", channel="api")
    # A reply written before the dispute: the board it answered is the same.
    result: Any = service.submit(
        gid, 1, "keep", expected_version=seen, channel="email", stale_policy="same_decision"
    )
    assert result.applied[0].canonical == "keep"


def test_the_resolution_records_who_decided_not_the_opener(service: GameService) -> None:
    """The administrator's dismissal and uphold name no seat (the administrator's channel
    says how); a consent names the seat whose agreement completed it. The opener stays
    named as such, and an old (V1) event, which named only the opener, still reads."""
    game = _hoard(service, players=3)
    gid = game.id
    play(service, gid, 0, "keep")  # 3
    play(service, gid, 1, "keep")  # 4
    first = service.open_dispute(gid, 0, 3, None, "wrong", channel="api")
    service.resolve_dispute(
        gid, game.admin_token, first.dispute, uphold=False, reason="no", channel="api"
    )
    dismissed = service.raw_events(gid)[-1].payload
    assert isinstance(dismissed, dispute_events.DisputeResolved)
    assert (dismissed.opener, dismissed.seat, dismissed.by, dismissed.channel) == (
        0,
        None,
        "administrator",
        "api",
    )
    second = service.open_dispute(gid, 1, 4, None, "also wrong", channel="api")
    service.answer_dispute(gid, 0, second.dispute, True, channel="api")
    service.answer_dispute(gid, 2, second.dispute, True, channel="email")
    consent = service.raw_events(gid)[-2]
    assert consent.type == dispute_events.DISPUTE_RESOLVED
    assert consent.schema_version == 2
    assert (consent.data["opener"], consent.data["seat"], consent.data["by"]) == (
        1,
        2,
        "consent",
    )
    assert consent.data["channel"] == "email"
    third = service.open_dispute(gid, 2, 3, None, "the first keep", channel="api")
    service.resolve_dispute(gid, game.admin_token, third.dispute, uphold=True, reason="")
    upheld = service.raw_events(gid)[-2].payload
    assert isinstance(upheld, dispute_events.DisputeResolved)
    assert (upheld.opener, upheld.seat, upheld.by, upheld.channel) == (
        2,
        None,
        "administrator",
        "cli",
    )
    # A stored V1 payload still reads: its seat was the opener, its decider unknown.
    v1 = ev.canonical_json(
        {**{k: v for k, v in dismissed.data.items() if k != "opener"}, "seat": 0}
    )
    data, old = ev.decode_payload(dispute_events.DISPUTE_RESOLVED, 1, v1)
    assert isinstance(old, dispute_events.DisputeResolved)
    assert (old.opener, old.seat, data["opener"], data["seat"]) == (0, None, 0, None)
    _read_models_match(service, gid)


@pytest.mark.parametrize(
    "text", ["Visit evil.example/1 to claim your prize", "write to pat@evil", "see www.x"]
)
def test_a_dispute_or_a_reason_that_holds_a_link_is_refused(
    service: GameService, text: str
) -> None:
    # Both are mailed to every player, and whoever creates a game holds every seat without
    # an address and the admin token: move, dispute, uphold, again would relay any link to
    # the players it names, one mail each time, past every limit on creations.
    game = _hoard(service)
    gid = game.id
    play(service, gid, 0, "keep")  # version 3
    before = event_count(service, gid)
    with pytest.raises(BadRequest, match="web or e-mail address"):
        service.open_dispute(gid, 1, 3, None, text, channel="api")
    assert event_count(service, gid) == before
    opened = service.open_dispute(gid, 1, 3, None, "P0 never said keep", channel="api")
    with pytest.raises(BadRequest, match="web or e-mail address"):
        service.resolve_dispute(gid, game.admin_token, opened.dispute, uphold=False, reason=text)
    assert event_count(service, gid) == before + 1
