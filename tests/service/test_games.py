"""The game service on SQLite and PostgreSQL: creating, submitting, versions, idempotency,
multi-line submissions, listeners, resigning and replay with and without snapshots."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import delete, func, select, text

from pbem.app.service import GameService
from pbem.core import events as ev
from pbem.core.errors import (
    AgainstTheRules,
    BadRequest,
    Conflict,
    Forbidden,
    GameNotFound,
    StaleVersion,
    Unreadable,
)
from pbem.core.fold import state_hash
from pbem.core.models import Event, Game, GameSecret, Snapshot
from pbem.core.unit_of_work import AppendContext
from pbem.create import events as creation_events
from tests.helpers import database_of

PLAYERS = [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": None}]


def new_hoard(service: GameService, rounds: int = 3, players: int = 2) -> str:
    names = [{"name": f"P{i}", "email": f"p{i}@example.org"} for i in range(players)]
    return service.create_game("hoard", {"rounds": rounds}, names).id


def play(service: GameService, game_id: str, seat: int, text: str, **kw: Any) -> Any:
    version = service.load(game_id).version
    return service.submit(game_id, seat, text, expected_version=version, channel="api", **kw)


def event_count(service: GameService, game_id: str) -> int:
    with database_of(service).read() as s:
        return s.execute(select(func.count()).where(Event.game_id == game_id)).scalar_one()


def test_a_new_game_records_creation_and_start_with_a_seed_commitment(
    service: GameService,
) -> None:
    created = service.create_game("hoard", {"rounds": 2}, PLAYERS)
    assert created.version == 2
    assert [s.name for s in created.seats] == ["Ann", "Bob"]
    assert len({s.token for s in created.seats} | {created.admin_token}) == 3
    events = service.raw_events(created.id)
    assert [e.type for e in events] == [ev.GAME_CREATED, creation_events.GAME_STARTED]
    with database_of(service).read() as s:
        game = s.get(GameSecret, created.id)  # the seed is kept outside the read models
        assert game is not None
        assert events[0].data["seed_commitment"] == ev.seed_commitment(int(game.seed))
        assert game.seed not in json.dumps([e.to_json() for e in events])
    assert events[0].data["config"] == {"players": 2, "rounds": 2}
    assert events[1].data["to_act"] == [0]


@pytest.mark.parametrize(
    ("game", "config", "players", "message"),
    [
        ("chess", {}, PLAYERS, "no game called 'chess'"),
        ("hoard", {"rounds": 0}, PLAYERS, "rounds must be"),
        ("hoard", {"colour": 1}, PLAYERS, "unknown config keys"),
        ("hoard", {}, PLAYERS[:1], "played by 2, 3, 4 players, not 1"),
        ("hoard", {"players": 3}, PLAYERS, "says 3 players but 2 were named"),
        ("hoard", {}, [{"name": ""}, {"name": "B"}], "Player 1 needs a name"),
        ("hoard", {}, [{"name": "A", "email": "no-at"}, {"name": "B"}], "not an address"),
        # Addresses the mail layer would refuse to write into a header: refused here, not a
        # failure of the notification mails in the same transaction.
        ("hoard", {}, [{"name": "A", "email": "josé@example.com"}, {"name": "B"}], "address"),
        ("hoard", {}, [{"name": "A", "email": "a@exa_mple.com"}, {"name": "B"}], "address"),
        ("hoard", {}, [{"name": "A", "email": "a..b@example.com"}, {"name": "B"}], "address"),
        ("hoard", {}, [{"name": "A", "email": "a@b.c\r\nBcc: x@y"}, {"name": "B"}], "address"),
        ("hoard", {}, [{"name": "A\r\nBcc: x"}, {"name": "B"}], "printable"),
        # An encoded word decodes to other text in every mail client, here to a header line:
        # the mail layer could not write the name into a mail, so it is refused at creation.
        (
            "hoard",
            {},
            [
                {"name": "=?utf-8?q?x=0D=0ABcc:_evil@example.com?=", "email": "a@example.com"},
                {"name": "B"},
            ],
            "encoded word",
        ),
        ("hoard", {}, [{"name": "Ann =?utf-8?b?QWRtaW4=?="}, {"name": "B"}], "encoded word"),
    ],
)
def test_bad_creations_are_refused_with_the_reason(
    service: GameService, game: str, config: dict, players: list, message: str
) -> None:
    with pytest.raises(BadRequest, match=message):
        service.create_game(game, config, players)


def test_events_hold_no_nul_characters() -> None:
    # PostgreSQL text cannot store NUL: an event that SQLite would take is refused on both.
    for value in ({"a": "x\x00"}, {"a\x00": 1}, ["\x00"]):
        with pytest.raises(ev.EventDataError, match="NUL"):
            ev.canonical_json(value)


def test_an_action_is_appended_with_who_how_and_when(service: GameService) -> None:
    gid = new_hoard(service)
    result = service.submit(
        gid, 0, "  KEEP ", expected_version=2, channel="email", channel_ref="<m1@example.org>"
    )
    assert result.version == 3
    assert [(a.version, a.canonical, a.text) for a in result.applied] == [(3, "keep", "KEEP")]
    event = service.raw_events(gid)[-1]
    assert event.type == ev.ACTION_APPLIED
    assert event.data["channel"] == "email"
    assert event.data["channel_ref"] == "<m1@example.org>"
    assert event.data["received_at"].endswith("Z")
    assert event.prev_hash == service.raw_events(gid)[-2].hash
    assert service.load(gid).to_act == frozenset({1})


def test_a_stale_submission_is_refused_with_the_current_view_and_stores_nothing(
    service: GameService,
) -> None:
    gid = new_hoard(service)
    play(service, gid, 0, "keep")
    before = event_count(service, gid)
    with pytest.raises(StaleVersion) as caught:
        service.submit(gid, 1, "keep", expected_version=2, channel="api")
    assert caught.value.status == 409
    assert caught.value.version == 3
    assert caught.value.current is not None
    assert caught.value.current["version"] == 3
    assert caught.value.current["legal"] == ["draw", "keep"]
    assert "moved on to version 3" in caught.value.message
    with pytest.raises(StaleVersion, match="does not exist yet"):
        service.submit(gid, 1, "keep", expected_version=9, channel="api")
    assert event_count(service, gid) == before


def test_own_moves_ok_accepts_a_version_behind_only_ones_own_actions(
    service: GameService,
) -> None:
    gid = new_hoard(service)
    play(service, gid, 0, "keep")  # version 3, by seat 0
    # Seat 0 again on version 2 (an older mail): only its own action came since, so the
    # version is accepted and the rules decide (seat 0 is not to act now).
    with pytest.raises(AgainstTheRules, match="not your turn"):
        service.submit(
            gid, 0, "keep", expected_version=2, channel="email", stale_policy="own_moves_ok"
        )
    # The same for the strict policy is stale.
    with pytest.raises(StaleVersion):
        service.submit(gid, 0, "keep", expected_version=2, channel="api")
    # Seat 1 on version 2: seat 0 acted since, so it is stale under both policies.
    with pytest.raises(StaleVersion):
        service.submit(
            gid, 1, "keep", expected_version=2, channel="email", stale_policy="own_moves_ok"
        )
    result = service.submit(
        gid, 1, "keep", expected_version=3, channel="email", stale_policy="own_moves_ok"
    )
    assert result.version == 4


def test_same_decision_accepts_a_stake_made_before_other_seats_secret_stakes(
    service: GameService,
) -> None:
    """The rule of replies by mail and seat-page forms (docs/mail.md), on Hoard's secret
    stakes: other seats' secret, reversible stakes since the version a seat saw leave its
    decision as it was; the reveal, or another seat's public move in turn, change it."""
    gid = new_hoard(service, rounds=2, players=3)
    for seat in range(3):
        play(service, gid, seat, "keep")
    vote = service.load(gid).version  # all three owe a stake now
    play(service, gid, 0, "pass")  # seat 0's stake, secret and reversible

    def late(seat: int, text: str, seen: int, policy: Any = "same_decision") -> Any:
        return service.submit(
            gid, seat, text, expected_version=seen, channel="email", stale_policy=policy
        )

    # The API stays strict; under the older own-moves rule it is stale too.
    with pytest.raises(StaleVersion):
        service.submit(gid, 1, "pass", expected_version=vote, channel="api")
    with pytest.raises(StaleVersion):
        late(1, "pass", vote, "own_moves_ok")
    assert late(1, "pass", vote).version == vote + 2
    # The last stake reveals them all (irreversible): a stake made on the vote's version
    # by seat 2 still stands, since the reveal is its own.
    revealed = late(2, "pass", vote)
    assert revealed.version == vote + 3
    events = service.events(gid, vote + 2, 0)
    assert events[0]["data"]["canonical"] == "pass" and "Stakes revealed" in events[0]["text"]
    # Round 2 (draw, in turn): seat 0 answers the vote's version: the reveal came since.
    with pytest.raises(StaleVersion):
        late(0, "keep", vote)
    play(service, gid, 0, "keep")
    # Seat 1 answers the version before seat 0's public move, when it was not to act.
    with pytest.raises(StaleVersion):
        late(1, "keep", revealed.version)
    assert late(1, "keep", revealed.version + 1).version == revealed.version + 2


def test_several_lines_apply_in_order_and_stop_at_the_first_error(
    service: GameService,
) -> None:
    gid = service.create_game("hoard", {"rounds": 1, "players": 2}, PLAYERS).id
    # Seat 0 keeps; line 2 is then not its turn: line 1 stays applied.
    result = play(service, gid, 0, "keep\n\nkeep\npass")
    assert [a.canonical for a in result.applied] == ["keep"]
    assert isinstance(result.error, AgainstTheRules)
    assert result.error.line == 2
    assert "not your turn" in result.error.message
    assert service.load(gid).version == 3
    # Both unreadable lines and illegal ones stop the submission.
    with pytest.raises(Unreadable) as caught:
        play(service, gid, 1, "dance")
    assert caught.value.can_type == ("draw", "keep")
    assert caught.value.status == 400
    assert event_count(service, gid) == 3


def test_a_submission_from_a_seat_not_to_act_is_against_the_rules(
    service: GameService,
) -> None:
    gid = new_hoard(service)
    with pytest.raises(AgainstTheRules, match="not your turn") as caught:
        play(service, gid, 1, "keep")
    assert caught.value.status == 422
    with pytest.raises(Forbidden):
        play(service, gid, 7, "keep")
    with pytest.raises(GameNotFound):
        service.submit("nope", 0, "keep", expected_version=2, channel="api")
    with pytest.raises(Unreadable, match="no command"):
        play(service, gid, 0, "  \n ")


def test_retries_with_one_idempotency_key_store_one_event(service: GameService) -> None:
    gid = new_hoard(service)
    results = [
        service.submit(gid, 0, "keep", expected_version=2, channel="api", idempotency_key="k1")
        for _ in range(3)
    ]
    assert event_count(service, gid) == 3
    assert [r.version for r in results] == [3, 3, 3]
    assert [r.replayed for r in results] == [False, True, True]
    assert results[1].applied == results[0].applied
    with pytest.raises(Conflict, match="different submission"):
        service.submit(gid, 0, "draw", expected_version=2, channel="api", idempotency_key="k1")
    assert event_count(service, gid) == 3


def test_listeners_write_in_the_same_transaction_as_the_events(
    service: GameService,
) -> None:
    seen: list[AppendContext] = []

    class Recorder:
        def on_appended(self, ctx: AppendContext) -> None:
            seen.append(ctx)
            # a listener writes with the same session: it commits with the events
            ctx.session.execute(
                text("UPDATE games SET updated_at = :v WHERE id = :id"),
                {"v": "listener-was-here", "id": ctx.game_id},
            )

    class Failing:
        def on_appended(self, ctx: AppendContext) -> None:
            raise RuntimeError("outbox down")

    gid = new_hoard(service)
    service.listeners.append(Recorder())
    play(service, gid, 0, "draw")
    assert [e.type for e in seen[-1].events] == [ev.ACTION_APPLIED]
    assert seen[-1].version == 3
    assert seen[-1].rules.to_act(seen[-1].state_after) == frozenset({1})
    assert [s.email for s in seen[-1].seats] == ["p0@example.org", "p1@example.org"]
    with database_of(service).read() as s:
        assert s.get(Game, gid).updated_at == "listener-was-here"  # type: ignore[union-attr]
    service.listeners.append(Failing())
    with pytest.raises(RuntimeError):
        play(service, gid, 1, "keep")
    assert event_count(service, gid) == 3
    assert service.load(gid).version == 3


def test_a_finished_game_refuses_actions(service: GameService) -> None:
    gid = service.create_game("hoard", {"rounds": 1}, PLAYERS).id
    for seat, move in [(0, "keep"), (1, "keep"), (0, "pass"), (1, "pass")]:
        result = play(service, gid, seat, move)
    assert result.finished
    loaded = service.load(gid)
    assert loaded.finished and loaded.outcome is not None
    assert loaded.outcome["winners"] == [0, 1]
    final = service.raw_events(gid)[-1]
    assert final.type == ev.GAME_FINISHED
    assert (
        ev.seed_commitment(int(final.data["seed"]))
        == (service.raw_events(gid)[0].data["seed_commitment"])
    )
    with pytest.raises(Conflict, match="game is over"):
        play(service, gid, 0, "keep")


def test_resigning_two_player_game_ends_it_and_the_other_wins(service: GameService) -> None:
    gid = new_hoard(service)
    service.resign(gid, 1, channel="api")
    loaded = service.load(gid)
    assert loaded.finished
    assert loaded.outcome is not None and loaded.outcome["winners"] == [0]
    assert [e.type for e in service.raw_events(gid)[-2:]] == [
        ev.PLAYER_RESIGNED,
        ev.GAME_FINISHED,
    ]


def test_a_resigned_seat_is_played_automatically_in_a_larger_game(
    service: GameService,
) -> None:
    gid = new_hoard(service, rounds=1, players=3)
    play(service, gid, 0, "keep")
    service.resign(gid, 1, channel="api")
    events = service.raw_events(gid)
    assert events[-1].type == ev.ACTION_APPLIED
    assert events[-1].data["channel"] == "auto" and events[-1].data["seat"] == 1
    assert service.load(gid).to_act == frozenset({2})
    with pytest.raises(Forbidden, match="resigned"):
        play(service, gid, 1, "keep")


def _play_long_game(service: GameService, rounds: int) -> str:
    gid = new_hoard(service, rounds=rounds)
    moves = ["draw", "keep"]
    i = 0
    while not (loaded := service.load(gid)).finished:
        seat = min(loaded.to_act)
        legal = loaded.legal(seat)
        # draw sometimes, stake sometimes: a mix of random, secret and reversible steps
        choice = legal[-1] if legal[0] == "pass" and i % 3 else legal[0]
        if legal[0] == "draw":
            choice = moves[i % 2]
        play(service, gid, seat, choice)
        i += 1
    return gid


def test_replay_without_snapshots_gives_the_same_state_at_every_version(
    service: GameService,
) -> None:
    gid = _play_long_game(service, rounds=6)
    head = service.load(gid).version
    with_snapshots = {}
    for v in range(1, head + 1):
        service.cache.clear()  # so that the state comes from a snapshot and a short fold
        loaded = service.load(gid, at=v)
        with_snapshots[v] = state_hash(loaded.rules, loaded.state)
    with database_of(service).read() as s:
        snaps = s.execute(select(func.count()).where(Snapshot.game_id == gid)).scalar_one()
    assert snaps >= 3
    with database_of(service).write() as s:
        s.execute(delete(Snapshot).where(Snapshot.game_id == gid))  # type: ignore[arg-type]
    service.cache.clear()
    for v in range(1, head + 1):
        loaded = service.load(gid, at=v)
        service.cache.clear()
        assert state_hash(loaded.rules, loaded.state) == with_snapshots[v], v
