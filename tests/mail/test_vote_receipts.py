"""A parliament vote sent by mail gets its receipt in the mail its author receives next: the
commitment and the salt, the salt in no one else's mail; after the reveal, the receipt from
that mail checks, and a changed salt does not."""

from __future__ import annotations

import re

from pbem.app.bootstrap import build_service, outbox_listener, reply_words
from pbem.audit.receipts import check_receipt
from pbem.core import events as ev
from pbem.mail.inbound.pipeline import Inbound
from tests.mail.helpers import MailWorld, reply_to
from tests.mail.test_simultaneous_by_mail import _lancaster, _latest, _text, _to_parliament
from tests.service.helpers import REGISTRY
from tests.settings import with_mail


def test_a_vote_by_mail_gets_a_receipt_its_author_alone_can_check_after_the_reveal(
    world: MailWorld,
) -> None:
    gid = _lancaster(world).id
    vote_version = _to_parliament(world, gid)
    inbound = Inbound(
        world.db, world.settings, world.service, world.clock, words=reply_words(world.service)
    )
    vote_mails = [_latest(world, gid, seat, "turn") for seat in range(3)]
    before = {m.id for m in world.outbox(gid)}
    assert inbound.receive(reply_to(vote_mails[0], "vote yes"), "webhook").outcome == "applied"
    event = world.service.raw_events(gid)[-1]
    p = event.payload
    assert isinstance(p, ev.ActionApplied) and p.seat == 0 and p.nonce and p.commitment
    new = [m for m in world.outbox(gid) if m.id not in before]
    own = [m for m in new if m.seat == 0]
    assert own, [m.kind for m in new]
    text = _text(own[-1])
    assert f"committed as {p.commitment} with salt {p.nonce}" in text
    link = re.search(r"https://\S+/receipt\?\S+", text)
    assert link is not None and f"salt={p.nonce}" in link.group(0)
    for mail in world.outbox(gid):
        if mail.seat != 0:
            assert p.nonce not in _text(mail)

    for seat, vote in ((1, "vote no"), (2, "vote yes")):  # the last vote reveals them all
        assert inbound.receive(reply_to(vote_mails[seat], vote), "webhook").outcome == "applied"
    result = check_receipt(world.db, gid, event.version, event.hash, p.nonce)
    assert result.ok and result.vote is not None and result.vote.status == "matches"
    assert event.version == vote_version + 1
    other = check_receipt(world.db, gid, event.version, event.hash, p.nonce[::-1])
    assert other.vote is not None and other.vote.status == "does not match"


def test_a_secret_actions_salt_is_mailed_to_its_author_with_confirmations_off(
    world: MailWorld,
) -> None:
    # The salt is the author's receipt: it must reach the author before the reveal, even
    # when plain confirmations are not mailed.
    settings = with_mail(world.settings, confirmations=False)
    service = build_service(
        settings,
        db=world.db,
        clock=world.clock,
        registry=REGISTRY,
        listeners=[outbox_listener(settings, world.clock)],
    )
    seats = [{"name": n, "email": f"{n.lower()}@example.com"} for n in ("Alice", "Bob")]
    world.welcome(seats)
    gid = service.create_game("hoard", {"rounds": 2}, seats, channel="api").id

    def act(seat: int, action: str) -> None:
        version = service.load(gid).version
        service.submit(gid, seat, action, expected_version=version, channel="web")

    act(0, "draw")
    act(1, "draw")
    before = {m.id for m in world.outbox(gid)}
    act(0, f"stake {service.load(gid).view(0)['my_purse'][0]}")
    p = service.raw_events(gid)[-1].payload
    assert isinstance(p, ev.ActionApplied) and p.seat == 0 and p.nonce and p.commitment
    new = [m for m in world.outbox(gid) if m.id not in before]
    own = [m for m in new if m.seat == 0]
    assert len(own) == 1, [(m.kind, m.seat) for m in new]
    assert f"committed as {p.commitment} with salt {p.nonce}" in _text(own[0])
    assert all(p.nonce not in _text(m) for m in new if m.seat != 0)
