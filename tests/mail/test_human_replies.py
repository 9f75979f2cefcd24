"""Replies as people write them: a greeting at the top, the move in a sentence, a closing and
a signature under it. Each goes through the inbound pipeline (``Inbound.receive``, as the
webhook does) in answer to the mail the seat really got, and is applied as the player meant
it; a reply that is not a move is refused and changes nothing."""

from __future__ import annotations

import pytest

from pbem.app.bootstrap import reply_words
from pbem.mail.inbound.pipeline import Inbound
from pbem.mail.inbound.quotes import strip_reply
from pbem.mail.inbound.reading import command_lines
from pbem.mail.models import OutboxMail
from tests.mail.helpers import MailWorld, reply_to, text_part

PEOPLE = ["Ann", "Bob", "Cat"]


def _inbound(world: MailWorld) -> Inbound:
    return Inbound(
        world.db, world.settings, world.service, world.clock, words=reply_words(world.service)
    )


def _latest(world: MailWorld, gid: str, seat: int) -> OutboxMail:
    return [m for m in world.outbox(gid) if m.seat == seat][-1]


def _reply(mail: OutboxMail, body: str, name: str) -> bytes:
    """A reply from the seat's own address under its own display name."""
    return reply_to(mail, body).replace(b"From: Player <", f"From: {name} <".encode(), 1)


def _canonical(world: MailWorld, gid: str) -> str:
    return str(world.service.raw_events(gid)[-1].data["canonical"])


def _lancaster(world: MailWorld) -> str:
    return world.service.create_game(
        "lancaster",
        {},
        [{"name": n, "email": f"{n.lower()}@example.com"} for n in PEOPLE],
        channel="api",
    ).id


SETUP_REPLIES = [
    "Hi,\n\nI'd like extension 1 please.\n\nCheers, Ann",
    "Hello all,\nextension 2\nThanks,\nBob\n\nSent from my iPhone",
    "Morning!\n\nI'll take extension 3.\n\nBest regards\nCat Smith\n+44 20 7946 0000",
]


def test_lancaster_replies_with_greetings_and_closings_apply_as_meant(world: MailWorld) -> None:
    gid = _lancaster(world)
    inbound = _inbound(world)
    for seat, body in enumerate(SETUP_REPLIES):
        result = inbound.receive(_reply(_latest(world, gid, seat), body, PEOPLE[seat]), "webhook")
        assert result.outcome == "applied", result
        assert _canonical(world, gid) == f"extension {seat + 1}"
    loaded = world.service.load(gid)
    seat = min(loaded.to_act)
    name = PEOPLE[seat]
    # The reply of the trial, word for word: refused at "Hi," before, applied now.
    body = f"Hi,\n\nI'd like to put my knight 2 on county C with a squire.\n\nCheers, {name}"
    result = inbound.receive(_reply(_latest(world, gid, seat), body, name), "webhook")
    assert result.outcome == "applied", result
    assert _canonical(world, gid) == "knight 2 to C with 1 squire"
    assert world.service.load(gid).version == loaded.version + 1


def test_a_signature_under_the_closing_is_never_read_even_when_it_looks_like_a_move(
    world: MailWorld,
) -> None:
    game = world.new_game()
    inbound = _inbound(world)
    alice = (
        "Hi Bob,\n\nI'd like to put my knight on E5, please.\n\nCheers,\nAlice\n"
        "-- \nAlice Smith, knight of the round table\nF6"
    )
    result = inbound.receive(_reply(_latest(world, game.id, 0), alice, "Alice"), "webhook")
    assert result.outcome == "applied", result
    assert _canonical(world, game.id) == "E5"
    bob = "Hello Alice!\n\nF6\n\nThanks, Bob\nPS: G7 next time"
    result = inbound.receive(_reply(_latest(world, game.id, 1), bob, "Bob"), "webhook")
    assert result.outcome == "applied", result
    assert _canonical(world, game.id) == "F6"
    assert world.service.load(game.id).version == game.version + 2


NOT_MOVES = [
    # A question, a hedge, a negation, a count: refused by the game, whatever surrounds them.
    "Hi Bob,\n\nCan I put my knight 2 on county C?\n\nThanks, {name}",
    "Hello,\n\nMaybe knight 2 to C, not sure yet.\n\nCheers",
    "Dear all,\n\nI'm not putting my knight 2 on C.\n\nBest regards,\n{name}",
    "Hi,\n\nI'd like to put both knights on county C.\n\nCheers, {name}",
    # Nothing but a greeting and a closing: no command at all.
    "Hi all,\n\nThanks!\n{name}",
    "Morning!\n\nSent from my iPhone",
]


@pytest.mark.parametrize("body", NOT_MOVES)
def test_a_lancaster_reply_that_is_not_a_move_is_refused_and_changes_nothing(
    world: MailWorld, body: str
) -> None:
    gid = _lancaster(world)
    inbound = _inbound(world)
    for seat in range(3):
        text = f"extension {seat + 1}"
        assert inbound.receive(reply_to(_latest(world, gid, seat), text), "webhook").outcome == (
            "applied"
        )
    loaded = world.service.load(gid)
    seat = min(loaded.to_act)
    name = PEOPLE[seat]
    raw = _reply(_latest(world, gid, seat), body.format(name=name), name)
    result = inbound.receive(raw, "webhook")
    assert result.outcome == "refused", result
    assert world.service.load(gid).version == loaded.version
    if body.startswith(("Hi all", "Morning")):
        assert "no command" in result.detail
    errors = [m for m in world.outbox(gid) if m.kind == "error"]
    assert [m.recipient for m in errors] == [f"{name.lower()}@example.com"]


@pytest.mark.parametrize(
    "body",
    [
        "Hi Bob,\n\nE5?\n\nCheers, Alice",
        "Dear all,\n\nmaybe E5\n\nBest regards",
        "Hello!\n\nThanks,\nAlice",
    ],
)
def test_a_lancelot_reply_that_is_not_a_move_is_refused_and_changes_nothing(
    world: MailWorld, body: str
) -> None:
    game = world.new_game()
    result = _inbound(world).receive(_reply(_latest(world, game.id, 0), body, "Alice"), "webhook")
    assert result.outcome == "refused", result
    assert world.service.load(game.id).version == game.version


# -- which lines are dropped: only whole greetings and closings ------------------------------


@pytest.mark.parametrize(
    ("text", "commands"),
    [
        ("Hi,\n\nE5\n\nCheers, Ann", ("E5",)),
        ("Hello Bob,\nDear all,\nknight 2 to C\nThanks,\nAnn\nknight 1 to A", ("knight 2 to C",)),
        ("Good morning everyone!\nvote yes 1\nKind regards, Ann Smith", ("vote yes 1",)),
        ("Thanks!\nknight 1 to A", ("knight 1 to A",)),  # thanks before the move
        ("E5\ncheers ann", ("E5",)),  # the sender's own name, as typed
        ("Hallo zusammen,\nE5\nViele Grüße\nAnn", ("E5",)),
        # A greeting on the first command's line is cut up to its separator; without one
        # the line is kept whole, for the game to read or refuse.
        ("Hi, Pass", ("Pass",)),
        ("Hi E\nE5", ("Hi E", "E5")),
        ("Hi E5", ("Hi E5",)),
        ("Hi Blue knight 2 to C", ("Hi Blue knight 2 to C",)),
        ("Hi, knight 2 to C", ("knight 2 to C",)),
        ("Hi Bob, E5", ("E5",)),
        ("Hi all - knight 2 to C", ("knight 2 to C",)),
        ("E5\nCheers, Pass", ("E5", "Cheers, Pass")),
        # A closing on a command's line ends the reply there, as a closing line does.
        ("E5\nThanks for the game!", ("E5",)),
        ("D5. Thanks, Cat\nPS: G7 next time", ("D5.",)),
        ("F7 Thanks, Bob", ("F7",)),
        ("E5\nx Ann", ("E5",)),
        ("E5 Thanks Green", ("E5 Thanks Green",)),  # a colour is never a name
        # Friendly marks end a line without saying anything; others may take the move back.
        ("E5 👍", ("E5",)),
        ("E5 🙂🙏", ("E5",)),
        ("E5\n👍🏽", ("E5",)),
        ("E5 ❌", ("E5 ❌",)),
        ("E5 👎", ("E5 👎",)),
        # A greeting below the first command is not at the top: it stays, and is refused.
        ("E5\nHi,", ("E5", "Hi,")),
        ("Hi,\nCheers, Ann", ()),
        # A greeting and thanks on the first line say nothing: the move under them is read.
        ("Hi, thanks for the game!\nE5", ("E5",)),
        ("Hello all - cheers\nknight 2 to C", ("knight 2 to C",)),
        ("Hi Bob, thanks!\nE5", ("E5",)),
        ("Hi, thanks, E5", ("thanks, E5",)),  # a move after them: not dropped, refused
        # The sender's own name alone under the commands is a signature; another's is not.
        ("knight 2 to E with 1 squire\n\nAnn", ("knight 2 to E with 1 squire",)),
        ("E5\n-- Ann Smith", ("E5",)),
        ("E5\nBob", ("E5", "Bob")),
        ("Ann", ("Ann",)),  # a name alone is no signature under nothing: it is refused
    ],
)
def test_only_lines_that_are_entirely_a_greeting_or_closing_are_dropped(
    text: str, commands: tuple[str, ...]
) -> None:
    assert command_lines(strip_reply(text, "Ann Smith")) == commands


def test_a_name_that_is_a_command_is_never_taken_for_a_signature() -> None:
    # In Lancaster "Green" alone names the next start player; Alice Green's reply keeps it.
    text = strip_reply("favor gold\nGreen", "Alice Green", "alice.green@example.com")
    assert command_lines(text) == ("favor gold", "Green")
    assert command_lines(strip_reply("E5\nshow", "Show", "show@example.com")) == ("E5", "show")


def test_a_reply_signed_with_the_senders_name_alone_applies_its_move(world: MailWorld) -> None:
    """ "Bob" under the move, from bob@example.com (no display name to go by): a signature,
    not a second command that would turn the reply into an error."""
    game = world.new_game()
    inbound = _inbound(world)
    assert inbound.receive(reply_to(_latest(world, game.id, 0), "E5"), "webhook").outcome == (
        "applied"
    )
    raw = reply_to(_latest(world, game.id, 1), "F6\n\nBob").replace(b"From: Player <", b"From: <")
    result = inbound.receive(raw, "webhook")
    assert (result.outcome, result.detail) == ("applied", "F6")
    assert _canonical(world, game.id) == "F6"


@pytest.mark.parametrize(
    "body",
    [
        "Hi Bob, E5",
        "Hi all - E5",
        "E5. Thanks, Alice",
        "E5 Thanks, Bob",
        "I'll take E5",
        "E5 👍",
        "E5\nx Alice",  # a sign-off line: before, it made the applied move "partly applied"
        "E5\n\nThanks for the game!\nAlice",
        "Hi Bob - I'll take E5. Cheers, Alice xx\n\nSent from my iPhone",
        "Hi, thanks for the game!\nE5",  # before, the greeting line ended the reply: "Hi"
    ],
)
def test_courtesy_on_the_commands_line_or_under_it_applies_the_move_cleanly(
    world: MailWorld, body: str
) -> None:
    game = world.new_game()
    raw = _reply(_latest(world, game.id, 0), body, "Alice")
    result = _inbound(world).receive(raw, "webhook")
    assert (result.outcome, result.detail) == ("applied", "E5")
    assert not [m for m in world.outbox(game.id) if m.kind == "error"]


def test_a_lords_placement_reads_with_every_verb_and_its_error_names_a_lord(
    world: MailWorld,
) -> None:
    """At the King's Court: "goes", "moves", "send" place a lord as they place a knight; an
    unreadable lord's placement is refused as one, not as a knight's."""
    gid = world.service.create_game(
        "lancaster",
        {"expansions": {"kings_court": True}},
        [{"name": n, "email": f"{n.lower()}@example.com"} for n in PEOPLE],
        channel="api",
    ).id
    inbound = _inbound(world)
    for seat in range(3):
        text = f"extension {seat + 1}"
        assert inbound.receive(reply_to(_latest(world, gid, seat), text), "webhook").outcome == (
            "applied"
        )
    seat = min(world.service.load(gid).to_act)
    name = PEOPLE[seat]
    wrong = _reply(_latest(world, gid, seat), "Hi all - my lord goes to castle 2", name)
    assert inbound.receive(wrong, "webhook").outcome == "refused"
    error = [m for m in world.outbox(gid) if m.kind == "error"][-1]
    text = text_part(error.message)
    assert "your lord's placement" in text and "knight's placement" not in text
    body = f"Hi all - my lord goes to the treasury, gold. Thanks, {name}"
    result = inbound.receive(_reply(_latest(world, gid, seat), body, name), "webhook")
    assert (result.outcome, result.detail) == ("applied", "lord to treasury gold")
