"""A 5-player Lancaster game played only by e-mail replies, as a group of friends would.

Every notification goes through the relay to a real SMTP server (aiosmtpd); every move is a
reply posted to the inbound webhook, written to a mail that seat received. In parliament the
five players each answer the vote mail of the law, all sent before any of them voted (so four
of the five replies are made on a mail older than the game). The game must finish, pass
``pbem replay --verify``, and each seat must have been told everything it needed by mail.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

from engine.lancaster.state import COLOUR_NAMES
from pbem.core import events as ev
from tests.contract.conftest import check_replay
from tests.contract.players import (
    NAMES,
    Mailboxes,
    MailDoor,
    Reply,
    game_seed,
    pinned_seed,
    play_by_email,
)

VOTE = re.compile(r"^vote (yes|no)(?: (\d+))?$")


@pytest.mark.parametrize("seed", [11])
def test_five_players_finish_lancaster_by_mail_voting_on_each_law_from_one_vote_mail(
    mail_door: MailDoor, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, seed: int
) -> None:
    boxes = Mailboxes(mail_door.smtp)
    replies: list[Reply] = []
    config = {"players": 5}
    with pinned_seed(monkeypatch, game_seed(seed)):
        played = play_by_email(
            mail_door, "lancaster", config, seed, mailboxes=boxes, replies=replies
        )
    game_id = played.game_id
    service = mail_door.service
    assert service.load(game_id).finished
    check_replay(service, game_id, tmp_path)
    mail_door.deliver()
    boxes.collect()
    addresses = [f"{n.lower()}@players.test" for n in NAMES[:5]]

    # Parliament: per law, the five votes answer vote mails of one version (the mail sent
    # when the vote opened), each seat its own.
    votes_by_mail: dict[int, list[Reply]] = defaultdict(list)
    for reply in replies:
        if reply.secret:
            assert VOTE.match(reply.move), reply.move
            assert reply.mail.kind == "turn"
            votes_by_mail[reply.mail.version].append(reply)
    assert votes_by_mail, "the game had no parliament vote"
    for version, votes in votes_by_mail.items():
        assert sorted(r.seat for r in votes) == [0, 1, 2, 3, 4], (version, votes)
        assert [r.head for r in votes] == list(range(version, version + 5)), (
            "each vote after the first was sent on the vote mail, not on a later one"
        )
        assert len({r.mail.message_id for r in votes}) == 5  # one vote mail per seat

    # The reveal: the last vote of a law reveals them all, and the next mail each seat got
    # shows every seat's vote, each by its player's name and colour.
    events = service.raw_events(game_id)
    by_version = {e.version: e for e in events}
    for version, votes in votes_by_mail.items():
        last = by_version[version + 5]
        assert last.type == ev.ACTION_APPLIED and last.data["irreversible"]
        (line,) = [x for x in last.data["log"] if x.startswith("Votes on ")]
        title = line.split(":", 1)[0]  # Votes on "<the law>"
        for seat, address in enumerate(addresses):
            after = [m for m in boxes.of(address, game_id) if m.version >= last.version]
            assert after, f"{NAMES[seat]} got no mail after the votes on v{version} were in"
            text = " ".join(after[0].text().split())
            assert title + ":" in text, f"{NAMES[seat]}'s mail does not reveal {title}"
            shown = text.split(title + ":", 1)[1].split(" against", 1)[0]
            for r in votes:
                yes_no, markers = VOTE.match(r.move).groups()  # type: ignore[union-attr]
                vote = f"{NAMES[r.seat]} ({COLOUR_NAMES[r.seat]}) {yes_no}" + (
                    f" +{markers}" if markers and markers != "0" else ""
                )
                assert re.search(re.escape(vote) + "[,.]", shown), (
                    f"{NAMES[seat]}'s first mail after the reveal (v{after[0].version}, "
                    f"{after[0].kind}) does not show {vote!r}: {shown!r}"
                )

    # Every move answered a turn mail its seat received (play_by_email also checked that the
    # seats with an unanswered turn mail were always exactly the seats to act), and every
    # seat got the end mail.
    for seat, address in enumerate(addresses):
        mine = {m.message_id: m for m in boxes.of(address, game_id)}
        for r in (r for r in replies if r.seat == seat):
            assert r.mail.message_id in mine and r.mail.kind == "turn", (r.move, r.mail.kind)
        assert boxes.latest(address, game_id).kind == "end"  # type: ignore[union-attr]
    applied = [e for e in events if e.type == ev.ACTION_APPLIED]
    assert len(applied) == played.moves
    assert {e.data["channel"] for e in applied} == {"email"}
    assert all(e.data["channel_ref"] for e in applied)
