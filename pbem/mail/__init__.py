"""Play by email: reading replies, composing per-seat mails, the outbox and its relay, the
inbound pipeline and its doors (webhook, IMAP poll, ``pbem mail-in``).

Modules without a database (``reading``, ``headers``, ``address``, ``smtp``) stand alone so
they can be tested and reused without the service core.
"""
