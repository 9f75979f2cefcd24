"""The three forms a notice takes, and the signature of the JSON form.

- ``discord``: Discord's incoming webhook, ``{"content": "…"}`` (at most 2000 characters),
  with ``allowed_mentions`` empty so a player's text can never ping ``@everyone``;
- ``slack``: Slack's incoming webhook, ``{"text": "…"}``, with ``&``, ``<`` and ``>``
  escaped as Slack asks (so no text becomes a link or a mention);
- ``json``: our own form, signed: the body is a JSON object (``delivery_id``, ``kind``,
  ``text``, ``created_at`` and the notice's facts), and the request carries
  ``X-Pbem-Signature: sha256=<hex HMAC-SHA256 of the raw body, keyed with the subscription's
  secret>``, ``X-Pbem-Delivery`` (the delivery id, the same on every retry) and
  ``X-Pbem-Timestamp`` (when the notice was written; inside the signed body too).

The body is written once, when the notice is (in the transaction of the event), and every
attempt sends the very same bytes: a receiver drops a delivery id it has seen.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

from pbem.webhooks.models import DISCORD, JSON, SLACK
from pbem.webhooks.notices import Notice

DISCORD_MAX = 2000
SIGNATURE_HEADER = "X-Pbem-Signature"
DELIVERY_HEADER = "X-Pbem-Delivery"
TIMESTAMP_HEADER = "X-Pbem-Timestamp"
EVENT_HEADER = "X-Pbem-Event"
USER_AGENT = "pbem-webhooks/1"


def _slack_escaped(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _canonical(value: dict[str, Any]) -> bytes:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


def body_for(form: str, notice: Notice, delivery_id: str, created_at: str, url: str) -> bytes:
    """The bytes sent for ``notice`` in ``form`` (``url``: the game's public page)."""
    text = notice.text if not url else f"{notice.text} {url}"
    if form == DISCORD:
        if len(text) > DISCORD_MAX:
            text = text[: DISCORD_MAX - 1] + "…"
        return _canonical({"content": text, "allowed_mentions": {"parse": []}})
    if form == SLACK:
        return _canonical({"text": _slack_escaped(text)})
    if form == JSON:
        return _canonical(
            {
                **notice.data,
                "delivery_id": delivery_id,
                "kind": notice.kind,
                "text": notice.text,
                "url": url or None,
                "created_at": created_at,
            }
        )
    raise ValueError(f"no webhook form {form!r}")


def signature(secret: str, body: bytes) -> str:
    """``sha256=<hex>``: HMAC-SHA256 of the raw body with the subscription's secret."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def verify(secret: str, body: bytes, header: str) -> bool:
    """What a receiver does (docs/webhooks.md has it as a standalone sample): recompute the
    signature over the raw bytes received and compare in constant time."""
    return hmac.compare_digest(signature(secret, body), header)


def headers_for(
    form: str, secret: str, body: bytes, delivery_id: str, created_at: str, kind: str
) -> dict[str, str]:
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        DELIVERY_HEADER: delivery_id,
        TIMESTAMP_HEADER: created_at,
        EVENT_HEADER: kind,
    }
    if form == JSON:
        headers[SIGNATURE_HEADER] = signature(secret, body)
    return headers
