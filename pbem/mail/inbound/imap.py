"""The IMAP door: poll a mailbox (``PBEM_IMAP_URL``) and feed each new message to the inbound
pipeline.

``imap://user:pass@host:143/INBOX?starttls=1`` or ``imaps://user:pass@host:993/INBOX``.

A message is marked only after the pipeline has stored it (committed), so a crash between
fetching and storing fetches it again next time, and the pipeline's key (Message-ID or hash)
makes that second delivery harmless. Marking uses a private keyword (``$PbemStored``) so
that a person reading the same mailbox (and setting ``\\Seen``) does not hide mail from us;
servers that do not allow new keywords fall back to ``\\Seen``.
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import Callable
from typing import Any

from imapclient import IMAPClient

from pbem.mail.urls import ServerUrl, parse_server_url

log = logging.getLogger(__name__)

KEYWORD = b"$PbemStored"


ImapConfig = ServerUrl


def parse_imap_url(url: str) -> ImapConfig:
    """Read ``imap[s]://user:pass@host[:port][/folder][?starttls=1&timeout=30&cafile=...]``."""
    config = parse_server_url(url, "imap", (143, 993), "imaps://user:pass@host/INBOX")
    if not config.username:
        raise ValueError("the IMAP URL needs a user and a host: imaps://user:pass@host/INBOX")
    return config


def poll(
    config: ImapConfig, handle: Callable[[bytes], Any], *, batch: int = 50, max_bytes: int = 0
) -> int:
    """Fetch up to ``batch`` unprocessed messages, pass each raw message to ``handle`` (which
    must store it durably before it returns), then mark it. Returns how many were handled.

    Messages larger than ``max_bytes`` (when set) are marked without being fetched: the
    pipeline would refuse them anyway, and fetching them would cost the memory we limit."""
    context = ssl.create_default_context(cafile=config.cafile)
    client = IMAPClient(
        config.host,
        port=config.port,
        ssl=config.implicit_tls,
        ssl_context=context if config.implicit_tls else None,
        timeout=config.timeout,
    )
    try:
        if config.starttls:
            client.starttls(context)
        client.login(config.username or "", config.password or "")
        selected = client.select_folder(config.path or "INBOX")
        keywords_allowed = b"\\*" in tuple(selected.get(b"PERMANENTFLAGS", ()))
        if keywords_allowed:
            uids = client.search(["NOT", "KEYWORD", KEYWORD.decode(), "NOT", "DELETED"])
            mark: list[bytes] = [KEYWORD]
        else:
            uids = client.search(["UNSEEN", "NOT", "DELETED"])
            mark = [b"\\Seen"]
        handled = 0
        for uid in sorted(uids)[:batch]:
            if max_bytes:
                size = client.fetch([uid], ["RFC822.SIZE"]).get(uid, {}).get(b"RFC822.SIZE", 0)
                if size > max_bytes:
                    log.warning(
                        "IMAP message %s is %s bytes (limit %s): skipped", uid, size, max_bytes
                    )
                    client.add_flags([uid], mark)
                    continue
            data = client.fetch([uid], ["BODY.PEEK[]"]).get(uid, {})
            raw = data.get(b"BODY[]")
            if not isinstance(raw, bytes):
                continue
            handle(raw)  # stored (or raised: then it stays unmarked and comes back next poll)
            client.add_flags([uid], mark)
            handled += 1
        return handled
    finally:
        try:
            client.logout()
        except Exception:  # the connection may already be gone; nothing left to do
            log.debug("IMAP logout failed", exc_info=True)
