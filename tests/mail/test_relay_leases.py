"""Relay leases: a mail is never sent by two relays, however long a batch takes (a slow SMTP
server, a second scheduler), and the one window where a mail can go out again — a relay
stopped between the server's 250 and recording it — resends the same message, Message-ID
included, and says so in the log."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import timedelta
from email import message_from_bytes, policy

import pytest

from pbem.core.time_source import ManualClock, SystemClock
from pbem.mail.models import SENDING, SENT
from pbem.mail.outbound.relay import Relay
from pbem.mail.outbound.smtp import Session, Transport, transport_for
from tests.mail.helpers import MailWorld
from tests.mail.servers import SmtpTestServer
from tests.settings import with_mail


def _message_ids(server: SmtpTestServer) -> list[str]:
    return [
        str(message_from_bytes(r.data, policy=policy.default)["Message-ID"])
        for r in server.messages()
    ]


def _games(world: MailWorld, count: int) -> int:
    """``count`` new games (two mails each); the number of mails in the outbox."""
    for _ in range(count):
        world.new_game()
    return len(world.outbox())


class _Paced:
    """A real SMTP transport as seen through the test's manual clock: each mail takes
    ``seconds`` to send (a slow server), and ``during(n)`` runs after the n-th mail's 250."""

    def __init__(
        self,
        inner: Transport,
        clock: ManualClock,
        seconds: float,
        during: Callable[[int], None] = lambda n: None,
    ) -> None:
        self.inner, self.clock, self.seconds, self.during = inner, clock, seconds, during
        self.description = f"paced {inner.description}"
        self.sent = 0

    @contextmanager
    def _session(self) -> Iterator[Session]:
        with self.inner.session() as session:
            paced = self

            class _Send:
                def send(
                    self, envelope_from: str, recipients: Sequence[str], message: bytes
                ) -> None:
                    paced.clock.advance(timedelta(seconds=paced.seconds))
                    session.send(envelope_from, recipients, message)
                    paced.sent += 1
                    paced.during(paced.sent)

            yield _Send()

    def session(self) -> AbstractContextManager[Session]:
        return self._session()


def test_a_second_relay_takes_nothing_from_a_batch_that_outlasts_its_lease(
    world: MailWorld, smtp_server: SmtpTestServer
) -> None:
    total = _games(world, 4)
    world.settings = with_mail(world.settings, lease_seconds=10, relay_batch=50)
    second: list[int] = []

    def second_relay(sent: int) -> None:
        # 8 mails at 4 s each: the first lease of the batch (10 s) ran out two mails ago.
        if sent == 4:
            relay = Relay(
                world.db, world.settings, transport_for(smtp_server.url, ""), world.clock, "relay-2"
            )
            result = relay.run_once()
            second.append(result.sent + result.retried + result.dead)

    paced = _Paced(transport_for(smtp_server.url, ""), world.clock, 4, second_relay)
    first = Relay(world.db, world.settings, paced, world.clock, "relay-1").run_once()
    assert second == [0]  # the second relay found every row still leased (or the relay lease)
    assert first.sent == total
    ids = _message_ids(smtp_server)
    assert len(ids) == total and len(set(ids)) == total
    assert {r.status for r in world.outbox()} == {SENT}


def test_a_relay_whose_lease_ran_out_sends_none_of_the_rows_another_relay_took(
    world: MailWorld, smtp_server: SmtpTestServer, caplog: pytest.LogCaptureFixture
) -> None:
    """Beyond the assumption (one mail sent within half a lease): the mail that outlasted the
    whole lease may go twice, and says so in the log; the rest of the batch is the other
    relay's now, and the first relay sends none of it."""
    total = _games(world, 3)
    world.settings = with_mail(world.settings, lease_seconds=10)
    took: list[int] = []

    def second_relay(sent: int) -> None:
        if sent == 1:
            relay = Relay(
                world.db, world.settings, transport_for(smtp_server.url, ""), world.clock, "relay-2"
            )
            took.append(relay.run_once().sent)

    paced = _Paced(transport_for(smtp_server.url, ""), world.clock, 12, second_relay)
    with caplog.at_level(logging.WARNING, logger="pbem.mail.outbound.relay"):
        Relay(world.db, world.settings, paced, world.clock, "relay-1").run_once()
    assert took == [total]  # every row's lease had run out: the second relay took the batch
    assert paced.sent == 1  # and the first sent nothing more once it knew
    ids = _message_ids(smtp_server)
    assert len(ids) == total + 1 and len(set(ids)) == total
    assert ids[0] == ids[1]  # the slow mail, from both relays
    assert any("took longer to send than its lease" in r.getMessage() for r in caplog.records)
    assert {r.status for r in world.outbox()} == {SENT}


def test_two_relays_on_a_slow_server_send_every_mail_once(
    world: MailWorld, smtp_server: SmtpTestServer
) -> None:
    """Real time: 16 mails at 0.2 s each outlast a 2 s lease several times over."""
    total = _games(world, 8)
    settings = with_mail(world.settings, lease_seconds=2, relay_batch=50)
    smtp_server.delay = 0.2
    errors: list[BaseException] = []
    runs: dict[str, int] = {}

    def relay(owner: str) -> None:
        relay = Relay(world.db, settings, transport_for(smtp_server.url, ""), SystemClock(), owner)
        deadline = time.monotonic() + 30
        try:
            while time.monotonic() < deadline:
                relay.run_once()
                runs[owner] = runs.get(owner, 0) + 1
                if {r.status for r in world.outbox()} == {SENT}:
                    return
                time.sleep(0.05)
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=relay, args=(f"relay-{i}",)) for i in range(2)]
    for t in threads:
        t.start()
        time.sleep(0.1)  # the first has claimed the batch when the second starts
    for t in threads:
        t.join()
    assert errors == []
    # Both ran; the one that did not get the batch kept trying while it was being sent.
    assert len(runs) == 2 and sum(runs.values()) >= 4
    ids = _message_ids(smtp_server)
    assert len(ids) == total, f"{len(ids) - len(set(ids))} of {total} mails sent twice"
    assert len(set(ids)) == total
    assert {r.status for r in world.outbox()} == {SENT}


class _Killed(BaseException):
    """The relay's process ends here (as by kill -9): nothing after this line runs."""


def test_a_relay_stopped_between_the_250_and_recording_it_resends_that_mail_alone(
    world: MailWorld, smtp_server: SmtpTestServer, caplog: pytest.LogCaptureFixture
) -> None:
    """The documented window (docs/mail.md, "Sent once"): the same bytes go out again, so the
    recipient's client sees one message; the other mails of the batch are not resent."""
    total = _games(world, 2)
    world.settings = with_mail(world.settings, lease_seconds=10)

    def die(sent: int) -> None:
        if sent == 2:
            raise _Killed

    paced = _Paced(transport_for(smtp_server.url, ""), world.clock, 1, die)
    with pytest.raises(_Killed):
        Relay(world.db, world.settings, paced, world.clock, "relay-1").run_once()
    in_flight = [r for r in world.outbox() if r.status == SENDING]
    assert len(in_flight) == total - 1  # the second mail was sent, none recorded after it

    successor = Relay(
        world.db, world.settings, transport_for(smtp_server.url, ""), world.clock, "relay-2"
    )
    assert successor.run_once().sent == 0  # the first relay's lease still runs
    world.clock.advance(timedelta(seconds=11))
    with caplog.at_level(logging.WARNING, logger="pbem.mail.outbound.relay"):
        assert successor.run_once().sent == total - 1
    sent = smtp_server.messages()
    ids = _message_ids(smtp_server)
    assert len(ids) == total + 1 and len(set(ids)) == total  # one mail twice, no other
    twice = next(i for i in ids if ids.count(i) == 2)
    copies = [r.data for r, i in zip(sent, ids, strict=True) if i == twice]
    assert copies[0] == copies[1]  # the very same message
    taken_over = [r for r in caplog.records if "may have been sent already" in r.getMessage()]
    assert len(taken_over) == total - 1
    assert twice.strip("<>") in " ".join(r.getMessage() for r in taken_over)
