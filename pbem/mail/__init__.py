"""Play by email: ``inbound/`` (the one pipeline behind every door, reading a mail, routing it to
its game and seat, the dispatch table of reply words that features fill) and ``outbound/``
(composing per-seat mails, the outbox, its relay, SMTP, safe headers, reply addresses, the
templates); the mail tables (``models``) and server URLs (``urls``) both use.

Modules without a database (``inbound.reading`` and its parts, ``outbound.headers``,
``outbound.address``, ``outbound.smtp``) stand alone so they can be tested and reused without the
service core."""
