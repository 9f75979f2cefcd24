"""Lancaster by mail, as a group plays it: simultaneous decisions answered from the same mail,
a reveal every seat reads at once, players named "Ann (Red)", one thread per game, the rules
page linked; and the mails of a game ended by resignation or of an undo request.

Every reply goes through the inbound pipeline (``Inbound.receive``, as the webhook does) and
every mail checked is one the outbox listener wrote for that seat.
"""

from __future__ import annotations

from email import message_from_bytes, policy
from email.message import EmailMessage

from engine import REGISTRY
from pbem.app.bootstrap import reply_words
from pbem.app.service import Created
from pbem.mail.inbound.pipeline import Inbound
from pbem.mail.models import OutboxMail
from pbem.mail.outbound.compose import thread_root
from pbem.play.views import describe
from tests.mail.helpers import MailWorld, plain_text, reply_to

LANCASTER = REGISTRY["lancaster"]
PEOPLE = ["Ann", "Bob", "Cat"]


def _inbound(world: MailWorld) -> Inbound:
    return Inbound(
        world.db, world.settings, world.service, world.clock, words=reply_words(world.service)
    )


def _message(mail: OutboxMail) -> EmailMessage:
    message = message_from_bytes(mail.message, policy=policy.default)
    assert isinstance(message, EmailMessage)
    return message


def _text(mail: OutboxMail) -> str:
    return plain_text(_message(mail))


def _latest(world: MailWorld, gid: str, seat: int, kind: str | None = None) -> OutboxMail:
    return [m for m in world.outbox(gid) if m.seat == seat and (kind is None or m.kind == kind)][-1]


def _lancaster(world: MailWorld) -> Created:
    seats = [{"name": n, "email": f"{n.lower()}@example.com"} for n in PEOPLE]
    world.welcome(seats)  # new to the service, they accept an invitation first
    return world.service.create_game("lancaster", {}, seats, channel="api")


def _to_parliament(world: MailWorld, gid: str) -> int:
    """Play the engine's default moves (over the API channel) up to the first vote."""
    svc = world.service
    for _ in range(200):
        loaded = svc.load(gid)
        if LANCASTER.view(loaded.state, None)["phase"] == "parliament":
            return loaded.version
        seat = min(loaded.to_act)
        action = LANCASTER.auto_action(loaded.state, seat)
        text = LANCASTER.format_action(loaded.state, action)
        svc.submit(gid, seat, text, expected_version=loaded.version, channel="api")
    raise AssertionError("no parliament within 200 moves")


def test_first_extension_tiles_chosen_from_the_start_mails_all_apply(world: MailWorld) -> None:
    game = _lancaster(world)
    inbound = _inbound(world)
    start_mails = [_latest(world, game.id, seat) for seat in range(3)]
    assert all(m.version == game.version for m in start_mails)
    # Each seat answers the mail it got when the game began; the others' choices (public,
    # made at the same time) came in between, and none of them changes this seat's choice.
    for seat, mail in enumerate(start_mails):
        result = inbound.receive(reply_to(mail, f"extension {seat + 1}"), "webhook")
        assert result.outcome == "applied", result
    assert world.service.load(game.id).version == game.version + 3


def test_votes_answering_the_same_vote_mail_apply_and_the_reveal_reaches_every_seat_at_once(
    world: MailWorld,
) -> None:
    game = _lancaster(world)
    gid = game.id
    vote_version = _to_parliament(world, gid)
    inbound = _inbound(world)
    vote_mails = [_latest(world, gid, seat, "turn") for seat in range(3)]
    assert [m.version for m in vote_mails] == [vote_version] * 3
    assert 'Vote on the new law "' in _text(vote_mails[1])

    # Ann votes first; Bob's vote answers his own vote mail, made before Ann's vote came in.
    votes = ["vote yes 1", "vote no", "vote yes"]
    for seat in (0, 1):
        result = inbound.receive(reply_to(vote_mails[seat], votes[seat]), "webhook")
        assert result.outcome == "applied", result
    # Bob sees that Ann voted, never how.
    bob_log = world.service.events(gid, vote_version, 1)
    assert bob_log[0]["data"]["hidden"] is True
    assert bob_log[0]["text"] == "Ann (Red) acted in secret — Ann (Red) has voted."
    assert "yes" not in str(bob_log[0]["data"])

    # Cat's vote is the last: it reveals every vote at once.
    before = {m.id for m in world.outbox(gid)}
    assert inbound.receive(reply_to(vote_mails[2], votes[2]), "webhook").outcome == "applied"
    shown = "Ann (Red) yes +1, Bob (Blue) no, Cat (Yellow) yes."
    new_mails = [m for m in world.outbox(gid) if m.id not in before]
    assert {m.seat for m in new_mails} == {0, 1, 2}
    for mail in new_mails:
        text = _text(mail)
        assert shown in text, (mail.seat, text)
        assert "seat 0" not in text and "seat 2 acted" not in text
    for seat in (0, 1, 2, None):
        log = world.service.events(gid, vote_version, seat)
        assert all(not e["data"].get("hidden") for e in log), seat
        assert shown in log[-1]["text"]
        assert shown in " ".join(log[-1]["data"]["log"])
    doc = describe(world.service.load(gid), 1)
    assert doc["players"][0]["display"] == "Ann (Red)"

    # Bob answers his old vote mail again: the law it was about is decided, so the position
    # changed (the next vote offers the same choices, but it is another law): refused.
    version = world.service.load(gid).version
    stale = inbound.receive(reply_to(vote_mails[1], "vote yes"), "webhook")
    assert stale.outcome == "refused"
    assert world.service.load(gid).version == version
    error = _latest(world, gid, 1)
    assert error.kind == "error"
    text = _text(error)
    assert f"The position changed after the mail you answered (version {vote_version})" in text
    assert shown in text  # what happened since: the reveal, named
    assert "The position now:" in text
    # The error reply stays in the game's thread: its subject, and the root in References.
    message, turn = _message(error), _message(vote_mails[1])
    assert message["Subject"] == turn["Subject"] == f"[pbem] Lancaster game {gid}"
    assert f"<{thread_root(world.settings, gid)}>" in str(message["References"])
    assert "Rules and how to write each move: https://pbem.test/rules/lancaster" in text


def test_turn_and_help_mails_link_the_rules_page(world: MailWorld) -> None:
    game = _lancaster(world)
    turn = _latest(world, game.id, 0)
    assert "Rules and how to write each move: https://pbem.test/rules/lancaster" in _text(turn)
    assert "your turn, Ann (Red)." in _text(turn)
    typed = [line for line in _text(turn).splitlines() if "You can type" in line]
    assert typed == [
        "You can type, for example: extension 1, extension 2, extension 3, extension 4, "
        "extension 5, extension 6"
    ], typed
    assert _inbound(world).receive(reply_to(turn, "help"), "webhook").outcome == "applied"
    help_mail = _latest(world, game.id, 0)
    assert help_mail.kind == "help"
    assert "https://pbem.test/rules/lancaster" in _text(help_mail)
    assert _message(help_mail)["Subject"] == _message(turn)["Subject"]


def test_a_game_ended_by_resignation_asks_nobody_to_move(world: MailWorld) -> None:
    game = world.new_game()  # Lancelot: Alice (Red), Bob (Blue)
    inbound = _inbound(world)
    assert inbound.receive(reply_to(_latest(world, game.id, 0), "E5"), "webhook").outcome == (
        "applied"
    )
    # Bob, to move, resigns instead.
    result = inbound.receive(reply_to(_latest(world, game.id, 1), "resign"), "webhook")
    assert result.outcome == "applied", result
    loaded = world.service.load(game.id)
    assert loaded.finished and loaded.to_act == frozenset()
    doc = describe(loaded, 1)
    assert doc["to_act"] == [] and doc["legal"] == []
    assert doc["result"] == "Bob (Blue) resigned.\n" + (
        "The game ended before its final scoring: the board shows where it stood.\n"
        "Alice (Red) wins."
    )
    ends = [m for m in world.outbox(game.id) if m.kind == "end"]
    assert {m.seat for m in ends} == {0, 1}
    for mail in ends:
        text = _text(mail)
        assert "Bob (Blue) resigned." in text and "Alice (Red) wins." in text
        assert "your turn" not in text.lower() and "Blue is to play" not in text
        assert "The game is over." in text


def test_an_open_undo_request_is_in_the_mails_and_its_lapse_is_logged_and_mailed(
    world: MailWorld,
) -> None:
    game = world.new_game()
    gid = game.id
    inbound = _inbound(world)
    for seat, move in ((0, "E5"), (1, "F6"), (0, "G7")):
        reply = reply_to(_latest(world, gid, seat), move)
        assert inbound.receive(reply, "webhook").outcome == "applied"
    # Bob, to move, asks to take back his F6: Alice moved since, so she must agree.
    assert inbound.receive(reply_to(_latest(world, gid, 1), "undo"), "webhook").outcome == (
        "applied"
    )
    asked, asker = _latest(world, gid, 0), _latest(world, gid, 1)
    # The request names the moves it would take back, as Alice saw them.
    assert (
        "Bob (Blue) asks to take back: Bob (Blue) placed a knight on F6 (version 4), "
        "Alice (Red) placed a knight on G7 (version 5). The game would go back to version 3"
    ) in _text(asked)
    assert "Reply 'accept' to agree or 'decline' to refuse" in _text(asked)
    assert asker.kind == "turn"
    assert "Your undo request" in _text(asker) and "waiting for the others' answers" in (
        _text(asker)
    )
    # Bob plays on instead: the request lapses, in the log and in both seats' mails.
    before = {m.id for m in world.outbox(gid)}
    assert inbound.receive(reply_to(asker, "H8"), "webhook").outcome == "applied"
    lapsed = [e for e in world.service.events(gid, 0, None) if e["type"] == "UndoLapsed"]
    assert len(lapsed) == 1
    line = "Bob (Blue)'s undo request"
    assert lapsed[0]["text"].startswith(line) and "lapsed" in lapsed[0]["text"]
    mailed = {m.seat: _text(m) for m in world.outbox(gid) if m.id not in before}
    assert set(mailed) == {0, 1}
    assert all(line in text and "lapsed" in text for text in mailed.values())
    # Alice can no longer accept it.
    refused = inbound.receive(reply_to(_latest(world, gid, 0), "accept"), "webhook")
    assert refused.outcome == "refused"
