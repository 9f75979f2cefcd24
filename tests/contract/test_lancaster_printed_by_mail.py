"""Whole games of Lancaster as printed (rules 2.0.0) played by e-mail replies, each reply one
of the moves its turn mail suggests ("You can type, for example: ..."), as a player who reads
only the mail would: a 3-player game with every Henry V module, and a 2-player game with
allies. Each must finish, pass ``pbem replay --verify``, and end with a mail to every player
naming the winner."""

from __future__ import annotations

import re
from typing import Any

import pytest

from engine.lancaster import LANCASTER
from tests.contract.conftest import check_replay
from tests.contract.players import (
    MAX_MOVES,
    Chooser,
    Mail,
    Mailboxes,
    MailDoor,
    game_seed,
    pinned_seed,
    players,
    reply_to,
)

SUGGESTED = re.compile(r"^You can type, for example: (.*?)(?: … \(\d+ in all\))?\s*$", re.M)
HENRY_V = {"kings_court": True, "resentment": True, "laws_of_the_king": True}


def suggested(mail: Mail) -> list[str]:
    """The moves a turn mail suggests."""
    found = SUGGESTED.search(mail.text())
    assert found, mail.text()
    return found.group(1).split(", ")


def play_suggested_moves(
    door: MailDoor, config: dict[str, Any], seed: int
) -> tuple[str, Mailboxes]:
    seats = players(config["players"], email=True)
    game_id = door.service.create_game("lancaster", config, seats, channel="api").id
    boxes = Mailboxes(door.smtp)
    addresses = [str(p["email"]) for p in seats]
    door.deliver()
    boxes.collect()
    for address in addresses:
        invitation = boxes.latest(address, game_id, "invitation")
        if invitation is not None:
            assert door.post(reply_to(invitation, "accept"))["outcome"] == "applied"
    choose = Chooser(seed)
    answered: set[str] = set()
    for _ in range(MAX_MOVES):
        door.deliver()
        boxes.collect()
        loaded = door.service.load(game_id)
        if loaded.finished:
            return game_id, boxes
        turns = {s: boxes.latest(a, game_id, "turn") for s, a in enumerate(addresses)}
        owing = [s for s, m in turns.items() if m is not None and m.message_id not in answered]
        assert owing == sorted(loaded.to_act), (owing, sorted(loaded.to_act))
        seat = choose.pick(owing)
        turn, latest = turns[seat], boxes.latest(addresses[seat], game_id)
        assert turn is not None and latest is not None
        move = choose.pick(suggested(turn))
        answer = door.post(reply_to(latest, move))
        assert answer["outcome"] == "applied", (move, answer)
        answered.add(turn.message_id)
    raise AssertionError(f"game {game_id} did not finish in {MAX_MOVES} moves")


@pytest.mark.parametrize(
    ("config", "seed"),
    [({"players": 3, "expansions": HENRY_V}, 1), ({"players": 2}, 2)],
    ids=["3p-henry-v", "2p-allies"],
)
def test_a_printed_game_played_from_the_mails_suggestions_finishes_and_names_its_winner(
    mail_door: MailDoor,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Any,
    config: dict[str, Any],
    seed: int,
) -> None:
    with pinned_seed(monkeypatch, game_seed(seed)):
        game_id, boxes = play_suggested_moves(mail_door, config, seed)
    loaded = mail_door.service.load(game_id)
    assert loaded.rules.version == LANCASTER.version  # the latest: printed, 2.x
    check_replay(mail_door.service, game_id, tmp_path)
    outcome = loaded.rules.outcome(loaded.state)
    assert outcome is not None
    view = loaded.view(None)
    winners = [view["players"][w]["colour"] for w in outcome.winners]
    mail_door.deliver()
    boxes.collect()
    verb = "wins" if len(winners) == 1 else "share the win"
    for address in (str(p["email"]) for p in players(config["players"], email=True)):
        end = boxes.latest(address, game_id, "end")
        assert end is not None, address
        text = end.text().replace("\r\n", "\n")
        assert "the game is over" in text
        for colour in winners:
            assert re.search(rf"\({colour}\): \d+  \(winner\)", text), text
        assert re.search(rf"^.*\({'|'.join(winners)}\).* {verb}\.$", text, re.M), text
