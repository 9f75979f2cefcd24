"""What a new player reads, through the real inbound pipeline and outbox, on SQLite and
PostgreSQL: the help of a seat that is not to act says so and whose turn it is; an undo
request names the moves it takes back as each seat saw them (another seat's secret vote
stays "has voted"); a reminder names the move its deadline will play; and another seat's
standing order is not told to anyone but its seat, in mails or on the game page."""

from __future__ import annotations

import re
from datetime import timedelta

from pbem.app.bootstrap import build_sweeper
from pbem.app.service import Created
from pbem.mail.models import OutboxMail
from tests.mail.helpers import MailWorld, mail_text
from tests.mail.test_seat_links import _client, _link, _path
from tests.mail.test_simultaneous_by_mail import _lancaster, _to_parliament

TC = {"kind": "fixed", "per_decision": "48h", "vacation": "3d"}


def _game(world: MailWorld, names: tuple[str, str]) -> Created:
    seats = [{"name": n, "email": f"{n.lower()}@example.com"} for n in names]
    world.welcome(seats)
    return world.service.create_game("lancelot", {}, seats, channel="api", time_control=TC)


def _line(text: str, start: str) -> str:
    """The one line of ``text`` that starts with ``start`` (a notice's sentence)."""
    found = [line for line in text.splitlines() if line.startswith(start)]
    assert len(found) == 1, text
    return found[0]


def _new(world: MailWorld, gid: str, before: set[int | None]) -> dict[int, OutboxMail]:
    """The mails of the game written after ``before``, the last one of each seat."""
    return {m.seat: m for m in world.outbox(gid) if m.id not in before and m.seat is not None}


def _ids(world: MailWorld) -> set[int | None]:
    return {m.id for m in world.outbox()}


# -- help ----------------------------------------------------------------------------------


def test_help_says_whose_turn_it_is_and_what_a_waiting_seat_can_reply(world: MailWorld) -> None:
    game = _game(world, ("Hana", "Ivo"))
    outcome, _, waiting = world.say(game.id, 1, "help")
    text = mail_text(waiting)
    assert outcome == "applied" and waiting.kind == "help"
    assert "no move now" not in text
    assert "It is not your turn now: the game waits for Hana (Red)." in text
    assert "Meanwhile you can reply with any command below but a move, for example: show" in text
    assert "<your move>    when it is your turn, as the game writes it" in text
    # The seat to act is given examples of its move, as before.
    _, _, to_act = world.say(game.id, 0, "help")
    text = mail_text(to_act)
    assert "It is your turn: reply with your move on the first line." in text
    assert "<your move>    as the game writes it, for example: D4, D5" in text


# -- undo ----------------------------------------------------------------------------------


def test_an_undo_request_names_the_moves_it_takes_back(world: MailWorld) -> None:
    game = _game(world, ("Jade", "Kofi"))
    gid = game.id
    for seat, move in ((0, "E5"), (1, "F6")):
        assert world.say(gid, seat, move)[0] == "applied"
    before = _ids(world)
    assert world.say(gid, 0, "undo")[0] == "applied"
    mails = _new(world, gid, before)
    asked = mail_text(mails[1])
    assert _line(asked, "Jade (Red) asks to take back:") == (
        "Jade (Red) asks to take back: Jade (Red) placed a knight on E5 (version 4), "
        "Kofi (Blue) placed a knight on F6 (version 5). The game would go back to version 3 "
        "(undo request 6). Reply 'accept' to agree or 'decline' to refuse, on a line of its "
        "own. Any move in the game lets the request lapse."
    )
    asker = mail_text(mails[0])
    assert "Your undo request 6 is waiting for the others' answers. It takes back: Jade " in (asker)
    # Decided: every seat's mail says what was taken back.
    before = _ids(world)
    assert world.say(gid, 1, "accept")[0] == "applied"
    for mail in _new(world, gid, before).values():
        assert (
            "back to version 3, taking back: Jade (Red) placed a knight on E5 (version 4), "
            "Kofi (Blue) placed a knight on F6 (version 5)"
        ) in mail_text(mail)


def test_an_undo_request_across_secret_votes_names_them_only_as_votes(world: MailWorld) -> None:
    gid = _lancaster(world).id
    first = _to_parliament(world, gid) + 1
    for seat, vote in ((0, "vote yes"), (1, "vote no")):  # Cat has not voted: no reveal yet
        assert world.say(gid, seat, vote)[0] == "applied"
    before = _ids(world)
    assert world.say(gid, 0, "undo")[0] == "applied"  # Bob voted since: he must agree
    mails = _new(world, gid, before)
    asked = (
        f". The game would go back to version {first - 1} (undo request {first + 2}). Reply "
        "'accept' to agree or 'decline' to refuse, on a line of its own. Any move in the game "
        "lets the request lapse."
    )
    # Cat, who voted neither, reads two votes and nothing of what they were.
    assert _line(mail_text(mails[2]), "Ann (Red) asks to take back:") == (
        f"Ann (Red) asks to take back: Ann (Red) has voted (version {first}), "
        f"Bob (Blue) has voted (version {first + 1}){asked}"
    )
    # Bob reads his own vote; Ann's stays a vote.
    assert _line(mail_text(mails[1]), "Ann (Red) asks to take back:") == (
        f"Ann (Red) asks to take back: Ann (Red) has voted (version {first}), "
        f"Bob (Blue) has voted: vote no (version {first + 1}){asked}"
    )
    # Ann's own mail names her vote, and Bob's only as a vote.
    assert (
        f"It takes back: Ann (Red) has voted: vote yes (version {first}), Bob (Blue) has "
        f"voted (version {first + 1});"
    ) in mail_text(mails[0])
    for seat in (1, 2):
        assert "vote yes" not in mail_text(mails[seat])
    assert "vote no" not in mail_text(mails[2])


# -- reminders -----------------------------------------------------------------------------


def _remind(world: MailWorld, gid: str) -> dict[int, str]:
    """Advance past the first reminder (24 hours before a 48-hour deadline) and sweep: the
    reminders of this game, by seat."""
    before = _ids(world)
    world.clock.advance(timedelta(hours=25))
    build_sweeper(world.service).sweep()
    return {
        m.seat: mail_text(m).replace("\r\n", "\n")
        for m in world.outbox(gid)
        if m.id not in before and m.kind == "reminder" and m.seat is not None
    }


def test_a_reminder_names_the_standing_order_that_will_be_played(world: MailWorld) -> None:
    game = _game(world, ("Lena", "Milo"))
    assert world.say(game.id, 0, "default K11")[0] == "applied"
    reminders = _remind(world, game.id)
    assert set(reminders) == {0}
    assert re.search(
        r"If you do not move by \w{3} \d\d \w{3} \d{4} \d\d:\d\d UTC, your standing order "
        r"will be played: K11\n",
        reminders[0],
    ), reminders[0]
    assert "reply 'default <move>'" in reminders[0]


def test_a_reminder_says_the_default_move_when_the_order_is_not_legal(world: MailWorld) -> None:
    game = _game(world, ("Nora", "Otto"))
    # Otto's order is kept (he is not to act); Nora then takes its square.
    assert world.say(game.id, 1, "default F6")[0] == "applied"
    assert world.say(game.id, 0, "F6")[0] == "applied"
    reminders = _remind(world, game.id)
    assert set(reminders) == {1}
    assert re.search(
        r"your standing order 'F6' is not legal in this position, so the game's default move "
        r"will be played for you: [D-K]\d+\n",
        reminders[1],
    ), reminders[1]


def test_a_reminder_without_an_order_names_the_default_move(world: MailWorld) -> None:
    game = _game(world, ("Pia", "Quin"))
    reminders = _remind(world, game.id)
    game_now = world.service.load(game.id)
    rules, state = game_now.rules, game_now.state
    expected = rules.format_action(state, rules.auto_action(state, 0))
    assert f"the game's default move will be played for you: {expected}\n" in reminders[0]
    assert "standing order will be played" not in reminders[0]


# -- standing orders -----------------------------------------------------------------------


def test_a_standing_order_is_told_to_its_seat_alone(world: MailWorld) -> None:
    game = _game(world, ("Rosa", "Sven"))
    gid = game.id
    # Sven, not to act, leaves an order; Rosa leaves one and then moves.
    _, _, svens = world.say(gid, 1, "default J10")
    assert "Standing order kept: 'J10' is played for you if your next deadline passes" in (
        mail_text(svens)
    )
    _, _, rosas = world.say(gid, 0, "default H8")
    assert "Standing order set: if your deadline passes, 'H8' is played for you" in (
        mail_text(rosas)
    )
    before = _ids(world)
    assert world.say(gid, 0, "E5")[0] == "applied"
    mails = _new(world, gid, before)
    sven, rosa = mail_text(mails[1]), mail_text(mails[0])
    assert mails[1].kind == "turn"
    # Sven's own order is in his log, with its move; Rosa's is nowhere in his mail.
    assert "Sven (Blue) set their standing order: J10" in sven
    assert "Rosa (Red)" in sven and "Rosa (Red) changed" not in sven
    assert "Rosa (Red) set" not in sven and "H8" not in _since(sven)
    assert "J10" not in rosa and "Sven (Blue) set" not in rosa
    # Nor on his game page, nor in the log the API gives him or the public.
    for viewer in (1, None):
        events = world.service.events(gid, 0, viewer)
        assert [e for e in events if e["type"] == "StandingOrderSet"] == (
            [] if viewer is None else [e for e in events if e["data"].get("seat") == 1]
        )
        assert all("H8" not in str(e["data"]) for e in events)
    page = _client(world).get(_path(_link(mails[1])), follow_redirects=True)
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "You are <strong>Sven" in html
    assert "Rosa (Red) changed their standing order" not in html
    assert "Rosa (Red) set their standing order" not in html and "standing order: H8" not in html
    assert "Sven (Blue) set their standing order: J10" in html  # his own, on his page


def _since(text: str) -> str:
    """A mail's log lines ("Since your last move:" … up to the board)."""
    rest = text.partition("Since your last move:")[2]
    return rest.split("\n\n")[0] if rest else ""
