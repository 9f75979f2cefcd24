"""No mail to one seat ever holds another seat's hidden values.

A Hoard game (gems behind each seat's screen, random draws, secret stakes revealed together)
is played by e-mail replies with seeded choices. Each reply answers the seat's latest mail;
a reply that arrives after another seat acted is refused with the fresh position, and the
seat answers that error mail instead. Seats also take stakes back (``undo``, ``accept``): a
retraction mails the seats to act what happened since their last move, which may hold
another seat's unrevealed stake. After every reply, every mail written since — turn,
confirmation, notice, end, error, ``show`` — is decoded (headers and text) and searched for
the gems the other seats hold at that moment, for the text of another seat's unrevealed
stake, and (before the end) for the seed.
"""

from __future__ import annotations

import random
from email import message_from_bytes, policy
from email.message import EmailMessage

import pytest

from pbem.app.bootstrap import build_service, outbox_listener, reply_words
from pbem.app.service import GameService
from pbem.core.db import Database
from pbem.core.models import GameSecret
from pbem.core.time_source import ManualClock
from pbem.mail.inbound.pipeline import Inbound
from pbem.mail.models import OutboxMail
from tests.mail.helpers import MailWorld, plain_text, reply_to
from tests.service.helpers import REGISTRY

# PostgreSQL under -m slow: what a mail holds is the rules' view of a seat, the same whatever
# stores the log.
pytestmark = pytest.mark.postgres_in_slow


def _readable(mail: OutboxMail) -> str:
    """Everything a recipient can read of a mail: the decoded headers and text."""
    message = message_from_bytes(mail.message, policy=policy.default)
    assert isinstance(message, EmailMessage)
    headers = "\n".join(f"{name}: {value}" for name, value in message.items())
    return headers + "\n" + plain_text(message)


def _hidden_from(service: GameService, gid: str, seat: int) -> set[str]:
    """What ``seat`` may not know now: the gems the other seats hold (a staked gem stays in
    its purse until the reveal), and each of their unrevealed stakes as a command."""
    state = service.load(gid).state
    gems = {g for s, purse in enumerate(state.purses) if s != seat for g in purse}
    stakes = {f"stake {v}" for s, v in enumerate(state.stakes) if s != seat and v}
    return gems | stakes


def _latest(mails: list[OutboxMail], seat: int, back: int = 0) -> OutboxMail:
    """The seat's latest mail that can be answered (``back``: that many mails before it)."""
    answerable = [m for m in mails if m.seat == seat and m.message and b"Reply-To:" in m.message]
    return answerable[max(0, len(answerable) - 1 - back)]


def test_no_mail_to_a_seat_holds_another_seats_hidden_values(
    database: Database, world: MailWorld
) -> None:
    clock = ManualClock(world.clock.now())
    service = build_service(
        world.settings,
        db=database,
        clock=clock,
        registry=REGISTRY,
        listeners=[outbox_listener(world.settings, clock)],
    )
    inbound = Inbound(database, world.settings, service, clock, words=reply_words(service))
    names = ["Alice", "Bob", "Carol"]
    seats = [{"name": n, "email": f"{n.lower()}@example.com"} for n in names]
    world.welcome(seats)  # new to the service, they accept an invitation first
    created = service.create_game("hoard", {"rounds": 5}, seats, channel="api")
    gid = created.id
    with database.read() as session:
        game = session.get(GameSecret, gid)  # the seed is kept outside the read models
        assert game is not None
        seed = game.seed
    rnd = random.Random(20250602)
    old_mails = random.Random(7)  # which older mail is answered (its own stream)
    mails_seen = stale_refusals = stale_applied = secrets_hidden = 0
    seen_ids: set[int] = set()
    outcomes: list[str] = []

    def check_new_mails(finished: bool) -> None:
        nonlocal mails_seen, secrets_hidden
        for mail in world.outbox(gid):
            if mail.id in seen_ids:
                continue
            seen_ids.add(mail.id or 0)
            mails_seen += 1
            assert mail.seat is not None
            text = _readable(mail)
            hidden = _hidden_from(service, gid, mail.seat)
            secrets_hidden += len(hidden)
            leaked = [h for h in hidden if h in text]
            assert not leaked, (mail.kind, mail.seat, leaked, text)
            if not finished:
                assert seed not in text, (mail.kind, mail.seat)

    check_new_mails(False)
    for _step in range(400):
        loaded = service.load(gid)
        if loaded.finished:
            break
        chance = rnd.random()
        if chance < 0.25:
            # Undo and its consent: a retraction mails the seats to act what happened since
            # their last move, which may hold another seat's unrevealed stake.
            word = "undo" if chance < 0.15 else "accept"
            # Most often a seat that has staked this round (it may take its stake back).
            staked = [s for s, v in enumerate(loaded.state.stakes) if v is not None]
            seat = rnd.choice(staked) if staked and rnd.random() < 0.8 else rnd.randrange(3)
            reply = reply_to(_latest(world.outbox(gid), seat), word)
            outcomes.append(inbound.receive(reply, "webhook").outcome)
            check_new_mails(service.load(gid).finished)
            continue
        seat = rnd.choice(sorted(loaded.to_act))
        legal = loaded.legal(seat)
        # Mostly draw (gems to hide) and stake (secrets to keep until the reveal).
        move = legal[0] if legal[0] == "draw" and rnd.random() < 0.8 else rnd.choice(legal)
        body = f"{move}\nshow" if rnd.random() < 0.25 else move
        # Mostly the latest mail; sometimes an older one, as a player answering an old mail.
        answered = _latest(world.outbox(gid), seat, back=old_mails.choice((0, 0, 0, 1, 2)))
        result = inbound.receive(reply_to(answered, body), "webhook")
        if result.outcome == "applied" and (answered.version or 0) < loaded.version:
            stale_applied += 1  # only others' secret stakes (or its own moves) came since
        if result.outcome == "refused":
            # The position changed since the mail answered: the error mail (checked below)
            # shows the fresh position, and answering it applies.
            stale_refusals += 1
            check_new_mails(False)
            error = world.outbox(gid)[-1]
            assert (error.kind, error.seat) == ("error", seat), result
            result = inbound.receive(reply_to(error, body), "webhook")
        assert result.outcome == "applied", result
        check_new_mails(service.load(gid).finished)
    else:
        raise AssertionError("the game did not finish in 400 replies")
    assert mails_seen > 40
    assert secrets_hidden > 100  # gems and stakes really were hidden along the way
    retractions = [e for e in service.raw_events(gid) if e.type == "ActionsRetracted"]
    assert len(retractions) >= 2 and "refused" in outcomes
    assert stale_refusals > 0  # the error reply with the fresh position was checked too
    assert stale_applied > 0  # a stake answering a mail older than others' stakes applied
    ends = [m for m in world.outbox(gid) if m.kind == "end"]
    assert len(ends) == 3 and all(seed in _readable(m) for m in ends)
