"""Undo never deletes: own take-backs, the consent flow, what can never be undone, and the
log only growing."""

from __future__ import annotations

import pytest

from pbem.app.service import GameService
from pbem.core import events as ev
from pbem.core.errors import AgainstTheRules, Conflict, Forbidden
from pbem.core.fold import state_hash
from pbem.play.views import event_text
from pbem.undo import events as undo_events
from tests.service.test_games import event_count, new_hoard, play


def _state(service: GameService, gid: str, at: int | None = None) -> str:
    loaded = service.load(gid, at=at)
    return state_hash(loaded.rules, loaded.state)


class Log:
    """Checks, every time it is asked, that the game's log only ever grew."""

    def __init__(self, service: GameService, gid: str) -> None:
        self.service, self.gid, self.count = service, gid, event_count(service, gid)

    def grew(self) -> int:
        now = event_count(self.service, self.gid)
        assert now >= self.count
        self.count = now
        return now


def test_a_seat_takes_back_its_own_latest_action(service: GameService) -> None:
    gid = new_hoard(service)
    log = Log(service, gid)
    before = _state(service, gid)
    play(service, gid, 0, "keep")
    log.grew()
    result = service.undo(gid, 0, channel="api")
    assert (result.status, result.retracted, result.version) == ("retracted", (3,), 4)
    assert log.grew() == 4
    assert _state(service, gid) == before
    last = service.raw_events(gid)[-1]
    assert last.type == ev.ACTIONS_RETRACTED
    assert (last.data["to_version"], last.data["versions"], last.data["request"]) == (2, [3], None)
    assert event_text(last.type, last.data) == "back to version 2, retracting version 3"
    # the game goes on from the restored position, and the retracted action stays in the log
    play(service, gid, 0, "keep")
    assert [e.type for e in service.raw_events(gid)][2:] == [
        ev.ACTION_APPLIED,
        ev.ACTIONS_RETRACTED,
        ev.ACTION_APPLIED,
    ]
    assert service.load(gid, at=3).to_act == frozenset({1})  # history is still replayable


def test_a_secret_vote_can_be_taken_back_before_the_reveal(service: GameService) -> None:
    gid = new_hoard(service)
    play(service, gid, 0, "keep")
    play(service, gid, 1, "keep")
    play(service, gid, 1, "pass")  # secret; seat 0 has not voted yet
    result = service.undo(gid, 1, channel="api")
    assert result.status == "retracted"
    assert service.load(gid).to_act == frozenset({0, 1})


def test_going_back_over_another_seats_action_needs_its_consent(service: GameService) -> None:
    gid = new_hoard(service)
    log = Log(service, gid)
    start = _state(service, gid)
    play(service, gid, 0, "keep")
    play(service, gid, 1, "keep")
    request = service.undo(gid, 0, channel="api")
    assert request.status == "requested" and request.retracted == (3, 4)
    assert request.request == 5
    assert log.grew() == 5
    assert service.load(gid).version == 5
    assert _state(service, gid) != start  # nothing retracted yet
    with pytest.raises(AgainstTheRules, match="You made this request"):
        service.decide_undo(gid, 0, 5, True, channel="api")
    with pytest.raises(Conflict, match="waiting for answers"):
        service.undo(gid, 1, channel="api")
    decided = service.decide_undo(gid, 1, 5, True, channel="web")
    assert decided.status == "retracted" and decided.retracted == (3, 4)
    assert [e.type for e in service.raw_events(gid)[-2:]] == [
        undo_events.UNDO_DECIDED,
        ev.ACTIONS_RETRACTED,
    ]
    last = service.raw_events(gid)[-1]
    assert event_text(last.type, last.data) == "back to version 2, retracting versions 3 and 4"
    assert log.grew() == 7
    assert _state(service, gid) == start
    with pytest.raises(Conflict, match="already accepted"):
        service.decide_undo(gid, 1, 5, True, channel="api")


def test_a_declined_request_changes_nothing(service: GameService) -> None:
    gid = new_hoard(service)
    play(service, gid, 0, "keep")
    play(service, gid, 1, "keep")
    state = _state(service, gid)
    service.undo(gid, 0, channel="api")
    result = service.decide_undo(gid, 1, 5, False, channel="api")
    assert result.status == "declined"
    assert _state(service, gid) == state
    with pytest.raises(Conflict, match="already declined"):
        service.decide_undo(gid, 1, 5, True, channel="api")


def test_every_other_seat_must_accept(service: GameService) -> None:
    gid = new_hoard(service, players=3)
    start = _state(service, gid)
    for seat in (0, 1, 2):
        play(service, gid, seat, "keep")
    service.undo(gid, 0, channel="api")
    assert service.decide_undo(gid, 1, 6, True, channel="api").status == "accepted"
    assert _state(service, gid) != start
    assert service.decide_undo(gid, 2, 6, True, channel="api").status == "retracted"
    assert _state(service, gid) == start


def test_a_request_lapses_when_the_game_moves_on(service: GameService) -> None:
    gid = new_hoard(service)
    play(service, gid, 0, "keep")
    play(service, gid, 1, "keep")
    service.undo(gid, 0, channel="api")  # request 5; both seats may still vote
    play(service, gid, 1, "pass")
    with pytest.raises(Conflict, match="lapsed"):
        service.decide_undo(gid, 1, 5, True, channel="api")


def test_undo_never_crosses_an_irreversible_step(service: GameService) -> None:
    gid = new_hoard(service)
    log = Log(service, gid)
    play(service, gid, 0, "draw")  # random: irreversible
    with pytest.raises(AgainstTheRules, match="Cannot undo version 3") as caught:
        service.undo(gid, 0, channel="api")
    assert caught.value.status == 422
    play(service, gid, 1, "keep")
    # even with consent: seat 1 asking to go back before seat 0's draw is refused
    with pytest.raises(AgainstTheRules, match="drew randomness or revealed"):
        service.undo(gid, 1, to_version=2, channel="api")
    # but seat 1 may take back its own reversible action after it
    assert service.undo(gid, 1, channel="api").status == "retracted"
    assert log.grew() == 5


def test_the_reveal_of_secret_votes_cannot_be_undone(service: GameService) -> None:
    gid = new_hoard(service)
    for seat, move in [(0, "keep"), (1, "keep"), (0, "pass"), (1, "pass")]:
        play(service, gid, seat, move)
    with pytest.raises(AgainstTheRules, match="Cannot undo version 6"):
        service.undo(gid, 1, channel="api")


def test_undo_explains_what_cannot_be_done(service: GameService) -> None:
    gid = new_hoard(service)
    with pytest.raises(AgainstTheRules, match="no action to take back"):
        service.undo(gid, 0, channel="api")
    with pytest.raises(AgainstTheRules, match="Nothing has been played yet"):
        service.undo(gid, 0, to_version=5, channel="api")
    play(service, gid, 0, "keep")
    with pytest.raises(AgainstTheRules, match="from 2 to 2, not 1"):
        service.undo(gid, 0, to_version=1, channel="api")
    with pytest.raises(Forbidden):
        service.undo(gid, 5, channel="api")


def test_lancelot_take_back_on_the_real_engine(service: GameService) -> None:
    gid = service.create_game("lancelot", {}, [{"name": "A"}, {"name": "B"}]).id
    start = _state(service, gid)
    first = service.load(gid).legal(0)[0]
    play(service, gid, 0, first)
    assert service.undo(gid, 0, channel="cli").status == "retracted"
    assert _state(service, gid) == start
    assert service.load(gid).legal(0)[0] == first


def test_a_consented_undo_shows_the_accepting_mail_only_to_its_sender(
    service: GameService,
) -> None:
    gid = new_hoard(service)
    play(service, gid, 0, "keep")
    play(service, gid, 1, "keep")
    service.undo(gid, 0, channel="email", channel_ref="ann-asks@client.example")
    service.decide_undo(gid, 1, 5, True, channel="email", channel_ref="bob-agrees@client.example")
    for viewer, visible in [(0, {"ann-asks@client.example"}), (1, {"bob-agrees@client.example"})]:
        refs = {e["data"].get("channel_ref") for e in service.events(gid, 0, viewer)} - {None}
        assert refs == visible, viewer
    assert {e["data"].get("channel_ref") for e in service.events(gid, 0, None)} == {None}


def test_an_undo_past_a_resignation_names_the_player_who_resigned(service: GameService) -> None:
    gid = new_hoard(service, players=3)
    play(service, gid, 0, "keep")
    service.resign(gid, 2, channel="api")
    with pytest.raises(AgainstTheRules) as refused:
        service.undo(gid, 0, to_version=2, channel="api")
    message = str(refused.value)
    assert "P2" in message and "resigned" in message
    assert "seat 2" not in message
