"""The background runner: relay and IMAP poll jobs, configured so that late runs happen."""

from __future__ import annotations

import time

from apscheduler.jobstores.memory import MemoryJobStore
from imapclient import IMAPClient

from pbem.mail.inbound import Inbound
from pbem.scheduler import build_scheduler, poll_imap
from tests.mail.conftest import MailWorld, reply_to, with_mail
from tests.mail.servers import Dovecot, SmtpTestServer


def _wait_for(condition, timeout: float = 10.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_jobs_are_in_memory_never_skipped_when_late_and_never_doubled(world: MailWorld) -> None:
    settings = with_mail(world.settings, imap_url="imap://u:p@127.0.0.1:1/INBOX")
    scheduler = build_scheduler(settings, world.service)
    jobs = {job.id: job for job in scheduler.get_jobs()}
    assert set(jobs) == {"mail-relay", "mail-imap"}
    for job in jobs.values():
        assert job.misfire_grace_time is None
        assert job.coalesce is True
        assert job.max_instances == 1
    assert isinstance(scheduler._jobstores["default"], MemoryJobStore)
    assert "mail-imap" not in {
        j.id for j in build_scheduler(world.settings, world.service).get_jobs()
    }


def test_the_running_scheduler_sends_the_outbox(
    world: MailWorld, smtp_server: SmtpTestServer
) -> None:
    settings = with_mail(world.settings, smtp_url=smtp_server.url, relay_interval=1)
    scheduler = build_scheduler(settings, world.service)
    scheduler.start()
    try:
        world.new_game()
        assert _wait_for(lambda: len(smtp_server.messages()) == 2)
    finally:
        scheduler.shutdown(wait=True)
    assert sorted(r.rcpt_tos[0] for r in smtp_server.messages()) == [
        "alice@example.com",
        "bob@example.com",
    ]


def test_a_reply_in_the_imap_mailbox_is_applied_once(world: MailWorld, dovecot: Dovecot) -> None:
    game = world.new_game()
    turn = next(m for m in world.outbox(game.id) if m.kind == "turn")
    with IMAPClient("127.0.0.1", port=dovecot.port, ssl=False) as client:
        client.login(dovecot.user, dovecot.password)
        client.append("INBOX", reply_to(turn, "E5"))
        client.append("INBOX", b"From: x@spam.example\r\nSubject: hi\r\n\r\nbuy now\r\n")
    settings = with_mail(world.settings, imap_url=dovecot.url)
    inbound = Inbound(world.db, settings, world.service, world.clock)
    assert poll_imap(settings, inbound) == 2
    assert poll_imap(settings, inbound) == 0
    events = world.service.raw_events(game.id)
    assert [e.data["canonical"] for e in events if e.type == "ActionApplied"] == ["E5"]
    assert events[-1].data["channel"] == "email"
