"""Outgoing webhooks: notices where players already are (Discord, Slack, or a signed JSON
receiver), with the mail outbox's guarantees (docs/webhooks.md).

- ``models``: the subscriptions and the webhook outbox (migration ``0018_webhooks``);
- ``subscriptions``: who may add, list and remove which (a game's administrator, or an
  address confirmed through a link mailed to it), and the operator's view of dead letters;
- ``notices``: the notice builders, registered per event type (``register_notice``), and
  the built-in ones (whose turn it is, a deadline passed, the game ended);
- ``listener``: each append's notices written to the outbox in its transaction, and the
  reminders' in the sweep's;
- ``forms``: the Discord, Slack and signed JSON bodies, and the signature;
- ``safety``: the SSRF guard and the one HTTP request of a delivery;
- ``relay``: delivers what is due (leases, backoff, dead letters);
- ``replies``: the reply words ``webhook``, ``webhooks``, ``webhook remove``.
"""
